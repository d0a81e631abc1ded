// Options of the DSP executor, carried by SessionOptions (docs/dsp-target.md).
#pragma once

#include <memory>

#include "kernels/dsp/dsp_program.h"

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
  // Run the fused chains of `programs` (kernels/dsp/dsp_chain.h); false: every node on its own.
  bool chains = true;
};

}  // namespace kiln
