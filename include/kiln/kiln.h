/* Kiln runtime C API: load a signed .kiln model (verified before anything in it is used), make
 * sessions on the CPU, GPU (OpenCL) or DSP executors, run them. C99; no C++ types or exceptions
 * cross it. docs/api.md has a complete example.
 *
 * Errors: every call that can fail returns a kiln_status*: NULL on success, otherwise an object
 * the caller owns and frees with kiln_status_free, holding a code and the runtime's message
 * (the same words the `kiln` CLI prints, e.g. "refused by rule 'rollback': ..."). Out-parameters
 * are written only on success.
 *
 * Threads: a kiln_trust_store and a kiln_load_options may be used by one thread at a time while
 * they are being filled, and read concurrently afterwards. A kiln_model is immutable once loaded:
 * any number of threads may create sessions from it at once, and its weights are held once
 * however many sessions use it. A kiln_session is used by one thread at a time (set inputs, run,
 * read outputs); different sessions run concurrently from different threads.
 *
 * Lifetimes: a session keeps its model alive (kiln_model_free may come first). Strings and
 * arrays returned by accessors belong to the object they came from and stay valid until it is
 * freed; output data pointers (kiln_session_output_data) and warnings until the session's next
 * run.
 */
#ifndef KILN_KILN_H_
#define KILN_KILN_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define KILN_API __attribute__((visibility("default")))
#else
#define KILN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The API version this header declares; kiln_api_version() is the library's. A program built
 * against version N runs with a library of version N. */
#define KILN_API_VERSION 1

KILN_API uint32_t kiln_api_version(void);
/* The library's release, e.g. "0.1.0". */
KILN_API const char* kiln_version(void);

/* ---- Status ---- */

typedef enum kiln_code {
  KILN_OK = 0,
  KILN_INVALID_ARGUMENT = 1,  /* bad input: a shape, a dtype, an option, a missing file name */
  KILN_NOT_FOUND = 2,         /* a missing file, input or output name */
  KILN_UNSUPPORTED = 3,       /* a feature this build or device lacks */
  KILN_DATA_LOSS = 4,         /* a corrupt or truncated file */
  KILN_PERMISSION_DENIED = 5, /* signature, revocation, rollback, validity refusals */
  KILN_INTERNAL = 6           /* a bug in Kiln */
} kiln_code;

typedef struct kiln_status kiln_status;

/* KILN_OK for NULL. */
KILN_API kiln_code kiln_status_code(const kiln_status* status);
/* "" for NULL. */
KILN_API const char* kiln_status_message(const kiln_status* status);
KILN_API void kiln_status_free(kiln_status* status);

/* ---- Trust store: the public keys model signatures are checked against ---- */

typedef struct kiln_trust_store kiln_trust_store;

KILN_API kiln_status* kiln_trust_store_create(kiln_trust_store** out);
KILN_API void kiln_trust_store_free(kiln_trust_store* store);
/* An Ed25519 public key as a SubjectPublicKeyInfo PEM file (`kiln keygen` writes PREFIX.pub). */
KILN_API kiln_status* kiln_trust_store_add_key_file(kiln_trust_store* store, const char* path);
/* The same PEM text in memory (`size` bytes, no terminator needed). */
KILN_API kiln_status* kiln_trust_store_add_key_pem(kiln_trust_store* store, const char* pem,
                                                   size_t size);
/* Every *.pub file in `dir` and its revocation list revoked.txt (docs/security.md). */
KILN_API kiln_status* kiln_trust_store_add_directory(kiln_trust_store* store, const char* dir);

/* ---- Load options (all optional: NULL means the defaults) ---- */

typedef struct kiln_load_options kiln_load_options;

KILN_API kiln_status* kiln_load_options_create(kiln_load_options** out);
KILN_API void kiln_load_options_free(kiln_load_options* options);
/* Accept a file without a signature (development only); a signed file must still verify. */
KILN_API void kiln_load_options_set_allow_unsigned(kiln_load_options* options, int allow);
/* Use an uncompressed weights section in place from the file mapping (read-only storage only:
 * docs/security.md). Default 0: the verified private copy is what runs. */
KILN_API void kiln_load_options_set_map_weights(kiln_load_options* options, int map);
/* Rule 'rollback': a model with this id loads only at this version or later. */
KILN_API kiln_status* kiln_load_options_set_min_version(kiln_load_options* options,
                                                        const char* model_id, uint64_t version);
/* Rule 'rollback': a version counter file that only moves forward (created when absent). */
KILN_API kiln_status* kiln_load_options_set_counter_file(kiln_load_options* options,
                                                         const char* path);
/* Validity (rules 'not-before', 'not-after'): against this time (seconds since the epoch, UTC)
 * instead of the system clock. */
KILN_API void kiln_load_options_set_now(kiln_load_options* options, int64_t unix_seconds);
/* A device without a trusted clock: not-before and not-after are not checked. */
KILN_API void kiln_load_options_ignore_validity(kiln_load_options* options);

/* ---- Model: a verified, immutable, shareable .kiln file ---- */

typedef struct kiln_model kiln_model;

/* Verifies `path` (magic, bounds, revocation, signature, section hashes, trust policy, graph)
 * before anything in it is used; every refusal names the failed check. */
KILN_API kiln_status* kiln_model_load(const kiln_trust_store* trust, const char* path,
                                      const kiln_load_options* options, kiln_model** out);
/* The same checks over a file image in memory; the bytes are copied (the caller may free them
 * once this returns). */
KILN_API kiln_status* kiln_model_load_from_memory(const kiln_trust_store* trust, const void* data,
                                                  size_t size, const kiln_load_options* options,
                                                  kiln_model** out);
KILN_API void kiln_model_free(kiln_model* model);

/* Signed metadata. Strings are "" when absent. */
typedef struct kiln_model_info {
  const char* key_id;           /* signer's key id (16 hex digits); "" when unsigned */
  const char* producer_version; /* the Kiln release that wrote the file */
  const char* source_name;      /* the source model's file name */
  const char* source_sha256;    /* its SHA-256, hex */
  const char* model_id;         /* --model-id; "" when unversioned */
  uint64_t model_version;       /* --model-version; 0 when unversioned */
  int64_t created_unix;         /* seconds since the epoch, UTC */
  int has_not_before, has_not_after;
  int64_t not_before_unix, not_after_unix;
  int format_major, format_minor;
} kiln_model_info;

KILN_API void kiln_model_get_info(const kiln_model* model, kiln_model_info* out);

/* ---- Tensors ---- */

typedef enum kiln_dtype {
  KILN_DTYPE_UNDEFINED = 0,
  KILN_DTYPE_FLOAT32 = 1,
  KILN_DTYPE_FLOAT16 = 2, /* raw IEEE half bits */
  KILN_DTYPE_INT8 = 3,
  KILN_DTYPE_UINT8 = 4,
  KILN_DTYPE_INT32 = 5,
  KILN_DTYPE_INT64 = 6,
  KILN_DTYPE_BOOL = 7, /* one byte per element, 0 or 1 */
  KILN_DTYPE_INT16 = 8,
  KILN_DTYPE_FORCE_32BIT_ = 0x7fffffff /* a caller's other values are readable, and refused */
} kiln_dtype;

/* Bytes per element (0 for KILN_DTYPE_UNDEFINED or an unknown value). */
KILN_API size_t kiln_dtype_size(kiln_dtype dtype);
/* "f32", "i64", ...; "?" for an unknown value. */
KILN_API const char* kiln_dtype_name(kiln_dtype dtype);

typedef struct kiln_tensor_info {
  const char* name;
  kiln_dtype dtype;
  size_t rank;
  const int64_t* shape; /* `rank` dims */
  size_t byte_size;     /* elements x dtype size: what set_input takes and outputs hold */
} kiln_tensor_info;

/* ---- Session options ---- */

typedef enum kiln_accelerator_failure {
  KILN_FALL_BACK_TO_CPU = 0, /* leave a failed accelerator out; the CPU runs its nodes */
  KILN_FAIL = 1,             /* return the accelerator's error */
  KILN_ACCELERATOR_FAILURE_FORCE_32BIT_ = 0x7fffffff
} kiln_accelerator_failure;

typedef struct kiln_session_options kiln_session_options;

KILN_API kiln_status* kiln_session_options_create(kiln_session_options** out);
KILN_API void kiln_session_options_free(kiln_session_options* options);
/* Threads of the session's pool, the caller's included (default 1). */
KILN_API kiln_status* kiln_session_options_set_threads(kiln_session_options* options, int threads);
/* Executors by preference: "cpu", "gpu" (or "opencl", "gpu:N"), "dsp"; the CPU runs what the
 * others cannot (default: "cpu" alone). An absent accelerator is left out (a session warning). */
KILN_API kiln_status* kiln_session_options_set_devices(kiln_session_options* options,
                                                       const char* const* devices, size_t count);
/* GPU arithmetic: "fp32" (default) or "fp16". */
KILN_API kiln_status* kiln_session_options_set_gpu_precision(kiln_session_options* options,
                                                             const char* precision);
/* The DSP scratchpad the executor plans for, in bytes (re-plans the file's command streams). */
KILN_API kiln_status* kiln_session_options_set_dsp_scratch(kiln_session_options* options,
                                                           uint32_t bytes);
/* Cap the CPU kernels' instruction set: "auto" (default), "reference", "avx2", "avx512". */
KILN_API kiln_status* kiln_session_options_set_cpu_isa(kiln_session_options* options,
                                                       const char* isa);
/* Record each node's time (kiln_session_profile). */
KILN_API void kiln_session_options_set_profile(kiln_session_options* options, int profile);
KILN_API void kiln_session_options_set_on_accelerator_failure(kiln_session_options* options,
                                                              kiln_accelerator_failure mode);

/* ---- Session: buffers, kernels and threads made once; runs allocate nothing ---- */

typedef struct kiln_session kiln_session;

/* `options` may be NULL (the defaults). */
KILN_API kiln_status* kiln_session_create(const kiln_model* model,
                                          const kiln_session_options* options, kiln_session** out);
KILN_API void kiln_session_free(kiln_session* session);

KILN_API size_t kiln_session_input_count(const kiln_session* session);
KILN_API size_t kiln_session_output_count(const kiln_session* session);
KILN_API kiln_status* kiln_session_input_info(const kiln_session* session, size_t index,
                                              kiln_tensor_info* out);
KILN_API kiln_status* kiln_session_output_info(const kiln_session* session, size_t index,
                                               kiln_tensor_info* out);
/* KILN_NOT_FOUND (with the valid names) for a name the model does not have. */
KILN_API kiln_status* kiln_session_input_index(const kiln_session* session, const char* name,
                                               size_t* index);
KILN_API kiln_status* kiln_session_output_index(const kiln_session* session, const char* name,
                                                size_t* index);

/* Copies `size` bytes (exactly the input's byte_size, dense, in its dtype) into input `index`. */
KILN_API kiln_status* kiln_session_set_input(kiln_session* session, size_t index, const void* data,
                                             size_t size);
/* Runs every node; every input must have been set (inputs keep their values between runs). */
KILN_API kiln_status* kiln_session_run(kiln_session* session);
/* Caller-owned output: copies output `index` into `data` (`size` = its byte_size). */
KILN_API kiln_status* kiln_session_get_output(const kiln_session* session, size_t index, void* data,
                                              size_t size);
/* Session-owned output: `*data` points at output `index` (`*size` bytes) until the next run
 * or kiln_session_free. */
KILN_API kiln_status* kiln_session_output_data(kiln_session* session, size_t index,
                                               const void** data, size_t* size);

/* Executors asked for that could not start or failed later (their nodes run on the CPU). A
 * warning string is valid until the next kiln_session_run (a failure in a run adds one). */
KILN_API size_t kiln_session_warning_count(const kiln_session* session);
KILN_API const char* kiln_session_warning(const kiln_session* session, size_t index);

/* Per-node time summed over the runs since the session was made (profile option). */
typedef struct kiln_profile_entry {
  const char* node;
  const char* op;
  const char* executor;
  double total_ms;
  int64_t runs;
} kiln_profile_entry;

KILN_API size_t kiln_session_profile_count(const kiln_session* session);
KILN_API kiln_status* kiln_session_profile(const kiln_session* session, size_t index,
                                           kiln_profile_entry* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_KILN_H_ */
