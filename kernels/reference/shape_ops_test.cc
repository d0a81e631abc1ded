// Tests of the metadata and generator ops: Shape (start/end), Size, Range, Constant and
// ConstantOfShape.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/op_runner.h"

namespace kiln {
namespace {

using testing::MakeF32;
using testing::MakeI64;
using testing::RunSingleOp;
using testing::ToF32;

std::vector<int64_t> I64s(const HostTensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
}

TEST(ShapeTest, StartEndClamping) {
  const HostTensor x("", DType::kF16, {3, 4, 5});
  auto full = RunSingleOp(OpType::kShape, {}, {{x}});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ((*full)[0].dtype, DType::kI64);
  EXPECT_EQ(I64s((*full)[0]), (std::vector<int64_t>{3, 4, 5}));
  Attributes a;
  a.Set("start", int64_t{-10});
  a.Set("end", int64_t{-1});
  auto part = RunSingleOp(OpType::kShape, a, {{x}});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ(I64s((*part)[0]), (std::vector<int64_t>{3, 4}));
  a.Set("start", int64_t{2});
  a.Set("end", int64_t{1});
  auto empty = RunSingleOp(OpType::kShape, a, {{x}});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape, (Shape{0}));
}

TEST(SizeTest, CountsElements) {
  auto out = RunSingleOp(OpType::kSize, {}, {{HostTensor("", DType::kBool, {3, 4, 5})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, Shape{});
  EXPECT_EQ(I64s((*out)[0]), (std::vector<int64_t>{60}));
}

TEST(RangeTest, FloatAndNegativeIntDelta) {
  auto f = RunSingleOp(
      OpType::kRange, {},
      {{MakeF32({}, {1}), true}, {MakeF32({}, {2}), true}, {MakeF32({}, {0.3f}), true}});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ((*f)[0].shape, (Shape{4}));  // ceil(1 / 0.3) = 4
  const std::vector<float> v = ToF32((*f)[0]);
  EXPECT_FLOAT_EQ(v[0], 1.0f);
  EXPECT_FLOAT_EQ(v[3], 1.0f + 3 * 0.3f);

  HostTensor s("", DType::kI32, {}), l("", DType::kI32, {}), d("", DType::kI32, {});
  const int32_t sv = 10, lv = 3, dv = -3;
  std::memcpy(s.bytes.data(), &sv, 4);
  std::memcpy(l.bytes.data(), &lv, 4);
  std::memcpy(d.bytes.data(), &dv, 4);
  auto i = RunSingleOp(OpType::kRange, {}, {{s, true}, {l, true}, {d, true}});
  ASSERT_TRUE(i.ok()) << i.status().ToString();
  ASSERT_EQ((*i)[0].shape, (Shape{3}));
  const int32_t* iv = (*i)[0].data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(iv, iv + 3), (std::vector<int32_t>{10, 7, 4}));
}

TEST(RangeTest, EmptyAndInvalid) {
  auto e =
      RunSingleOp(OpType::kRange, {},
                  {{MakeI64({}, {5}), true}, {MakeI64({}, {1}), true}, {MakeI64({}, {2}), true}});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)[0].shape, (Shape{0}));
  EXPECT_FALSE(
      RunSingleOp(OpType::kRange, {},
                  {{MakeI64({}, {0}), true}, {MakeI64({}, {4}), true}, {MakeI64({}, {0}), true}})
          .ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kRange, {},
                  {{MakeI64({}, {0}), true}, {MakeF32({}, {4}), true}, {MakeI64({}, {1}), true}})
          .ok());
  // limit - start overflows int64: rejected, not wrapped.
  EXPECT_FALSE(RunSingleOp(OpType::kRange, {},
                           {{MakeI64({}, {INT64_MIN}), true},
                            {MakeI64({}, {INT64_MAX}), true},
                            {MakeI64({}, {INT64_MAX}), true}})
                   .ok());
}

TEST(ConstantTest, TensorAndListAttributes) {
  Attributes t;
  TensorAttr value;
  value.dtype = DType::kI8;
  value.shape = {2, 2};
  const std::vector<uint8_t> bytes = {1, 0xfe, 3, 4};
  value.bytes = ConstantBytes::Copy(bytes.data(), bytes.size());
  t.Set("value", value);
  auto out = RunSingleOp(OpType::kConstant, t, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kI8);
  EXPECT_EQ((*out)[0].shape, (Shape{2, 2}));
  EXPECT_EQ((*out)[0].bytes, bytes);

  Attributes f;
  f.Set("value_floats", std::vector<float>{1.5f, -2.0f});
  auto fo = RunSingleOp(OpType::kConstant, f, {});
  ASSERT_TRUE(fo.ok()) << fo.status().ToString();
  EXPECT_EQ(ToF32((*fo)[0]), (std::vector<float>{1.5f, -2.0f}));

  Attributes i;
  i.Set("value_int", int64_t{-9});
  auto io = RunSingleOp(OpType::kConstant, i, {});
  ASSERT_TRUE(io.ok()) << io.status().ToString();
  EXPECT_EQ((*io)[0].shape, Shape{});
  EXPECT_EQ(I64s((*io)[0]), (std::vector<int64_t>{-9}));
}

TEST(ConstantTest, RejectsNoneOrTwoValues) {
  EXPECT_FALSE(RunSingleOp(OpType::kConstant, {}, {}).ok());
  Attributes two;
  two.Set("value_int", int64_t{1});
  two.Set("value_float", 1.0f);
  EXPECT_FALSE(RunSingleOp(OpType::kConstant, two, {}).ok());
}

TEST(ConstantOfShapeTest, DefaultAndTypedValue) {
  auto d = RunSingleOp(OpType::kConstantOfShape, {}, {{MakeI64({2}, {2, 3}), true}});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)[0].dtype, DType::kF32);
  EXPECT_EQ(ToF32((*d)[0]), std::vector<float>(6, 0.0f));

  Attributes a;
  TensorAttr v;
  v.dtype = DType::kI32;
  v.shape = {1};
  const int32_t seven = 7;
  v.bytes = ConstantBytes::Copy(&seven, 4);
  a.Set("value", v);
  auto i = RunSingleOp(OpType::kConstantOfShape, a, {{MakeI64({1}, {3}), true}});
  ASSERT_TRUE(i.ok()) << i.status().ToString();
  const int32_t* iv = (*i)[0].data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(iv, iv + 3), (std::vector<int32_t>{7, 7, 7}));

  auto zero = RunSingleOp(OpType::kConstantOfShape, a, {{MakeI64({1}, {0}), true}});
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  EXPECT_EQ((*zero)[0].shape, (Shape{0}));
  EXPECT_FALSE(RunSingleOp(OpType::kConstantOfShape, a, {{MakeI64({1}, {-1}), true}}).ok());
}

}  // namespace
}  // namespace kiln
