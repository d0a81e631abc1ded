// Tests of Softmax/LogSoftmax: axis handling, large inputs, f16, bad axis.
#include "kernels/reference/softmax.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::Read;
using testing::RunSingleOp;
using testing::ToF32;

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

const auto kX = MakeF32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(SoftmaxKernelTest, DefaultAxisIsLast) {
  auto out = RunSingleOp(OpType::kSoftmax, {}, {In(kX)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectNear(ToF32((*out)[0]),
             {0.09003057f, 0.24472846f, 0.66524094f, 0.09003057f, 0.24472846f, 0.66524094f}, 1e-6f);
}

TEST(SoftmaxKernelTest, AxisZeroNormalisesColumns) {
  Attributes a;
  a.Set("axis", int64_t{0});
  auto out = RunSingleOp(OpType::kSoftmax, a, {In(kX)});
  ASSERT_TRUE(out.ok());
  ExpectNear(ToF32((*out)[0]),
             {0.04742587f, 0.04742587f, 0.04742587f, 0.95257413f, 0.95257413f, 0.95257413f}, 1e-6f);
}

TEST(SoftmaxKernelTest, LargeNumbersStayFinite) {
  const auto big = MakeF32({3}, {1000, 1001, 1002});
  auto sm = RunSingleOp(OpType::kSoftmax, {}, {In(big)});
  auto lsm = RunSingleOp(OpType::kLogSoftmax, {}, {In(big)});
  ASSERT_TRUE(sm.ok() && lsm.ok());
  ExpectNear(ToF32((*sm)[0]), {0.09003057f, 0.24472847f, 0.66524096f}, 1e-6f);
  ExpectNear(ToF32((*lsm)[0]), {-2.40760596f, -1.40760596f, -0.40760596f}, 1e-6f);
}

TEST(SoftmaxKernelTest, HalfInput) {
  // f16 [0, 0] -> [0.5, 0.5] (0x3800).
  auto out = RunSingleOp(OpType::kSoftmax, {}, {In(Make<uint16_t>(DType::kF16, {2}, {0, 0}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Read<uint16_t>((*out)[0]), (std::vector<uint16_t>{0x3800, 0x3800}));
}

TEST(SoftmaxKernelTest, AxisOutOfRangeIsAnError) {
  Attributes a;
  a.Set("axis", int64_t{2});
  auto out = RunSingleOp(OpType::kLogSoftmax, a, {In(kX)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("axis 2"), std::string::npos);
}

}  // namespace
}  // namespace kiln
