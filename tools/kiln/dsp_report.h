// The DSP section of `kiln bench --device dsp --profile`: per DSP node its command stream's
// commands, DMA bytes, MACs and estimated cycles beside the measured host time, and the
// per-inference DMA traffic against its minimum.
#pragma once

#include <string>
#include <vector>

#include "runtime/session.h"

namespace kiln::cli {

// Empty when the session ran nothing on the DSP. `profile` is the session's per-node profile
// over the timed runs.
std::string FormatDspProfileText(const Session& session, const std::vector<NodeProfile>& profile);
std::string FormatDspProfileJson(const Session& session);

}  // namespace kiln::cli
