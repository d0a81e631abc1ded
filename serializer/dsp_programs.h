// The DSP section (kind 8, format 1.4): every DSP node's command stream (ir/dsp_program.h),
// written by `kiln compile/quantize --target dsp`. The reader checks only the encoding; the
// DSP executor validates each program against its node before running it.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dsp_program.h"
#include "ir/status.h"

namespace kiln::format {
struct SectionBytes;
// Reader side (runtime): flatbuffers verification, node indices below `num_nodes`, each node
// once, command kinds known; then a copy of the contents.
Expected<DspProgramSet> ReadDspPrograms(const SectionBytes& section, size_t num_nodes);
// Writer side (toolchain, dsp_programs_writer.cc).
std::vector<uint8_t> WriteDspProgramsSection(const DspProgramSet& programs);
}  // namespace kiln::format
