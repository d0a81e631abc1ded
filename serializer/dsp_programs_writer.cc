// Flatbuffers encoding of the DSP section.
#include "serializer/dsp_programs.h"
#include "serializer/kiln_model_generated.h"

namespace kiln::format {

std::vector<uint8_t> WriteDspProgramsSection(const DspProgramSet& set) {
  flatbuffers::FlatBufferBuilder b;
  auto write = [&b](int32_t node, const DspProgram& prog) {
    std::vector<fb::DspCommand> commands;
    commands.reserve(prog.commands.size());
    for (const DspCommand& c : prog.commands) {
      commands.emplace_back(static_cast<uint8_t>(c.kind), c.operand, c.rows, c.row_bytes,
                            c.scratch_offset, c.scratch_stride, c.dep, c.main_offset, c.main_stride,
                            c.tile[0], c.tile[1], c.tile[2], c.tile[3], c.tile[4], c.tile[5],
                            c.buf[0], c.buf[1], c.buf[2], c.buf[3], c.buf[4], c.buf[5], c.buf[6],
                            c.buf[7]);
    }
    const auto cmds = b.CreateVectorOfStructs(commands);
    const auto members = prog.members.empty() ? 0 : b.CreateVector(prog.members);
    return fb::CreateDspProgram(b, node, prog.scratch_bytes, cmds, members);
  };
  std::vector<flatbuffers::Offset<fb::DspProgram>> programs, chains;
  for (const auto& [node, prog] : set.by_node) programs.push_back(write(node, prog));
  for (const auto& [node, prog] : set.chains) chains.push_back(write(node, prog));
  b.Finish(fb::CreateDspPrograms(b, b.CreateVector(programs),
                                 chains.empty() ? 0 : b.CreateVector(chains)));
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace kiln::format
