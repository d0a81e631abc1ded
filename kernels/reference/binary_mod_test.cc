// Tests of Mod: fmod 0 (the divisor's sign) and 1 (the dividend's), zero and -1 divisors on
// integers, floats with broadcasting, and the float fmod=0 form refused.
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

TEST(ModTest, SignsOfBothFormsAndZeroDivisor) {
  const auto a = MakeI64({6}, {7, -7, 7, -7, 5, 5});
  const auto b = MakeI64({6}, {3, 3, -3, -3, 0, -1});
  auto py = RunSingleOp(OpType::kMod, {}, {In(a), In(b)});
  auto c = RunSingleOp(OpType::kMod, Int("fmod", 1), {In(a), In(b)});
  ASSERT_TRUE(py.ok() && c.ok()) << py.status().ToString();
  // fmod=0 takes the divisor's sign (Python %); fmod=1 the dividend's (C %). x % 0 is 0.
  EXPECT_EQ(Read<int64_t>((*py)[0]), (std::vector<int64_t>{1, 2, -2, -1, 0, 0}));
  EXPECT_EQ(Read<int64_t>((*c)[0]), (std::vector<int64_t>{1, -1, 1, -1, 0, 0}));
  auto i8 = RunSingleOp(OpType::kMod, {},
                        {In(Make<int8_t>(DType::kI8, {2}, {-128, -128})),
                         In(Make<int8_t>(DType::kI8, {2}, {-1, 3}))});
  ASSERT_TRUE(i8.ok()) << i8.status().ToString();
  EXPECT_EQ(Read<int8_t>((*i8)[0]), (std::vector<int8_t>{0, 1}));
}

TEST(ModTest, FloatsNeedFmodAndBroadcast) {
  auto f =
      RunSingleOp(OpType::kMod, Int("fmod", 1),
                  {In(MakeF32({2, 2}, {5.5f, -5.5f, 4.f, -1.f})), In(MakeF32({2}, {2.f, -2.f}))});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(Read<float>((*f)[0]), (std::vector<float>{1.5f, -1.5f, 0.f, -1.f}));
  auto refused = RunSingleOp(OpType::kMod, {}, {In(MakeF32({1}, {1})), In(MakeF32({1}, {2}))});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("fmod must be 1"), std::string::npos);
  EXPECT_FALSE(
      RunSingleOp(OpType::kMod, Int("fmod", 3), {In(MakeI64({1}, {1})), In(MakeI64({1}, {2}))})
          .ok());
}

}  // namespace
}  // namespace kiln
