// The C API (include/kiln/kiln.h) over the runtime's Model and Session. Nothing thrown crosses
// it: every entry point that can fail catches, and a failed allocation of the status object
// itself returns a static one.
#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "backends/dsp/dsp_options.h"
#include "backends/opencl/gpu_options.h"
#include "kernels/cpu_features.h"
#include "kiln/kiln.h"
#include "runtime/model.h"
#include "runtime/session.h"

// The C codes are the runtime's StatusCode values.
static_assert(KILN_INVALID_ARGUMENT == static_cast<int>(kiln::StatusCode::kInvalidArgument));
static_assert(KILN_NOT_FOUND == static_cast<int>(kiln::StatusCode::kNotFound));
static_assert(KILN_UNSUPPORTED == static_cast<int>(kiln::StatusCode::kUnsupported));
static_assert(KILN_DATA_LOSS == static_cast<int>(kiln::StatusCode::kDataLoss));
static_assert(KILN_PERMISSION_DENIED == static_cast<int>(kiln::StatusCode::kPermissionDenied));
static_assert(KILN_INTERNAL == static_cast<int>(kiln::StatusCode::kInternal));
static_assert(KILN_DTYPE_FLOAT32 == static_cast<int>(kiln::DType::kF32));
static_assert(KILN_DTYPE_FLOAT16 == static_cast<int>(kiln::DType::kF16));
static_assert(KILN_DTYPE_INT8 == static_cast<int>(kiln::DType::kI8));
static_assert(KILN_DTYPE_UINT8 == static_cast<int>(kiln::DType::kU8));
static_assert(KILN_DTYPE_INT32 == static_cast<int>(kiln::DType::kI32));
static_assert(KILN_DTYPE_INT64 == static_cast<int>(kiln::DType::kI64));
static_assert(KILN_DTYPE_BOOL == static_cast<int>(kiln::DType::kBool));
static_assert(KILN_DTYPE_INT16 == static_cast<int>(kiln::DType::kI16));

struct kiln_status {
  kiln_code code;
  std::string message;
};

struct kiln_trust_store {
  kiln::TrustStore store;
};

struct kiln_load_options {
  kiln::LoadOptions options;
};

struct kiln_model {
  std::shared_ptr<const kiln::Model> model;
};

struct kiln_session_options {
  kiln::SessionOptions options;
};

struct kiln_session {
  std::shared_ptr<const kiln::Model> model;  // kept alive by every session made from it
  std::unique_ptr<kiln::Session> session;
  // Copies of outputs stored blocked, for kiln_session_output_data.
  std::vector<std::vector<uint8_t>> blocked_outputs;
};

namespace {

kiln_status kOutOfMemory{KILN_INTERNAL, "out of memory"};

kiln_status* MakeStatus(kiln_code code, std::string message) {
  auto* s = new (std::nothrow) kiln_status{code, std::string()};
  if (s == nullptr) return &kOutOfMemory;
  try {
    s->message = std::move(message);
  } catch (...) {
  }
  return s;
}

kiln_status* FromStatus(const kiln::Status& st) {
  if (st.ok()) return nullptr;
  return MakeStatus(static_cast<kiln_code>(st.code()), st.message());
}

kiln_status* NullArgument(const char* what) {
  return MakeStatus(KILN_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

// Runs `body` (returning kiln_status*) with every exception turned into a status.
template <typename F>
kiln_status* Guard(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return &kOutOfMemory;
  } catch (const std::exception& e) {
    return MakeStatus(KILN_INTERNAL, e.what());
  } catch (...) {
    return MakeStatus(KILN_INTERNAL, "unknown error");
  }
}

size_t ElementBytes(const kiln::Value& v) {
  return static_cast<size_t>(v.num_elements()) * kiln::DTypeSize(v.dtype);
}

void FillInfo(const kiln::Value& v, kiln_tensor_info* out) {
  out->name = v.name.c_str();
  out->dtype = static_cast<kiln_dtype>(v.dtype);
  out->rank = v.shape.size();
  out->shape = v.shape.data();
  out->byte_size = ElementBytes(v);
}

kiln_status* FindName(const kiln::Graph& g, const std::vector<kiln::ValueId>& values,
                      const char* what, const char* name, size_t* index) {
  if (name == nullptr) return NullArgument("name");
  if (index == nullptr) return NullArgument("index");
  std::string names;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string& n = g.value(values[i]).name;
    if (n == name) {
      *index = i;
      return nullptr;
    }
    if (i) names += ", ";
    names += n;
  }
  return MakeStatus(KILN_NOT_FOUND, std::string("model has no ") + what + " '" + name + "' (" +
                                        what + "s: " + names + ")");
}

}  // namespace

extern "C" {

uint32_t kiln_api_version(void) { return KILN_API_VERSION; }
const char* kiln_version(void) { return KILN_VERSION_STRING; }

kiln_code kiln_status_code(const kiln_status* status) {
  return status == nullptr ? KILN_OK : status->code;
}
const char* kiln_status_message(const kiln_status* status) {
  return status == nullptr ? "" : status->message.c_str();
}
void kiln_status_free(kiln_status* status) {
  if (status != &kOutOfMemory) delete status;
}

// ---- Trust store ----

kiln_status* kiln_trust_store_create(kiln_trust_store** out) {
  if (out == nullptr) return NullArgument("out");
  return Guard([&]() -> kiln_status* {
    *out = new kiln_trust_store();
    return nullptr;
  });
}
void kiln_trust_store_free(kiln_trust_store* store) { delete store; }

kiln_status* kiln_trust_store_add_key_file(kiln_trust_store* store, const char* path) {
  if (store == nullptr) return NullArgument("store");
  if (path == nullptr) return NullArgument("path");
  return Guard([&] { return FromStatus(store->store.AddPublicKeyFile(path)); });
}
kiln_status* kiln_trust_store_add_key_pem(kiln_trust_store* store, const char* pem, size_t size) {
  if (store == nullptr) return NullArgument("store");
  if (pem == nullptr) return NullArgument("pem");
  return Guard([&] { return FromStatus(store->store.AddPublicKeyPem(std::string(pem, size))); });
}
kiln_status* kiln_trust_store_add_directory(kiln_trust_store* store, const char* dir) {
  if (store == nullptr) return NullArgument("store");
  if (dir == nullptr) return NullArgument("dir");
  return Guard([&] { return FromStatus(store->store.AddDirectory(dir)); });
}

// ---- Load options ----

kiln_status* kiln_load_options_create(kiln_load_options** out) {
  if (out == nullptr) return NullArgument("out");
  return Guard([&]() -> kiln_status* {
    *out = new kiln_load_options();
    return nullptr;
  });
}
void kiln_load_options_free(kiln_load_options* options) { delete options; }

void kiln_load_options_set_allow_unsigned(kiln_load_options* options, int allow) {
  if (options != nullptr) options->options.allow_unsigned = allow != 0;
}
void kiln_load_options_set_map_weights(kiln_load_options* options, int map) {
  if (options != nullptr) options->options.map_weights = map != 0;
}
kiln_status* kiln_load_options_set_min_version(kiln_load_options* options, const char* model_id,
                                               uint64_t version) {
  if (options == nullptr) return NullArgument("options");
  if (model_id == nullptr || *model_id == '\0') {
    return MakeStatus(KILN_INVALID_ARGUMENT, "a minimum version needs a model id");
  }
  return Guard([&]() -> kiln_status* {
    options->options.policy.min_versions[model_id] = version;
    return nullptr;
  });
}
kiln_status* kiln_load_options_set_counter_file(kiln_load_options* options, const char* path) {
  if (options == nullptr) return NullArgument("options");
  if (path == nullptr) return NullArgument("path");
  return Guard([&]() -> kiln_status* {
    options->options.policy.counter_file = path;
    return nullptr;
  });
}
void kiln_load_options_set_now(kiln_load_options* options, int64_t unix_seconds) {
  if (options == nullptr) return;
  options->options.policy.clock = kiln::ClockPolicy::kFixed;
  options->options.policy.now_unix = unix_seconds;
}
void kiln_load_options_ignore_validity(kiln_load_options* options) {
  if (options != nullptr) options->options.policy.clock = kiln::ClockPolicy::kIgnoreValidity;
}

// ---- Model ----

kiln_status* kiln_model_load(const kiln_trust_store* trust, const char* path,
                             const kiln_load_options* options, kiln_model** out) {
  if (trust == nullptr) return NullArgument("trust");
  if (path == nullptr) return NullArgument("path");
  if (out == nullptr) return NullArgument("out");
  return Guard([&]() -> kiln_status* {
    auto model =
        kiln::Model::Load(path, trust->store, options ? options->options : kiln::LoadOptions{});
    if (!model.ok()) return FromStatus(model.status());
    *out = new kiln_model{std::move(model).value()};
    return nullptr;
  });
}

kiln_status* kiln_model_load_from_memory(const kiln_trust_store* trust, const void* data,
                                         size_t size, const kiln_load_options* options,
                                         kiln_model** out) {
  if (trust == nullptr) return NullArgument("trust");
  if (data == nullptr) return NullArgument("data");
  if (out == nullptr) return NullArgument("out");
  return Guard([&]() -> kiln_status* {
    // A copy the model owns: the caller's buffer may go once this returns, and mapped weights
    // (map_weights) point into it for the model's life.
    auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t*>(data),
                                                        static_cast<const uint8_t*>(data) + size);
    const uint8_t* image = bytes->data();
    auto model = kiln::Model::LoadFromMemory(std::move(bytes), image, size, trust->store,
                                             options ? options->options : kiln::LoadOptions{});
    if (!model.ok()) return FromStatus(model.status());
    *out = new kiln_model{std::move(model).value()};
    return nullptr;
  });
}

void kiln_model_free(kiln_model* model) { delete model; }

void kiln_model_get_info(const kiln_model* model, kiln_model_info* out) {
  if (model == nullptr || out == nullptr) return;
  const kiln::ModelInfo& info = model->model->info();
  const kiln::ModelMetadata& m = info.metadata;
  *out = kiln_model_info{};
  out->key_id = info.key_id.c_str();
  out->producer_version = m.producer_version.c_str();
  out->source_name = m.source_name.c_str();
  out->source_sha256 = m.source_sha256.c_str();
  out->model_id = m.model_id.c_str();
  out->model_version = m.model_version.value_or(0);
  out->created_unix = m.created_unix;
  out->has_not_before = m.not_before_unix.has_value();
  out->has_not_after = m.not_after_unix.has_value();
  out->not_before_unix = m.not_before_unix.value_or(0);
  out->not_after_unix = m.not_after_unix.value_or(0);
  out->format_major = info.format_major;
  out->format_minor = info.format_minor;
}

// ---- Tensors ----

size_t kiln_dtype_size(kiln_dtype dtype) {
  if (dtype <= KILN_DTYPE_UNDEFINED || dtype > KILN_DTYPE_INT16) return 0;
  return kiln::DTypeSize(static_cast<kiln::DType>(dtype));
}
const char* kiln_dtype_name(kiln_dtype dtype) {
  // DTypeName's views are of string literals: NUL-terminated.
  if (dtype < KILN_DTYPE_UNDEFINED || dtype > KILN_DTYPE_INT16) return "?";
  return kiln::DTypeName(static_cast<kiln::DType>(dtype)).data();
}

// ---- Session options ----

kiln_status* kiln_session_options_create(kiln_session_options** out) {
  if (out == nullptr) return NullArgument("out");
  return Guard([&]() -> kiln_status* {
    auto* o = new kiln_session_options();
    o->options.cpu_max_isa = kiln::cpu::BestCpuIsa();
    *out = o;
    return nullptr;
  });
}
void kiln_session_options_free(kiln_session_options* options) { delete options; }

kiln_status* kiln_session_options_set_threads(kiln_session_options* options, int threads) {
  if (options == nullptr) return NullArgument("options");
  if (threads < 1) {
    return MakeStatus(KILN_INVALID_ARGUMENT,
                      "threads must be at least 1, got " + std::to_string(threads));
  }
  options->options.num_threads = threads;
  return nullptr;
}

kiln_status* kiln_session_options_set_devices(kiln_session_options* options,
                                              const char* const* devices, size_t count) {
  if (options == nullptr) return NullArgument("options");
  if (devices == nullptr && count > 0) return NullArgument("devices");
  return Guard([&]() -> kiln_status* {
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
      if (devices[i] == nullptr) return NullArgument("a device name");
      names.emplace_back(devices[i]);
    }
    if (names.empty()) names.emplace_back(kiln::kExecutorCpu);
    options->options.executors = std::move(names);
    return nullptr;
  });
}

kiln_status* kiln_session_options_set_gpu_precision(kiln_session_options* options,
                                                    const char* precision) {
  if (options == nullptr) return NullArgument("options");
  if (precision == nullptr) return NullArgument("precision");
  auto& gpu = options->options.backend_options.Mutable<kiln::GpuOptions>();
  const std::string p = precision;
  if (p == "fp32") {
    gpu.precision = kiln::GpuPrecision::kFp32;
  } else if (p == "fp16") {
    gpu.precision = kiln::GpuPrecision::kFp16;
  } else {
    return MakeStatus(KILN_INVALID_ARGUMENT, "gpu precision '" + p + "': expected fp32 or fp16");
  }
  return nullptr;
}

kiln_status* kiln_session_options_set_dsp_scratch(kiln_session_options* options, uint32_t bytes) {
  if (options == nullptr) return NullArgument("options");
  if (bytes < kiln::kDspMinScratchBytes || bytes > kiln::kDspMaxScratchBytes) {
    return MakeStatus(KILN_INVALID_ARGUMENT,
                      "dsp scratch " + std::to_string(bytes) + " bytes: must be between " +
                          std::to_string(kiln::kDspMinScratchBytes) + " and " +
                          std::to_string(kiln::kDspMaxScratchBytes));
  }
  auto& dsp = options->options.backend_options.Mutable<kiln::DspOptions>();
  dsp.scratch_bytes = bytes;
  dsp.replan = true;  // an explicit size overrides the file's command streams
  return nullptr;
}

kiln_status* kiln_session_options_set_cpu_isa(kiln_session_options* options, const char* isa) {
  if (options == nullptr) return NullArgument("options");
  if (isa == nullptr) return NullArgument("isa");
  return Guard([&]() -> kiln_status* {
    auto parsed = kiln::cpu::ParseCpuIsa(isa);
    if (!parsed.ok()) return FromStatus(parsed.status());
    options->options.cpu_max_isa = *parsed;
    return nullptr;
  });
}

void kiln_session_options_set_profile(kiln_session_options* options, int profile) {
  if (options != nullptr) options->options.profile = profile != 0;
}

void kiln_session_options_set_on_accelerator_failure(kiln_session_options* options,
                                                     kiln_accelerator_failure mode) {
  if (options == nullptr) return;
  options->options.on_accelerator_failure = mode == KILN_FAIL
                                                ? kiln::AcceleratorFailure::kFail
                                                : kiln::AcceleratorFailure::kFallBackToCpu;
}

// ---- Session ----

kiln_status* kiln_session_create(const kiln_model* model, const kiln_session_options* options,
                                 kiln_session** out) {
  if (model == nullptr) return NullArgument("model");
  if (out == nullptr) return NullArgument("out");
  return Guard([&]() -> kiln_status* {
    kiln::SessionOptions o;
    if (options != nullptr) {
      o = options->options;
    } else {
      o.cpu_max_isa = kiln::cpu::BestCpuIsa();
    }
    auto session = kiln::Session::Create(*model->model, std::move(o));
    if (!session.ok()) return FromStatus(session.status());
    auto* s = new kiln_session();
    s->model = model->model;
    s->session = std::move(session).value();
    s->blocked_outputs.resize(s->session->num_outputs());
    *out = s;
    return nullptr;
  });
}
void kiln_session_free(kiln_session* session) { delete session; }

size_t kiln_session_input_count(const kiln_session* session) {
  return session == nullptr ? 0 : session->session->num_inputs();
}
size_t kiln_session_output_count(const kiln_session* session) {
  return session == nullptr ? 0 : session->session->num_outputs();
}

kiln_status* kiln_session_input_info(const kiln_session* session, size_t index,
                                     kiln_tensor_info* out) {
  if (session == nullptr) return NullArgument("session");
  if (out == nullptr) return NullArgument("out");
  if (index >= session->session->num_inputs()) {
    return MakeStatus(KILN_INVALID_ARGUMENT,
                      "input index " + std::to_string(index) + " out of range (" +
                          std::to_string(session->session->num_inputs()) + " inputs)");
  }
  FillInfo(session->session->input_info(index), out);
  return nullptr;
}

kiln_status* kiln_session_output_info(const kiln_session* session, size_t index,
                                      kiln_tensor_info* out) {
  if (session == nullptr) return NullArgument("session");
  if (out == nullptr) return NullArgument("out");
  if (index >= session->session->num_outputs()) {
    return MakeStatus(KILN_INVALID_ARGUMENT,
                      "output index " + std::to_string(index) + " out of range (" +
                          std::to_string(session->session->num_outputs()) + " outputs)");
  }
  FillInfo(session->session->output_info(index), out);
  return nullptr;
}

kiln_status* kiln_session_input_index(const kiln_session* session, const char* name,
                                      size_t* index) {
  if (session == nullptr) return NullArgument("session");
  return Guard([&] {
    const kiln::Graph& g = session->session->graph();
    return FindName(g, g.inputs(), "input", name, index);
  });
}

kiln_status* kiln_session_output_index(const kiln_session* session, const char* name,
                                       size_t* index) {
  if (session == nullptr) return NullArgument("session");
  return Guard([&] {
    const kiln::Graph& g = session->session->graph();
    return FindName(g, g.outputs(), "output", name, index);
  });
}

kiln_status* kiln_session_set_input(kiln_session* session, size_t index, const void* data,
                                    size_t size) {
  if (session == nullptr) return NullArgument("session");
  return Guard([&] { return FromStatus(session->session->SetInputBytes(index, data, size)); });
}

kiln_status* kiln_session_run(kiln_session* session) {
  if (session == nullptr) return NullArgument("session");
  return Guard([&] { return FromStatus(session->session->Run()); });
}

kiln_status* kiln_session_get_output(const kiln_session* session, size_t index, void* data,
                                     size_t size) {
  if (session == nullptr) return NullArgument("session");
  return Guard([&] { return FromStatus(session->session->CopyOutput(index, data, size)); });
}

kiln_status* kiln_session_output_data(kiln_session* session, size_t index, const void** data,
                                      size_t* size) {
  if (session == nullptr) return NullArgument("session");
  if (data == nullptr) return NullArgument("data");
  if (size == nullptr) return NullArgument("size");
  return Guard([&]() -> kiln_status* {
    kiln::Session& s = *session->session;
    if (index >= s.num_outputs()) {
      return MakeStatus(KILN_INVALID_ARGUMENT, "output index " + std::to_string(index) +
                                                   " out of range (" +
                                                   std::to_string(s.num_outputs()) + " outputs)");
    }
    const size_t bytes = ElementBytes(s.output_info(index));
    auto direct = s.OutputHostData(index);
    if (direct.ok()) {
      *data = *direct;
      *size = bytes;
      return nullptr;
    }
    std::vector<uint8_t>& copy = session->blocked_outputs[index];
    copy.resize(bytes);
    if (kiln_status* st = FromStatus(s.CopyOutput(index, copy.data(), bytes))) return st;
    *data = copy.data();
    *size = bytes;
    return nullptr;
  });
}

size_t kiln_session_warning_count(const kiln_session* session) {
  return session == nullptr ? 0 : session->session->warnings().size();
}
const char* kiln_session_warning(const kiln_session* session, size_t index) {
  if (session == nullptr || index >= session->session->warnings().size()) return nullptr;
  return session->session->warnings()[index].c_str();
}

size_t kiln_session_profile_count(const kiln_session* session) {
  return session == nullptr ? 0 : session->session->profile().size();
}

kiln_status* kiln_session_profile(const kiln_session* session, size_t index,
                                  kiln_profile_entry* out) {
  if (session == nullptr) return NullArgument("session");
  if (out == nullptr) return NullArgument("out");
  const auto& profile = session->session->profile();
  if (index >= profile.size()) {
    return MakeStatus(KILN_INVALID_ARGUMENT, "profile index " + std::to_string(index) +
                                                 " out of range (" +
                                                 std::to_string(profile.size()) + " entries)");
  }
  const kiln::NodeProfile& p = profile[index];
  out->node = p.node.c_str();
  out->op = kiln::OpTypeName(p.op).data();  // views of string literals
  out->executor = p.executor.c_str();
  out->total_ms = p.total_ms;
  out->runs = p.runs;
  return nullptr;
}

}  // extern "C"
