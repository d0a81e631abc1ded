// A fourth backend from one folder (tests/null_backend) and one entry in KILN_BACKEND_DIRS: the
// compiler places the nodes it claims (f32 Relu and Add) through its Claim, the file carries the
// placement, and a session loads the signed-format image, makes the backend's executor by name
// and runs those nodes on it, the rest on the CPU, with the reference session's results.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/backend_registry.h"
#include "compiler/pipeline.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/model_writer.h"
#include "tests/graph_builder.h"

namespace kiln::test {
int64_t NullBackendKernelsMade();  // tests/null_backend/null_backend.cc
}  // namespace kiln::test

namespace kiln {
namespace {

using testing::GraphBuilder;

// x -> Relu -> Add(c) -> Sigmoid -> Add(x) -> y: the null backend claims three of the four.
Graph MakeGraph() {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4, 6, 6});
  const ValueId r = b.Op(OpType::kRelu, "relu", {x});
  const ValueId a = b.Op(OpType::kAdd, "add_c", {r, b.Const("c", {1, 4, 6, 6})});
  const ValueId s = b.Op(OpType::kSigmoid, "sigmoid", {a});
  b.Output(b.Op(OpType::kAdd, "add_x", {s, x}));
  return b.Take();
}

HostTensor Input() {
  HostTensor x("x", DType::kF32, {1, 4, 6, 6});
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.data<float>()[i] = static_cast<float>((i * 37) % 23) / 5.0f - 2.0f;
  }
  return x;
}

TEST(NullBackend, IsInTheBuildsListAndClaimsWithReasons) {
  const Backend* null = FindBackend("null");
  ASSERT_NE(null, nullptr) << "backends of this build: " << BackendNames();
  const Graph g = MakeGraph();
  EXPECT_TRUE(null->Claim(g, g.node(0), {}).claimed());
  const NodeClaim sigmoid = null->Claim(g, g.node(2), {});
  ASSERT_FALSE(sigmoid.claimed());
  EXPECT_NE(sigmoid.refusal->find("Relu and Add"), std::string::npos) << *sigmoid.refusal;
}

TEST(NullBackend, CompiledPlacedSerializedLoadedAndRun) {
  CompileOptions options;
  options.target_backend = "null";
  options.verify_each_pass = true;
  auto compiled = CompileGraph(MakeGraph(), options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  std::vector<std::string> placed;
  for (size_t n = 0; n < compiled->graph.num_nodes(); ++n) {
    const Node& node = compiled->graph.node(static_cast<NodeId>(n));
    placed.push_back(node.name + "@" + node.placement);
  }
  const std::vector<std::string> want_placed = {"relu@null", "add_c@null", "sigmoid@cpu",
                                                "add_x@null"};
  EXPECT_EQ(placed, want_placed);

  WriteOptions wo;
  wo.plan = &compiled->plan;
  auto image = SerializeModel(compiled->graph, wo);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(*image));
  LoadOptions lo;
  lo.allow_unsigned = true;
  auto model = Model::LoadFromMemory(owner, owner->data(), owner->size(), TrustStore(), lo);
  ASSERT_TRUE(model.ok()) << model.status().ToString();

  SessionOptions so;
  so.executors = {"null", kExecutorCpu};
  const int64_t kernels_before = test::NullBackendKernelsMade();
  auto session = Session::Create(**model, so);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ(test::NullBackendKernelsMade() - kernels_before, 3);
  EXPECT_EQ((*session)->Placement(),
            (std::vector<std::string>{"null", "null", kExecutorCpu, "null"}));
  auto got = (*session)->Run({Input()});
  ASSERT_TRUE(got.ok()) << got.status().ToString();

  auto reference = Session::Create(std::make_shared<const Graph>(MakeGraph()));
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  auto want = (*reference)->Run({Input()});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].bytes, (*want)[0].bytes);
}

}  // namespace
}  // namespace kiln
