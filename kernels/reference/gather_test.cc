// Tests of Gather: axes, negative and i32 indices, multi-dim indices, out-of-range indices.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/op_runner.h"

namespace kiln {
namespace {

using testing::MakeF32;
using testing::MakeI64;
using testing::RunSingleOp;
using testing::ToF32;

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

HostTensor MakeI32(Shape shape, const std::vector<int32_t>& v) {
  HostTensor t("", DType::kI32, std::move(shape));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

TEST(GatherTest, Axis0WithNegativeIndex) {
  auto out =
      RunSingleOp(OpType::kGather, {}, {{MakeF32({3, 2}, Iota(6))}, {MakeI64({2}, {-1, 0})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{4, 5, 0, 1}));
}

TEST(GatherTest, Axis1With2dI32Indices) {
  Attributes a;
  a.Set("axis", int64_t{1});
  // data[i, idx[j,k]] for data = arange(9).reshape(3,3), idx = [[0, 2]]
  auto out =
      RunSingleOp(OpType::kGather, a, {{MakeF32({3, 3}, Iota(9))}, {MakeI32({1, 2}, {0, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{3, 1, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{0, 2, 3, 5, 6, 8}));
}

TEST(GatherTest, ScalarIndexDropsAxisOnI64Data) {
  auto out = RunSingleOp(OpType::kGather, {},
                         {{MakeI64({4}, {10, 20, 30, 40})}, {MakeI64({}, {2}), true}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, Shape{});
  EXPECT_EQ((*out)[0].data<int64_t>()[0], 30);
}

TEST(GatherTest, OutOfRangeIndexFails) {
  // Runtime indices: caught by the kernel; constant ones: caught by inference.
  auto rt = RunSingleOp(OpType::kGather, {}, {{MakeF32({3}, Iota(3))}, {MakeI64({1}, {3})}});
  EXPECT_FALSE(rt.ok());
  auto neg = RunSingleOp(OpType::kGather, {}, {{MakeF32({3}, Iota(3))}, {MakeI64({1}, {-4})}});
  EXPECT_FALSE(neg.ok());
  auto ct = RunSingleOp(OpType::kGather, {}, {{MakeF32({3}, Iota(3))}, {MakeI64({1}, {7}), true}});
  EXPECT_FALSE(ct.ok());
  Attributes a;
  a.Set("axis", int64_t{1});
  EXPECT_FALSE(
      RunSingleOp(OpType::kGather, a, {{MakeF32({3}, Iota(3))}, {MakeI64({1}, {0})}}).ok());
}

}  // namespace
}  // namespace kiln
