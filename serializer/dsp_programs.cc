// Flatbuffers decoding of the DSP section, behind the Verifier.
#include "serializer/dsp_programs.h"

#include <string>

#include "serializer/container_reader.h"
#include "serializer/kiln_model_generated.h"

namespace kiln::format {

Expected<DspProgramSet> ReadDspPrograms(const SectionBytes& section, size_t num_nodes) {
  flatbuffers::Verifier verifier(section.data, section.size);
  if (!verifier.VerifyBuffer<fb::DspPrograms>(nullptr)) {
    return DataLoss("schema: dsp-programs section fails flatbuffers verification");
  }
  const auto* root = flatbuffers::GetRoot<fb::DspPrograms>(section.data);
  DspProgramSet set;
  auto read = [&](const fb::DspProgram* p, bool chain) -> Status {
    const int32_t node = p->node();
    const std::string what =
        std::string(chain ? "chain ending at" : "program for") + " node " + std::to_string(node);
    if (node < 0 || static_cast<size_t>(node) >= num_nodes) {
      return DataLoss("dsp-programs: " + what + " of " + std::to_string(num_nodes));
    }
    auto& into = chain ? set.chains : set.by_node;
    if (into.count(node)) return DataLoss("dsp-programs: " + what + " appears twice");
    DspProgram prog;
    prog.scratch_bytes = p->scratch_bytes();
    if (p->members()) prog.members.assign(p->members()->begin(), p->members()->end());
    // A chain's members are consecutive nodes ending at `node`; a node program has none.
    if (chain) {
      const auto count = static_cast<int64_t>(prog.members.size());
      if (count < 2 || count > 64) {
        return DataLoss("dsp-programs: " + what + " has " + std::to_string(count) + " members");
      }
      for (int64_t i = 0; i < count; ++i) {
        if (prog.members[static_cast<size_t>(i)] != node - (count - 1) + i) {
          return DataLoss("dsp-programs: " + what + " has members that are not the " +
                          std::to_string(count) + " nodes ending at it");
        }
      }
    } else if (!prog.members.empty()) {
      return DataLoss("dsp-programs: " + what + " lists chain members");
    }
    if (p->commands()) {
      prog.commands.reserve(p->commands()->size());
      for (const fb::DspCommand* c : *p->commands()) {
        if (c->kind() > static_cast<uint8_t>(DspCmdKind::kCompute)) {
          return DataLoss("dsp-programs: " + what + " has a command of unknown kind " +
                          std::to_string(c->kind()));
        }
        DspCommand d;
        d.kind = static_cast<DspCmdKind>(c->kind());
        d.operand = c->operand();
        d.rows = c->rows();
        d.row_bytes = c->row_bytes();
        d.scratch_offset = c->scratch_offset();
        d.scratch_stride = c->scratch_stride();
        d.dep = c->dep();
        d.main_offset = c->main_offset();
        d.main_stride = c->main_stride();
        const int64_t tiles[6] = {c->tile0(), c->tile1(), c->tile2(),
                                  c->tile3(), c->tile4(), c->tile5()};
        const uint32_t bufs[8] = {c->buf0(), c->buf1(), c->buf2(), c->buf3(),
                                  c->buf4(), c->buf5(), c->buf6(), c->buf7()};
        for (int i = 0; i < 6; ++i) d.tile[i] = tiles[i];
        for (int i = 0; i < 8; ++i) d.buf[i] = bufs[i];
        prog.commands.push_back(d);
      }
    }
    into.emplace(node, std::move(prog));
    return Status::Ok();
  };
  if (root->programs()) {
    for (const fb::DspProgram* p : *root->programs()) KILN_RETURN_IF_ERROR(read(p, false));
  }
  if (root->chains()) {
    for (const fb::DspProgram* p : *root->chains()) KILN_RETURN_IF_ERROR(read(p, true));
  }
  // A node belongs to one chain at most (chains are kept in order of their last node).
  int32_t previous_last = -1;
  for (const auto& [last, chain] : set.chains) {
    if (chain.members.front() <= previous_last) {
      return DataLoss("dsp-programs: chains ending at nodes " + std::to_string(previous_last) +
                      " and " + std::to_string(last) + " share a node");
    }
    previous_last = last;
  }
  return set;
}

}  // namespace kiln::format
