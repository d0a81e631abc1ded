// Offline evaluation with the reference kernels: one host buffer per value, nodes in order.
#include "backends/cpu/cpu_evaluate.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/cpu_executor.h"
#include "ir/layout.h"

namespace kiln {

Expected<std::vector<HostTensor>> EvaluateOnCpu(const Graph& graph,
                                                const std::vector<HostTensor>& inputs) {
  // Only plain inputs are fed (an input stored blocked would need packing first).
  if (inputs.size() != graph.inputs().size()) {
    return InvalidArgument("evaluation needs " + std::to_string(graph.inputs().size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  }
  // 64-bit words: every buffer is aligned for any element type the kernels read.
  std::vector<std::vector<uint64_t>> storage(graph.num_values());
  const auto data_of = [&](ValueId v) -> void* {
    const Value& val = graph.value(v);
    if (val.is_constant()) return const_cast<uint8_t*>(val.constant->data());
    std::vector<uint64_t>& s = storage[static_cast<size_t>(v)];
    if (s.empty()) s.resize((val.byte_size() + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1);
    return s.data();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& val = graph.value(graph.inputs()[i]);
    if (inputs[i].dtype != val.dtype || inputs[i].shape != val.shape ||
        val.layout != Layout::kPlain || inputs[i].bytes.size() != val.byte_size()) {
      return InvalidArgument("input '" + val.name + "' is " + std::string(DTypeName(val.dtype)) +
                             ShapeToString(val.shape) + ", got " +
                             std::string(DTypeName(inputs[i].dtype)) +
                             ShapeToString(inputs[i].shape));
    }
    if (!inputs[i].bytes.empty()) {
      std::memcpy(data_of(graph.inputs()[i]), inputs[i].bytes.data(), inputs[i].bytes.size());
    }
  }
  // The CPU executor's kernels at the reference flavour (found and prepared as a session would).
  const std::unique_ptr<Executor> cpu = MakeCpuExecutor(Isa::kReference);
  std::vector<uint8_t> scratch;
  for (size_t n = 0; n < graph.num_nodes(); ++n) {
    const Node& node = graph.node(static_cast<NodeId>(n));
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, cpu->CreateKernel(graph, node));
    const auto view = [&](ValueId v) {
      TensorView t;
      if (v == kNoValue) return t;
      const Value& val = graph.value(v);
      t.data = data_of(v);
      t.dtype = val.dtype;
      t.shape = &val.shape;
      return t;
    };
    std::vector<TensorView> in, out;
    for (ValueId v : node.inputs) in.push_back(view(v));
    for (ValueId v : node.outputs) out.push_back(view(v));
    scratch.resize(std::max(scratch.size(), kernel->ScratchBytes()));
    KILN_RETURN_IF_ERROR(kernel->Run(in, out, scratch.empty() ? nullptr : scratch.data())
                             .WithContext(DescribeNode(node)));
  }
  std::vector<HostTensor> outputs;
  for (ValueId v : graph.outputs()) {
    const Value& val = graph.value(v);
    HostTensor t(val.name, val.dtype, val.shape);
    const auto* src = static_cast<const uint8_t*>(data_of(v));
    if (val.layout != Layout::kPlain) {  // the caller gets the logical, plain elements
      KILN_ASSIGN_OR_RETURN(t.bytes,
                            UnpackLayout(val.layout, val.dtype, val.shape, src, val.byte_size()));
    } else if (!t.bytes.empty()) {
      std::memcpy(t.bytes.data(), src, t.bytes.size());
    }
    outputs.push_back(std::move(t));
  }
  return outputs;
}

}  // namespace kiln
