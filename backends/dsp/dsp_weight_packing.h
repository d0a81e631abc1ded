// The DSP backend's weight packing: its convolutions' weights in the DSP's own layout.
#pragma once

#include "backends/backend.h"

namespace kiln {

// The weights of every convolution placed on the DSP that its 4-channel dot products can run
// (DspK4Eligible: group 1, i8 weights with zero points 0, horizontal stride 1 or 2) are
// rewritten into the DSP's layout kDspK4 ([O][taps][C/4][4], ir/layout.h), so that the executor
// DMAs them as they are, where that does not cost estimated cycles at DspOptions::scratch_bytes
// (the 4-channel interleaved copy of the input takes scratchpad space, so tiles can get
// smaller). The CPU reference kernels unpack any layout, so a node that falls back still runs.
// Counters: "dspk4", "dsp-plain".
Status PackDspWeights(WeightPackingContext& ctx);

}  // namespace kiln
