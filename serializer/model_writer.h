// Writer side of the .kiln format (toolchain only): graph -> sections -> container, signing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/dsp_program.h"
#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "serializer/format.h"
#include "serializer/kernel_binaries.h"
#include "serializer/metadata.h"
#include "serializer/signing.h"

namespace kiln {

struct WriteOptions {
  format::Compression compression = format::Compression::kNone;
  int zstd_level = 3;
  // Signs the file when set (not owned).
  const signing::PrivateKey* signing_key = nullptr;
  // producer, producer_version and created_unix are filled in when left empty / 0
  // (created_unix from $SOURCE_DATE_EPOCH when set, for reproducible builds). The model id,
  // version and validity are checked (CheckModelIdentity) and written when set.
  ModelMetadata metadata;
  // The compiler's schedule and memory plan (not owned); without one, the runtime runs the
  // file sequentially with one buffer per activation.
  const ExecutionPlan* plan = nullptr;
  // GPU program binaries for one device (not owned): written as the kernel-binaries section.
  const KernelBinaries* kernel_binaries = nullptr;
  // DSP command streams (section 8, not owned); null: none.
  const DspProgramSet* dsp_programs = nullptr;
};

// One section as it will be stored: bytes already compressed when compression != kNone.
struct RawSection {
  uint32_t kind = 0;
  uint32_t compression = 0;
  std::vector<uint8_t> stored;
  uint64_t uncompressed_size = 0;
};

// Lays out an unsigned container: header (with `minor`), table with SHA-256 of each stored
// section, sections at 64-byte aligned offsets in the given order. Low level: the normal path
// is SerializeModel; tools and tests use it to build files of other (e.g. newer) versions.
std::vector<uint8_t> AssembleContainer(const std::vector<RawSection>& sections,
                                       uint16_t minor = format::kMinorVersion);

// Parses "none", "zstd" or "zstd:LEVEL" (LEVEL 1..22) into options.
Status ParseCompression(const std::string& spec, WriteOptions* options);

// The whole file image in memory.
Expected<std::vector<uint8_t>> SerializeModel(const Graph& graph, const WriteOptions& options);
Status WriteModelFile(const Graph& graph, const WriteOptions& options, const std::string& path);

// (Re-)signs a file image: checks its structure and every section hash first (never signs a
// corrupt file), drops any old signature and appends a new one.
Expected<std::vector<uint8_t>> SignModelImage(const uint8_t* data, size_t size,
                                              const signing::PrivateKey& key);
// Changes a file's metadata (`kiln sign --model-id/--model-version/--not-before/--not-after`):
// checks its structure and every section hash first, applies `edit` to its metadata (a new
// section if it has none), checks the identity (CheckModelIdentity), and lays the file out again
// with every other section's stored bytes unchanged, unsigned and at the current minor version
// (a file of a newer minor is refused: this writer cannot know what it holds).
using MetadataEdit = std::function<Status(ModelMetadata*)>;
Expected<std::vector<uint8_t>> EditMetadataImage(const uint8_t* data, size_t size,
                                                 const MetadataEdit& edit);

// Reads `path`, applies `edit` to its metadata when set (EditMetadataImage), signs it and
// writes `out` (may equal `path`).
Status SignModelFile(const std::string& path, const signing::PrivateKey& key,
                     const std::string& out, const MetadataEdit& edit = {});

// Writes bytes to `path` through a temporary file and a rename (no half-written models).
Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace kiln
