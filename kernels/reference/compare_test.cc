// Tests of the comparisons (GreaterOrEqual/LessOrEqual also on random broadcasts), boolean ops
// and Where (bool outputs/conditions, broadcasting).
#include "kernels/reference/compare.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <type_traits>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::MakeI64;
using testing::Read;
using testing::RunSingleOp;

using Bytes = std::vector<uint8_t>;

TEST(CompareKernelTest, GreaterLessEqualBroadcast) {
  const auto a = MakeF32({2, 2}, {1, 5, 3, 3});
  const auto b = MakeF32({2}, {3, 3});
  auto gt = RunSingleOp(OpType::kGreater, {}, {In(a), In(b)});
  auto lt = RunSingleOp(OpType::kLess, {}, {In(a), In(b)});
  auto eq = RunSingleOp(OpType::kEqual, {}, {In(a), In(b)});
  ASSERT_TRUE(gt.ok() && lt.ok() && eq.ok()) << gt.status().ToString();
  EXPECT_EQ((*gt)[0].dtype, DType::kBool);
  EXPECT_EQ(Read<uint8_t>((*gt)[0]), (Bytes{0, 1, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*lt)[0]), (Bytes{1, 0, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*eq)[0]), (Bytes{0, 0, 1, 1}));
}

TEST(CompareKernelTest, EqualOnIntsAndBools) {
  auto ints = RunSingleOp(OpType::kEqual, {},
                          {In(Make<int32_t>(DType::kI32, {3}, {1, -2, 3})),
                           In(Make<int32_t>(DType::kI32, {3}, {1, 2, 3}))});
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(Read<uint8_t>((*ints)[0]), (Bytes{1, 0, 1}));
  auto bools = RunSingleOp(
      OpType::kEqual, {},
      {In(Make<uint8_t>(DType::kBool, {2}, {1, 0})), In(Make<uint8_t>(DType::kBool, {2}, {1, 1}))});
  ASSERT_TRUE(bools.ok()) << bools.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*bools)[0]), (Bytes{1, 0}));
  // Greater is not defined on bool.
  EXPECT_FALSE(RunSingleOp(OpType::kGreater, {},
                           {In(Make<uint8_t>(DType::kBool, {1}, {1})),
                            In(Make<uint8_t>(DType::kBool, {1}, {0}))})
                   .ok());
}

TEST(CompareKernelTest, OrEqualIncludesTiesAndNotNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto a = MakeF32({5}, {1, 3, 3, nan, -0.f});
  const auto b = MakeF32({5}, {3, 3, 1, 1, 0.f});
  auto ge = RunSingleOp(OpType::kGreaterOrEqual, {}, {In(a), In(b)});
  auto le = RunSingleOp(OpType::kLessOrEqual, {}, {In(a), In(b)});
  ASSERT_TRUE(ge.ok() && le.ok()) << ge.status().ToString();
  EXPECT_EQ((*ge)[0].dtype, DType::kBool);
  // NaN compares false either way; -0 == +0.
  EXPECT_EQ(Read<uint8_t>((*ge)[0]), (Bytes{0, 1, 1, 0, 1}));
  EXPECT_EQ(Read<uint8_t>((*le)[0]), (Bytes{1, 1, 0, 0, 1}));
}

// Random broadcastable shapes and values in every dtype the comparisons take, against a
// direct numpy-style evaluation (one index walk per output element).
template <typename T>
void CheckOrEqualRandom(DType dtype, std::mt19937& rng) {
  std::uniform_int_distribution<int> rank_d(0, 4), dim_d(1, 4), one_d(0, 2), val_d(-3, 3);
  for (int trial = 0; trial < 20; ++trial) {
    const int rank = rank_d(rng);
    Shape out, sa, sb;
    for (int d = 0; d < rank; ++d) out.push_back(dim_d(rng));
    // Each input drops some leading dims and has some dims of 1.
    const int drop_a = rank ? std::uniform_int_distribution<int>(0, rank)(rng) : 0;
    const int drop_b = rank ? std::uniform_int_distribution<int>(0, rank)(rng) : 0;
    for (int d = drop_a; d < rank; ++d) sa.push_back(one_d(rng) == 0 ? 1 : out[d]);
    for (int d = drop_b; d < rank; ++d) sb.push_back(one_d(rng) == 0 ? 1 : out[d]);
    auto fill = [&](const Shape& s) {
      std::vector<T> v(static_cast<size_t>(NumElements(s)));
      for (auto& x : v) {
        const int r = val_d(rng);
        x = static_cast<T>(std::is_unsigned_v<T> ? r + 3 : r);
      }
      return v;
    };
    const std::vector<T> va = fill(sa), vb = fill(sb);
    auto ge = RunSingleOp(OpType::kGreaterOrEqual, {},
                          {In(Make<T>(dtype, sa, va)), In(Make<T>(dtype, sb, vb))});
    auto le = RunSingleOp(OpType::kLessOrEqual, {},
                          {In(Make<T>(dtype, sa, va)), In(Make<T>(dtype, sb, vb))});
    ASSERT_TRUE(ge.ok() && le.ok()) << ge.status().ToString();
    // Expected: walk the output index and map it into each input (size-1 dims read index 0).
    Shape full = (*ge)[0].shape;
    const int64_t n = NumElements(full);
    Bytes want_ge(static_cast<size_t>(n)), want_le(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t rem = i, ia = 0, ib = 0, stride_a = 1, stride_b = 1;
      for (int d = static_cast<int>(full.size()) - 1; d >= 0; --d) {
        const int64_t idx = rem % full[static_cast<size_t>(d)];
        rem /= full[static_cast<size_t>(d)];
        const int da = d - (static_cast<int>(full.size()) - static_cast<int>(sa.size()));
        const int db = d - (static_cast<int>(full.size()) - static_cast<int>(sb.size()));
        if (da >= 0) {
          ia += (sa[static_cast<size_t>(da)] == 1 ? 0 : idx) * stride_a;
          stride_a *= sa[static_cast<size_t>(da)];
        }
        if (db >= 0) {
          ib += (sb[static_cast<size_t>(db)] == 1 ? 0 : idx) * stride_b;
          stride_b *= sb[static_cast<size_t>(db)];
        }
      }
      want_ge[static_cast<size_t>(i)] = va[static_cast<size_t>(ia)] >= vb[static_cast<size_t>(ib)];
      want_le[static_cast<size_t>(i)] = va[static_cast<size_t>(ia)] <= vb[static_cast<size_t>(ib)];
    }
    EXPECT_EQ(Read<uint8_t>((*ge)[0]), want_ge) << ShapeToString(sa) << " vs " << ShapeToString(sb);
    EXPECT_EQ(Read<uint8_t>((*le)[0]), want_le) << ShapeToString(sa) << " vs " << ShapeToString(sb);
  }
}

TEST(CompareKernelTest, OrEqualRandomBroadcastEveryDType) {
  std::mt19937 rng(39);
  CheckOrEqualRandom<float>(DType::kF32, rng);
  CheckOrEqualRandom<int8_t>(DType::kI8, rng);
  CheckOrEqualRandom<uint8_t>(DType::kU8, rng);
  CheckOrEqualRandom<int32_t>(DType::kI32, rng);
  CheckOrEqualRandom<int64_t>(DType::kI64, rng);
}

TEST(CompareKernelTest, OrEqualOnHalfAndRefusals) {
  // f16 bits of 1.0, 2.0, 2.0 against 2.0.
  auto ge = RunSingleOp(OpType::kGreaterOrEqual, {},
                        {In(Make<uint16_t>(DType::kF16, {3}, {0x3C00, 0x4000, 0x4000})),
                         In(Make<uint16_t>(DType::kF16, {1}, {0x4000}))});
  ASSERT_TRUE(ge.ok()) << ge.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*ge)[0]), (Bytes{0, 1, 1}));
  // Mixed dtypes, bool inputs and shapes that do not broadcast are refused, naming why.
  auto mixed =
      RunSingleOp(OpType::kLessOrEqual, {}, {In(MakeF32({1}, {1})), In(MakeI64({1}, {1}))});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("dtype"), std::string::npos) << mixed.status().ToString();
  EXPECT_FALSE(RunSingleOp(OpType::kGreaterOrEqual, {},
                           {In(Make<uint8_t>(DType::kBool, {1}, {1})),
                            In(Make<uint8_t>(DType::kBool, {1}, {0}))})
                   .ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kLessOrEqual, {}, {In(MakeF32({2}, {1, 2})), In(MakeF32({3}, {1, 2, 3}))})
          .ok());
}

TEST(LogicalKernelTest, AndOrNot) {
  const auto a = Make<uint8_t>(DType::kBool, {2, 2}, {0, 1, 0, 1});
  const auto b = Make<uint8_t>(DType::kBool, {2, 1}, {0, 1});
  auto and_ = RunSingleOp(OpType::kAnd, {}, {In(a), In(b)});
  auto or_ = RunSingleOp(OpType::kOr, {}, {In(a), In(b)});
  auto not_ = RunSingleOp(OpType::kNot, {}, {In(a)});
  ASSERT_TRUE(and_.ok() && or_.ok() && not_.ok()) << and_.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*and_)[0]), (Bytes{0, 0, 0, 1}));
  EXPECT_EQ(Read<uint8_t>((*or_)[0]), (Bytes{0, 1, 1, 1}));
  EXPECT_EQ(Read<uint8_t>((*not_)[0]), (Bytes{1, 0, 1, 0}));
  EXPECT_FALSE(RunSingleOp(OpType::kAnd, {}, {In(MakeF32({1}, {1})), In(MakeF32({1}, {1}))}).ok());
}

TEST(WhereKernelTest, BroadcastsConditionAndValues) {
  // cond [2,1], x [2,2], y scalar.
  auto out = RunSingleOp(OpType::kWhere, {},
                         {In(Make<uint8_t>(DType::kBool, {2, 1}, {1, 0})),
                          In(MakeI64({2, 2}, {1, 2, 3, 4})), In(MakeI64({}, {-9}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kI64);
  EXPECT_EQ(Read<int64_t>((*out)[0]), (std::vector<int64_t>{1, 2, -9, -9}));
}

TEST(WhereKernelTest, RejectsNonBoolConditionAndMixedValues) {
  EXPECT_FALSE(RunSingleOp(OpType::kWhere, {},
                           {In(MakeF32({1}, {1})), In(MakeF32({1}, {1})), In(MakeF32({1}, {2}))})
                   .ok());
  EXPECT_FALSE(RunSingleOp(OpType::kWhere, {},
                           {In(Make<uint8_t>(DType::kBool, {1}, {1})), In(MakeF32({1}, {1})),
                            In(MakeI64({1}, {2}))})
                   .ok());
}

}  // namespace
}  // namespace kiln
