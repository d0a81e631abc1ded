// Tests for Graph construction, topological sort and dead-code removal.
#include "ir/graph.h"
#include "ir/op_schema.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

ValueId AddF32(Graph& g, const std::string& name, Shape shape) {
  Value v;
  v.name = name;
  v.dtype = DType::kF32;
  v.shape = std::move(shape);
  v.shape_known = true;
  return g.AddValue(v);
}

TEST(GraphTest, SortsOutOfOrderNodesAndDetectsCycles) {
  Graph g;
  ValueId x = AddF32(g, "x", {2});
  ValueId a = AddF32(g, "a", {2});
  ValueId b = AddF32(g, "b", {2});
  g.inputs() = {x};
  g.outputs() = {b};
  Node second{"second", OpType::kRelu, 13, {a}, {b}, {}, "", {}};
  Node first{"first", OpType::kRelu, 13, {x}, {a}, {}, "", {}};
  g.AddNode(second);
  g.AddNode(first);
  ASSERT_TRUE(g.SortTopologically().ok());
  EXPECT_EQ(g.node(0).name, "first");
  EXPECT_EQ(g.value(b).producer, 1);

  Graph cyc;
  ValueId p = AddF32(cyc, "p", {1});
  ValueId q = AddF32(cyc, "q", {1});
  cyc.AddNode(Node{"n1", OpType::kRelu, 13, {p}, {q}, {}, "", {}});
  cyc.AddNode(Node{"n2", OpType::kRelu, 13, {q}, {p}, {}, "", {}});
  Status st = cyc.SortTopologically();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cycle"), std::string::npos);
}

TEST(GraphTest, RemovesDeadNodes) {
  Graph g;
  ValueId x = AddF32(g, "x", {2});
  ValueId used = AddF32(g, "used", {2});
  ValueId dead = AddF32(g, "dead", {2});
  g.inputs() = {x};
  g.outputs() = {used};
  g.AddNode(Node{"keep", OpType::kRelu, 13, {x}, {used}, {}, "", {}});
  g.AddNode(Node{"drop", OpType::kRelu, 13, {x}, {dead}, {}, "", {}});
  g.RemoveDeadNodesAndValues();
  EXPECT_EQ(g.num_nodes(), 1u);
  EXPECT_EQ(g.num_values(), 2u);
  EXPECT_FALSE(g.FindValue("dead").has_value());
}

TEST(DTypeTest, HalfRoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

TEST(ShapeTest, NumElementsSaturatesInsteadOfOverflowing) {
  EXPECT_EQ(NumElements({}), 1);
  EXPECT_EQ(NumElements({2, 3}), 6);
  EXPECT_EQ(NumElements({int64_t{1} << 40, int64_t{1} << 40}), kMaxElements);
  EXPECT_EQ(NumElements({2, -1}), -1);
}

TEST(InferNodeTest, RejectsMissingRequiredInput) {
  Graph g;
  Value out;
  out.name = "y";
  ValueId y = g.AddValue(out);
  g.AddNode(Node{"relu", OpType::kRelu, 17, {kNoValue}, {y}, {}, "", {}});
  Status st = InferNode(g, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("required input 0 is missing"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace kiln
