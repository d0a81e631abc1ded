// Which nodes the DSP target runs, and the factory of their ops.
#include "backends/dsp/kernels/dsp_op.h"

#include "backends/dsp/kernels/dsp_chain.h"
#include "backends/dsp/kernels/dsp_ops.h"

namespace kiln {

Expected<std::unique_ptr<DspOp>> MakeDspOp(const Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.inputs[0] == kNoValue || node.outputs.empty() ||
      node.outputs[0] == kNoValue) {
    return Unsupported("node without its data input or output");
  }
  for (ValueId v : node.inputs) {
    if (v != kNoValue && !graph.value(v).shape_known) return Unsupported("unknown shapes");
  }
  if (node.inputs.size() + node.outputs.size() > 255) return Unsupported("too many operands");
  switch (node.op) {
    case OpType::kQConv:
      return MakeDspConv(graph, node);
    case OpType::kQGemm:
      return MakeDspGemm(graph, node);
    case OpType::kQAdd:
    case OpType::kQMul:
    case OpType::kQLookup:
      return MakeDspElementwise(graph, node);
    case OpType::kQConcat:
    case OpType::kConcat:
      return MakeDspConcat(graph, node);
    case OpType::kQGlobalAveragePool:
    case OpType::kQAveragePool:
    case OpType::kMaxPool:
      return MakeDspPool(graph, node);
    case OpType::kTranspose:
      return MakeDspTranspose(graph, node);
    case OpType::kResize:
      return MakeDspResize(graph, node);
    default:
      return Unsupported("the DSP target has no " + std::string(OpTypeName(node.op)));
  }
}

std::optional<std::string> DspFallbackReason(const Graph& graph, const Node& node,
                                             uint32_t scratch_bytes) {
  auto op = MakeDspOp(graph, node);
  if (!op.ok()) return op.status().message();
  auto program = (*op)->Plan(scratch_bytes);
  if (!program.ok()) return program.status().message();
  return std::nullopt;
}

DspProgramSet PlanDspPrograms(const Graph& graph, const std::vector<bool>& skip,
                              uint32_t scratch_bytes,
                              const std::function<bool(std::span<const int32_t>)>& may_fuse) {
  DspProgramSet set;
  for (size_t i = 0; i < graph.num_nodes(); ++i) {
    if (i < skip.size() && skip[i]) continue;
    const Node& node = graph.node(static_cast<NodeId>(i));
    if (!node.placement.empty() && node.placement != kExecutorDsp) continue;
    auto op = MakeDspOp(graph, node);
    if (!op.ok()) continue;
    auto program = (*op)->Plan(scratch_bytes);
    if (program.ok()) set.by_node.emplace(static_cast<int32_t>(i), std::move(program).value());
  }
  if (may_fuse) AddDspChains(graph, scratch_bytes, may_fuse, &set);
  return set;
}

std::vector<uint64_t> DspOperandBytes(const Graph& graph, const Node& node) {
  std::vector<uint64_t> bytes;
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (ValueId v : *list) bytes.push_back(v == kNoValue ? 0 : graph.value(v).byte_size());
  }
  return bytes;
}

}  // namespace kiln
