// What the user chooses when compiling: optimisation level, passes to skip, target,
// streams and weight storage. `kiln compile` fills it from its flags.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "backends/backend_options.h"
#include "ir/graph.h"
#include "kernels/kernel_registry.h"

namespace kiln {

namespace quant {
struct QuantizeConfig;  // quant/quantize_config.h
}

#ifdef NDEBUG
inline constexpr bool kVerifyEachPassDefault = false;
#else
inline constexpr bool kVerifyEachPassDefault = true;
#endif

struct CompileOptions {
  // 0: import, shape propagation and folding only; 1: + cleanup (identity, dead code,
  // transposes); 2 (default): + fusion and weight packing; 3: + in-place Concat and reuse
  // across streams... (see docs/compiler.md for what each level adds).
  int opt_level = 2;
  std::set<std::string> disabled_passes;
  // VerifyGraph after every pass (always on in debug builds and in tests).
  bool verify_each_pass = kVerifyEachPassDefault;
  // Print the IR text after these passes ("all" for every pass) to the log sink.
  std::set<std::string> print_ir_after;

  // The CPU kernels the weights are packed for; a file packed for one ISA still runs on a
  // CPU without it (every packed layout has a portable kernel).
  Isa target_isa = Isa::kReference;
  // The backend (backends/backend_registry.h) the place-nodes pass puts every node on that it
  // claims; the rest go to the CPU. "cpu": everything on the CPU.
  //   "opencl" (--target gpu): weights of its nodes are packed for its kernels, the rest for
  //   target_isa; the file still runs without a GPU (the reference kernels read every layout).
  //   "dsp" (--target dsp): islands stay on it only where they pay for their transfers, tiled
  //   for DspOptions::scratch_bytes (docs/dsp-target.md); weights stay in the layouts it reads.
  std::string target_backend = kExecutorCpu;
  // The backends' own options for claims and lowering (DspOptions: the scratchpad to tile for).
  BackendOptions backend_options;
  // Store Conv/Gemm weights as f16 (half the size; kernels widen them while computing).
  bool weights_f16 = false;
  // Streams to split the graph into (1: one sequence).
  int streams = 1;

  // Cross-layer equalization of Conv pairs (Nagel et al. 2019), before any quantization.
  bool equalize = false;
  // Set when compiling for int8 (`kiln quantize`): the float passes then fuse only the
  // activations an output range can absorb (Relu, Clip), and, when the config carries
  // calibration statistics, the quantize pass rewrites the graph to integer ops.
  std::shared_ptr<const quant::QuantizeConfig> quantize;
};

}  // namespace kiln
