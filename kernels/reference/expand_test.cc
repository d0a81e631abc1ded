// Tests of Expand (bidirectional broadcast) and Tile, including zero repeats and bad shapes.
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

OpInput Ints(std::vector<int64_t> v) {
  return {MakeI64({static_cast<int64_t>(v.size())}, v), true};
}

TEST(ExpandTest, BroadcastsBothWays) {
  // [3,1] expanded by [2,1,2]: the 1 in the target keeps the input's 3.
  auto out = RunSingleOp(OpType::kExpand, {}, {{MakeF32({3, 1}, {1, 2, 3})}, Ints({2, 1, 2})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 3, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(ExpandTest, SmallerTargetKeepsShapeAndU8) {
  HostTensor u("", DType::kU8, {2, 2});
  u.bytes = {1, 2, 3, 4};
  auto out = RunSingleOp(OpType::kExpand, {}, {{u}, Ints({2})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 2}));
  EXPECT_EQ((*out)[0].bytes, (std::vector<uint8_t>{1, 2, 3, 4}));
}

TEST(ExpandTest, RejectsIncompatibleShape) {
  EXPECT_FALSE(RunSingleOp(OpType::kExpand, {}, {{MakeF32({3}, {1, 2, 3})}, Ints({2})}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kExpand, {}, {{MakeF32({3}, {1, 2, 3})}, Ints({-3})}).ok());
}

TEST(TileTest, RepeatsEachAxis) {
  auto rows = RunSingleOp(OpType::kTile, {}, {{MakeF32({2, 3}, {0, 1, 2, 3, 4, 5})}, Ints({2, 1})});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)[0].shape, (Shape{4, 3}));
  EXPECT_EQ(ToF32((*rows)[0]), (std::vector<float>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  auto cols = RunSingleOp(OpType::kTile, {}, {{MakeF32({2, 3}, {0, 1, 2, 3, 4, 5})}, Ints({1, 2})});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ((*cols)[0].shape, (Shape{2, 6}));
  EXPECT_EQ(ToF32((*cols)[0]), (std::vector<float>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
}

TEST(TileTest, I64DataAndZeroRepeat) {
  auto out = RunSingleOp(OpType::kTile, {}, {{MakeI64({2}, {7, -8})}, Ints({3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const int64_t* v = (*out)[0].data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(v, v + 6), (std::vector<int64_t>{7, -8, 7, -8, 7, -8}));
  auto zero = RunSingleOp(OpType::kTile, {}, {{MakeI64({2}, {7, -8})}, Ints({0})});
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  EXPECT_EQ((*zero)[0].shape, (Shape{0}));
}

TEST(TileTest, RejectsBadRepeats) {
  auto x = MakeF32({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_FALSE(RunSingleOp(OpType::kTile, {}, {{x}, Ints({2})}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kTile, {}, {{x}, Ints({2, -1})}).ok());
}

}  // namespace
}  // namespace kiln
