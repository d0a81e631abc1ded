// Tests of CumSum: exclusive, reverse, negative axes, f16 and i32 axes, integer wrap, and a
// bad axis refused at run time (runtime input) or compile time (constant).
#include <gtest/gtest.h>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::Const;
using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::MakeI64;
using testing::Read;
using testing::RunSingleOp;

Attributes Int(const char* name, int64_t v, Attributes a = {}) {
  a.Set(name, v);
  return a;
}

TEST(CumSumTest, ExclusiveReverseAndAxes) {
  const auto x = MakeF32({2, 3}, {1, 2, 3, 4, 5, 6});
  struct Case {
    int64_t axis, exclusive, reverse;
    std::vector<float> want;
  };
  const std::vector<Case> cases = {{1, 0, 0, {1, 3, 6, 4, 9, 15}},  {1, 1, 0, {0, 1, 3, 0, 4, 9}},
                                   {1, 0, 1, {6, 5, 3, 15, 11, 6}}, {1, 1, 1, {5, 3, 0, 11, 6, 0}},
                                   {0, 0, 0, {1, 2, 3, 5, 7, 9}},   {-2, 1, 1, {4, 5, 6, 0, 0, 0}}};
  for (const Case& c : cases) {
    auto out =
        RunSingleOp(OpType::kCumSum, Int("exclusive", c.exclusive, Int("reverse", c.reverse)),
                    {In(x), In(MakeI64({}, {c.axis}))});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(Read<float>((*out)[0]), c.want)
        << "axis " << c.axis << " exclusive " << c.exclusive << " reverse " << c.reverse;
  }
}

TEST(CumSumTest, HalfIntegerWrapAndBadAxis) {
  // f16: 1 + 2 + 3 with an i32 axis.
  auto h = RunSingleOp(OpType::kCumSum, {},
                       {In(Make<uint16_t>(DType::kF16, {3}, {0x3C00, 0x4000, 0x4200})),
                        In(Make<int32_t>(DType::kI32, {1}, {0}))});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(Read<uint16_t>((*h)[0]), (std::vector<uint16_t>{0x3C00, 0x4200, 0x4600}));
  auto wrap =
      RunSingleOp(OpType::kCumSum, {},
                  {In(Make<int32_t>(DType::kI32, {2}, {2147483647, 1})), In(MakeI64({}, {0}))});
  ASSERT_TRUE(wrap.ok()) << wrap.status().ToString();
  EXPECT_EQ(Read<int32_t>((*wrap)[0]), (std::vector<int32_t>{2147483647, -2147483647 - 1}));
  // A runtime axis out of range fails the run; a constant one fails at compile time.
  auto rt = RunSingleOp(OpType::kCumSum, {}, {In(MakeF32({3}, {1, 2, 3})), In(MakeI64({}, {1}))});
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("axis 1"), std::string::npos) << rt.status().ToString();
  EXPECT_FALSE(
      RunSingleOp(OpType::kCumSum, {}, {In(MakeF32({3}, {1, 2, 3})), Const(MakeI64({}, {-2}))})
          .ok());
  EXPECT_FALSE(RunSingleOp(OpType::kCumSum, {},
                           {In(Make<uint8_t>(DType::kBool, {1}, {1})), In(MakeI64({}, {0}))})
                   .ok());
}

}  // namespace
}  // namespace kiln
