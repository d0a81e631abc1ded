// GraphBuilder and the run/compare helpers of the compiler tests.
#include "tests/graph_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/op_schema.h"
#include "runtime/session.h"

namespace kiln::testing {

ValueId GraphBuilder::Input(const std::string& name, Shape shape, DType dtype) {
  Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.shape_known = true;
  const ValueId id = graph_.AddValue(std::move(v));
  graph_.inputs().push_back(id);
  return id;
}

ValueId GraphBuilder::Const(const std::string& name, Shape shape, std::vector<float> data) {
  const auto n = static_cast<size_t>(NumElements(shape));
  if (data.empty()) {
    std::mt19937 rng(seed_++);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    data.resize(n);
    for (float& x : data) x = dist(rng);
  }
  EXPECT_EQ(data.size(), n) << name;
  return graph_.AddConstant(name, DType::kF32, std::move(shape),
                            ConstantBytes::Copy(data.data(), data.size() * sizeof(float)));
}

ValueId GraphBuilder::ConstI64(const std::string& name, Shape shape, std::vector<int64_t> data) {
  return graph_.AddConstant(name, DType::kI64, std::move(shape),
                            ConstantBytes::Copy(data.data(), data.size() * sizeof(int64_t)));
}

ValueId GraphBuilder::Op(OpType op, const std::string& name, std::vector<ValueId> inputs,
                         Attributes attrs) {
  return OpN(op, name, std::move(inputs), 1, std::move(attrs))[0];
}

std::vector<ValueId> GraphBuilder::OpN(OpType op, const std::string& name,
                                       std::vector<ValueId> inputs, size_t outputs,
                                       Attributes attrs) {
  Node node;
  node.name = name;
  node.op = op;
  node.opset = 17;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  std::vector<ValueId> outs;
  for (size_t i = 0; i < outputs; ++i) {
    Value v;
    v.name = outputs == 1 ? name : name + ":" + std::to_string(i);
    outs.push_back(graph_.AddValue(std::move(v)));
  }
  node.outputs = outs;
  const NodeId id = graph_.AddNode(std::move(node));
  Status st = InferNode(graph_, id);
  EXPECT_TRUE(st.ok()) << name << ": " << st.ToString();
  return outs;
}

Attributes Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attributes a;
  for (const auto& [k, v] : items) a.Set(k, v);
  return a;
}

std::vector<HostTensor> RandomInputs(const Graph& graph, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  std::vector<HostTensor> out;
  for (ValueId id : graph.inputs()) {
    const Value& v = graph.value(id);
    HostTensor t(v.name, v.dtype, v.shape);
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = dist(rng);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<HostTensor> RunGraph(const Graph& graph, const std::vector<HostTensor>& inputs,
                                 std::shared_ptr<const ExecutionPlan> plan, int threads) {
  SessionOptions options;
  options.num_threads = threads;
  auto session = Session::Create(std::make_shared<const Graph>(graph), options, std::move(plan));
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  auto outs = (*session)->Run(inputs);
  EXPECT_TRUE(outs.ok()) << outs.status().ToString();
  return outs.ok() ? std::move(outs).value() : std::vector<HostTensor>{};
}

void ExpectClose(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b, float tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].dtype, b[i].dtype) << "output " << i;
    ASSERT_EQ(a[i].shape, b[i].shape) << "output " << i;
    ASSERT_EQ(a[i].dtype, DType::kF32);
    const float* x = a[i].data<float>();
    const float* y = b[i].data<float>();
    float scale = 1e-6f;
    for (int64_t k = 0; k < a[i].num_elements(); ++k) scale = std::max(scale, std::fabs(x[k]));
    for (int64_t k = 0; k < a[i].num_elements(); ++k) {
      ASSERT_NEAR(x[k], y[k], tol * scale) << "output " << i << " element " << k;
    }
  }
}

}  // namespace kiln::testing
