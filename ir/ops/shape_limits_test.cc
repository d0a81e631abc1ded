// Regression tests for the overflow class in shape inference: every attribute or constant that
// enters shape arithmetic, set near INT64_MAX/MIN, gives InvalidArgument (never UB; the ASan +
// UBSan build aborts on signed overflow, so these tests fail there if a check is missing).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "ir/op_schema.h"
#include "ir/verifier.h"

namespace kiln {
namespace {

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();
constexpr int64_t kSmall = std::numeric_limits<int64_t>::min();

// One node over graph inputs of the given shapes (f32 unless `dtypes` says otherwise) plus
// i64 constants; returns InferNode's status.
struct OneNode {
  Graph g;
  std::vector<ValueId> inputs;

  ValueId Input(Shape shape, DType dtype = DType::kF32) {
    Value v;
    v.name = "in" + std::to_string(g.num_values());
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.shape_known = true;
    const ValueId id = g.AddValue(v);
    g.inputs().push_back(id);
    inputs.push_back(id);
    return id;
  }
  ValueId Ints(std::vector<int64_t> values) {
    const ValueId id = g.AddConstant(
        "c" + std::to_string(g.num_values()), DType::kI64, {static_cast<int64_t>(values.size())},
        ConstantBytes::Copy(values.data(), values.size() * sizeof(int64_t)));
    inputs.push_back(id);
    return id;
  }
  ValueId Floats(std::vector<float> values) {
    const ValueId id = g.AddConstant(
        "c" + std::to_string(g.num_values()), DType::kF32, {static_cast<int64_t>(values.size())},
        ConstantBytes::Copy(values.data(), values.size() * sizeof(float)));
    inputs.push_back(id);
    return id;
  }
  void Skip() { inputs.push_back(kNoValue); }
  Status Infer(OpType op, Attributes attrs, int outputs = 1) {
    Node n;
    n.name = "n";
    n.op = op;
    n.opset = 17;
    n.inputs = inputs;
    for (int i = 0; i < outputs; ++i) {
      Value v;
      v.name = "out" + std::to_string(i);
      n.outputs.push_back(g.AddValue(v));
    }
    n.attrs = std::move(attrs);
    return InferNode(g, g.AddNode(std::move(n)));
  }
};

Attributes Ints(const char* name, std::vector<int64_t> v) {
  Attributes a;
  a.Set(name, std::move(v));
  return a;
}

void ExpectRefused(const Status& st, const char* what) {
  EXPECT_FALSE(st.ok()) << what;
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << what << ": " << st.ToString();
}

// The fuzzer's finding: Conv pads near INT64_MAX ("6 + 9223372036854775807").
TEST(ShapeLimitsTest, ConvPadsAndDilationsNearInt64Max) {
  for (const char* attr : {"pads", "dilations", "strides"}) {
    for (int64_t big : {kBig, kBig - 5, kMaxDim + 1, kSmall}) {
      OneNode t;
      t.Input({1, 2, 6, 6});
      t.Input({3, 2, 3, 3});
      std::vector<int64_t> v(std::string(attr) == "pads" ? 4 : 2, big);
      ExpectRefused(t.Infer(OpType::kConv, Ints(attr, v)), attr);
    }
  }
}

TEST(ShapeLimitsTest, DilatedKernelProductOverflow) {
  // Both within 2^40 on their own, (k - 1) * d is not within int64.
  OneNode t;
  t.Input({1, 1, 8});
  Attributes a;
  a.Set("kernel_shape", std::vector<int64_t>{kMaxDim});
  a.Set("dilations", std::vector<int64_t>{kMaxDim});
  ExpectRefused(t.Infer(OpType::kMaxPool, a), "MaxPool dilated extent");
}

TEST(ShapeLimitsTest, PoolKernelAndCeilMode) {
  OneNode t;
  t.Input({1, 1, 8, 8});
  Attributes a;
  a.Set("kernel_shape", std::vector<int64_t>{kBig, 1});
  a.Set("ceil_mode", int64_t{1});
  ExpectRefused(t.Infer(OpType::kAveragePool, a), "AveragePool kernel");
  OneNode s;
  s.Input({1, 1, 8, 8});
  Attributes b;
  b.Set("kernel_shape", std::vector<int64_t>{2, 2});
  b.Set("strides", std::vector<int64_t>{kBig, kBig});
  b.Set("ceil_mode", int64_t{1});
  ExpectRefused(s.Infer(OpType::kMaxPool, b), "MaxPool strides");
}

TEST(ShapeLimitsTest, SamePaddingWithHugeStride) {
  OneNode t;
  t.Input({1, 2, kMaxDim, 1});
  t.Input({3, 2, 3, 1});
  Attributes a;
  a.Set("auto_pad", std::string("SAME_UPPER"));
  a.Set("dilations", std::vector<int64_t>{kMaxDim, 1});
  ExpectRefused(t.Infer(OpType::kConv, a), "SAME with huge dilation");
}

TEST(ShapeLimitsTest, ConvTransposeAttributes) {
  for (const char* attr : {"strides", "dilations", "output_padding", "output_shape", "pads"}) {
    OneNode t;
    t.Input({1, 2, 5, 5});
    t.Input({2, 3, 3, 3});
    std::vector<int64_t> v(std::string(attr) == "pads" ? 4 : 2, kBig);
    ExpectRefused(t.Infer(OpType::kConvTranspose, Ints(attr, v)), attr);
  }
  OneNode s;  // SAME: input * stride
  s.Input({1, 2, kMaxDim, 1});
  s.Input({2, 3, 3, 1});
  Attributes a;
  a.Set("auto_pad", std::string("SAME_LOWER"));
  a.Set("strides", std::vector<int64_t>{kMaxDim, 1});
  ExpectRefused(s.Infer(OpType::kConvTranspose, a), "ConvTranspose SAME");
}

TEST(ShapeLimitsTest, ConvGroup) {
  OneNode t;
  t.Input({1, 4, 5, 5});
  t.Input({4, 1, 3, 3});
  Attributes a;
  a.Set("group", kBig);
  ExpectRefused(t.Infer(OpType::kConv, a), "group");
}

TEST(ShapeLimitsTest, PadConstants) {
  for (int64_t big : {kBig, kSmall}) {
    OneNode t;
    t.Input({2, 3});
    t.Ints({0, big, 0, big});
    ExpectRefused(t.Infer(OpType::kPad, {}), "pads");
  }
}

TEST(ShapeLimitsTest, ResizeScalesAndSizes) {
  OneNode t;
  t.Input({1, 1, 4, 4});
  t.Skip();
  t.Floats({1.f, 1.f, 1e30f, 1.f});
  Attributes a;
  ExpectRefused(t.Infer(OpType::kResize, a), "huge scale");
  OneNode s;
  s.Input({1, 1, 4, 4});
  s.Skip();
  s.Skip();
  s.Ints({1, 1, kBig, 4});
  ExpectRefused(s.Infer(OpType::kResize, a), "huge size");
}

TEST(ShapeLimitsTest, TileRepeats) {
  OneNode t;
  t.Input({3, 5});
  t.Ints({kBig, 1});
  ExpectRefused(t.Infer(OpType::kTile, {}), "repeats");
}

TEST(ShapeLimitsTest, ExpandAndConstantOfShapeAndReshape) {
  OneNode e;
  e.Input({1, 1});
  e.Ints({kBig, 2});
  ExpectRefused(e.Infer(OpType::kExpand, {}), "Expand");
  OneNode c;
  c.Ints({kBig, kBig});
  ExpectRefused(c.Infer(OpType::kConstantOfShape, {}), "ConstantOfShape");
  OneNode c0;  // a zero dim keeps the element count at 0 but a dim is still above 2^40
  c0.Ints({0, kBig});
  ExpectRefused(c0.Infer(OpType::kConstantOfShape, {}), "ConstantOfShape with a zero dim");
  OneNode r;
  r.Input({0, 4});
  r.Ints({0, kBig, kBig});
  Attributes allow;
  allow.Set("allowzero", int64_t{1});
  ExpectRefused(r.Infer(OpType::kReshape, allow), "Reshape");
}

TEST(ShapeLimitsTest, InputsAboveTheDimLimit) {
  // A value claiming a dim above 2^40 (possible from a hostile file when another dim is 0)
  // is refused before any inference arithmetic sees it.
  OneNode t;
  t.Input({0, kBig, kBig});
  ExpectRefused(t.Infer(OpType::kFlatten, {}), "Flatten");
  OneNode d;
  d.Input({1, 4, kMaxDim, kMaxDim});
  Attributes b;
  b.Set("blocksize", int64_t{2});
  ExpectRefused(d.Infer(OpType::kDepthToSpace, b), "DepthToSpace");
  OneNode s;
  s.Input({1, kMaxDim, 4, 4});
  Attributes big_block;
  big_block.Set("blocksize", kBig);
  ExpectRefused(s.Infer(OpType::kSpaceToDepth, big_block), "SpaceToDepth blocksize");
}

TEST(ShapeLimitsTest, ConcatAndSplitSums) {
  OneNode c;
  c.Input({0, kMaxDim});
  c.Input({0, kMaxDim});
  c.Input({0, kMaxDim});
  Attributes a;
  a.Set("axis", int64_t{1});
  // 3 * 2^40 fits int64 but not the 2^40 dim limit.
  ExpectRefused(c.Infer(OpType::kConcat, a), "Concat");
  OneNode s;
  s.Input({6});
  s.Ints({kBig, kBig, 6});
  ExpectRefused(s.Infer(OpType::kSplit, {}, 3), "Split sizes");
}

TEST(ShapeLimitsTest, SliceExtremesAndEmptyAxis) {
  OneNode t;
  t.Input({0, 4});
  t.Ints({kBig, kSmall});
  t.Ints({kSmall, kBig});
  t.Ints({0, 1});
  t.Ints({-1, kSmall});
  EXPECT_TRUE(t.Infer(OpType::kSlice, {}).ok());
  EXPECT_EQ(t.g.value(t.g.node(0).outputs[0]).shape, (Shape{0, 0}));
}

TEST(ShapeLimitsTest, RangeExtremes) {
  OneNode t;
  t.Ints({kSmall});
  t.Ints({kBig});
  t.Ints({1});
  // Scalars are needed: rebuild the constants as rank 0.
  for (ValueId id : t.inputs) t.g.value(id).shape = {};
  ExpectRefused(t.Infer(OpType::kRange, {}), "Range");
}

TEST(ShapeLimitsTest, VerifierRefusesHugeDims) {
  Graph g;
  Value v;
  v.name = "x";
  v.dtype = DType::kF32;
  v.shape = {0, kBig};
  v.shape_known = true;
  g.inputs().push_back(g.AddValue(v));
  g.outputs().push_back(g.inputs()[0]);
  ExpectRefused(VerifyGraph(g), "verifier");
}

TEST(ShapeLimitsTest, CheckedMathAndStrides) {
  EXPECT_FALSE(CheckedAdd(kBig, 1, "x").ok());
  EXPECT_FALSE(CheckedSub(kSmall, 1, "x").ok());
  EXPECT_FALSE(CheckedMul(kBig, 2, "x").ok());
  EXPECT_EQ(*CheckedMul(kMaxDim, 4, "x"), kMaxDim * 4);
  EXPECT_EQ(RowMajorStrides({0, kMaxDim, kMaxDim})[0], kMaxElements);
}

}  // namespace
}  // namespace kiln
