// Writing a compiled model as a .kiln file, shared by `kiln compile` and `kiln quantize`: sign
// (optional), load the image back through the device loader (a file that does not verify never
// leaves the compiler), write atomically, and describe what was written.
#pragma once

#include <string>

#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "serializer/model_writer.h"

namespace kiln::cli {

struct KilnOutput {
  std::string path;
  std::string compress = "none";
  std::string sign_key;  // PREFIX.key, empty for unsigned
  const KernelBinaries* kernel_binaries = nullptr;  // GPU program binaries to embed, if any
  const DspProgramSet* dsp_programs = nullptr;       // DSP command streams to embed, if any
};

struct WrittenModel {
  size_t bytes = 0;
  std::string key_id;  // empty when unsigned
};

// Serialises `graph` with `plan` and `metadata`, checks it loads, writes `out.path`.
Expected<WrittenModel> WriteKilnModel(const Graph& graph, const ExecutionPlan& plan,
                                      ModelMetadata metadata, const KilnOutput& out);

}  // namespace kiln::cli
