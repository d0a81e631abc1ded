// The DSP backend's compile-time lowering: the command stream of every node placed on the DSP,
// tiled for DspOptions::scratch_bytes, with the fused chains that save estimated cycles, into
// ModelPayloads::dsp_programs (the file's DSP section).
#pragma once

#include "backends/backend.h"

namespace kiln {

Status LowerDspPrograms(LoweringContext& ctx);

}  // namespace kiln
