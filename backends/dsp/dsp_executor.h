// The DSP executor: runs the quantized ops of the DSP target (kernels/dsp) from a scratchpad fed
// by DMA, bit-exact with the integer reference kernels; everything else falls back to the CPU.
// Shares main (host) memory with the CPU, as an on-die DSP shares DRAM: its only access to it is
// its DMA commands.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/dsp/kernels/dsp_engine.h"
#include "backends/dsp/dsp_options.h"
#include "backends/executor.h"

namespace kiln {

// What the executor counted for one node.
struct DspNodeStats {
  std::string node;
  OpType op = OpType::kUnknown;
  uint32_t scratch_bytes = 0;
  bool from_file = false;  // the command stream came from the model file
  DspCounters planned;     // of one run, from the program
  int64_t cycles = 0;      // estimated cycles of one run (DspProgramCycles: DMA overlapping compute)
  DspCounters counted;     // summed over runs, by the engine
  int64_t runs = 0;
  DspAccessReport access;  // instrumented mode
  // Fused chains (backends/dsp/kernels/dsp_chain.h): the chain's last member counts the whole chain
  // (`chain_length` members); the others name it in `fused_into` and count nothing.
  int64_t chain_length = 0;
  std::string fused_into;
  // Runs in which the chain's output overlapped one of its inputs in memory, so its members
  // ran one after the other instead (the memory plan did not keep them apart).
  int64_t unfused_runs = 0;
};

std::unique_ptr<Executor> MakeDspExecutor(const DspOptions& options);

// The per-node statistics of a DSP executor (null for other executors).
const std::vector<std::shared_ptr<DspNodeStats>>* DspStatsOf(const Executor& executor);

}  // namespace kiln
