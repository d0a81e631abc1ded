// Options of the DSP backend, carried by SessionOptions::backend_options (docs/dsp-target.md).
#pragma once

#include <memory>

#include "backends/dsp/kernels/dsp_program.h"

namespace kiln {

struct DspOptions {
  // Scratchpad size the executor plans for when the model carries no command stream.
  uint32_t scratch_bytes = kDspDefaultScratchBytes;
  // Check every DMA and scratchpad access at run time (tests; slower).
  bool instrument = false;
  DspCostModel cost;
  // Command streams compiled into the model file (section 8); null: planned at session start.
  std::shared_ptr<const DspProgramSet> programs;
  // Plan every node for `scratch_bytes` even when the file has command streams (a smaller
  // scratchpad than the file was compiled for).
  bool replan = false;
  // Run the fused chains of `programs` (backends/dsp/kernels/dsp_chain.h); false: every node on
  // its own.
  bool chains = true;
  // The cost placement's price of a value handed between the CPU and the DSP: cache maintenance
  // and signalling (the bytes themselves move by the DSP's own DMA, which its node costs count).
  double handoff_us = 15;
};

}  // namespace kiln
