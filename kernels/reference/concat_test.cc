// Tests of Concat and Split (its inverse): axes, zero-size pieces, dtypes, bad attributes.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/op_runner.h"

namespace kiln {
namespace {

using testing::MakeF32;
using testing::MakeI64;
using testing::OpInput;
using testing::RunSingleOp;
using testing::ToF32;

Attributes Axis(int64_t axis) {
  Attributes a;
  a.Set("axis", axis);
  return a;
}

TEST(ConcatTest, InnerAxisInterleavesBlocks) {
  auto out = RunSingleOp(
      OpType::kConcat, Axis(-1),
      {{MakeF32({2, 2}, {1, 2, 3, 4})}, {MakeF32({2, 1}, {5, 6})}, {MakeF32({2, 0}, {})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 3}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{1, 2, 5, 3, 4, 6}));
}

TEST(ConcatTest, OuterAxisAppendsAndConstantInput) {
  auto out = RunSingleOp(OpType::kConcat, Axis(0),
                         {{MakeI64({1, 2}, {1, 2})}, {MakeI64({2, 2}, {3, 4, 5, 6}), true}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{3, 2}));
  const int64_t* v = (*out)[0].data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(v, v + 6), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(ConcatTest, RejectsMismatches) {
  // Non-axis dims differ; dtypes differ; axis out of range; axis missing.
  EXPECT_FALSE(RunSingleOp(OpType::kConcat, Axis(0),
                           {{MakeF32({1, 2}, {1, 2})}, {MakeF32({1, 3}, {1, 2, 3})}})
                   .ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kConcat, Axis(0), {{MakeF32({1, 2}, {1, 2})}, {MakeI64({1, 2}, {1, 2})}})
          .ok());
  EXPECT_FALSE(RunSingleOp(OpType::kConcat, Axis(2), {{MakeF32({1, 2}, {1, 2})}}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kConcat, {}, {{MakeF32({1, 2}, {1, 2})}}).ok());
}

TEST(SplitTest, EqualPartsOnAxis1) {
  auto out = RunSingleOp(OpType::kSplit, Axis(1),
                         {{MakeF32({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}}, 3);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0].shape, (Shape{2, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{0, 1, 6, 7}));
  EXPECT_EQ(ToF32((*out)[1]), (std::vector<float>{2, 3, 8, 9}));
  EXPECT_EQ(ToF32((*out)[2]), (std::vector<float>{4, 5, 10, 11}));
}

TEST(SplitTest, VariablePartsWithZeroSize) {
  auto out =
      RunSingleOp(OpType::kSplit, Axis(-1),
                  {{MakeF32({2, 3}, {0, 1, 2, 3, 4, 5})}, {MakeI64({3}, {1, 0, 2}), true}}, 3);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{0, 3}));
  EXPECT_EQ((*out)[1].shape, (Shape{2, 0}));
  EXPECT_EQ(ToF32((*out)[2]), (std::vector<float>{1, 2, 4, 5}));
}

TEST(SplitTest, EmptyInputIntoZeroSizedParts) {
  auto out =
      RunSingleOp(OpType::kSplit, {}, {{MakeF32({0}, {})}, {MakeI64({3}, {0, 0, 0}), true}}, 3);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (const HostTensor& t : *out) EXPECT_EQ(t.shape, (Shape{0}));
}

TEST(SplitTest, BoolDtype) {
  HostTensor b("", DType::kBool, {4});
  b.bytes = {1, 0, 0, 1};
  auto out = RunSingleOp(OpType::kSplit, {}, {{b}}, 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].bytes, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ((*out)[1].bytes, (std::vector<uint8_t>{0, 1}));
}

TEST(SplitTest, RejectsBadSplits) {
  auto x = MakeF32({5}, {0, 1, 2, 3, 4});
  EXPECT_FALSE(RunSingleOp(OpType::kSplit, {}, {{x}}, 2).ok());  // 5 does not split in 2
  EXPECT_FALSE(RunSingleOp(OpType::kSplit, {}, {{x}, {MakeI64({2}, {2, 2}), true}}, 2).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kSplit, {}, {{x}, {MakeI64({2}, {6, -1}), true}}, 2).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kSplit, {}, {{x}, {MakeI64({1}, {5}), true}}, 2).ok());
}

}  // namespace
}  // namespace kiln
