// One-op graphs run through schema inference and a CPU reference session.
#include "tests/op_runner.h"

#include <cstring>

#include "ir/graph.h"
#include "ir/op_schema.h"
#include "runtime/session.h"

namespace kiln::testing {

Expected<std::vector<HostTensor>> RunSingleOp(OpType op, const Attributes& attrs,
                                              const std::vector<OpInput>& inputs,
                                              size_t num_outputs, int64_t opset) {
  auto g = std::make_shared<Graph>();
  Node node;
  node.name = "node0";
  node.op = op;
  node.opset = opset;
  node.attrs = attrs;
  std::vector<HostTensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const OpInput& in = inputs[i];
    if (in.omitted) {
      node.inputs.push_back(kNoValue);
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    if (in.constant) {
      node.inputs.push_back(g->AddConstant(name, in.tensor.dtype, in.tensor.shape,
                                           ConstantBytes::Copy(in.tensor.bytes.data(),
                                                               in.tensor.bytes.size())));
    } else {
      Value v;
      v.name = name;
      v.dtype = in.tensor.dtype;
      v.shape = in.tensor.shape;
      v.shape_known = true;
      ValueId id = g->AddValue(v);
      g->inputs().push_back(id);
      node.inputs.push_back(id);
      HostTensor feed = in.tensor;
      feed.name = name;
      feeds.push_back(std::move(feed));
    }
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    Value v;
    v.name = "out" + std::to_string(i);
    ValueId id = g->AddValue(v);
    node.outputs.push_back(id);
    g->outputs().push_back(id);
  }
  g->AddNode(std::move(node));
  KILN_RETURN_IF_ERROR(InferNode(*g, 0));
  KILN_ASSIGN_OR_RETURN(auto session, Session::Create(g));
  return session->Run(feeds);
}

HostTensor MakeF32(Shape shape, std::vector<float> values) {
  HostTensor t("", DType::kF32, std::move(shape));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

HostTensor MakeI64(Shape shape, std::vector<int64_t> values) {
  HostTensor t("", DType::kI64, std::move(shape));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<float> ToF32(const HostTensor& t) {
  std::vector<float> v(static_cast<size_t>(t.num_elements()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * 4);
  return v;
}

}  // namespace kiln::testing
