// The DSP section (kind 8, format 1.4; fused chains 1.5): every DSP node's command stream and
// the fused chains (ir/dsp_program.h), written by `kiln compile/quantize --target dsp`. The
// reader checks only the encoding and that a chain's members are the consecutive nodes ending
// at it; the DSP executor validates each program against its node (or chain) before running it.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dsp_program.h"
#include "ir/status.h"

namespace kiln::format {
struct SectionBytes;
// Reader side (runtime): flatbuffers verification, node indices below `num_nodes`, each node
// (and each chain) once, command kinds known, chain members well formed; then a copy.
Expected<DspProgramSet> ReadDspPrograms(const SectionBytes& section, size_t num_nodes);
// Writer side (toolchain, dsp_programs_writer.cc).
std::vector<uint8_t> WriteDspProgramsSection(const DspProgramSet& programs);
}  // namespace kiln::format
