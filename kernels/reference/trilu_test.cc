// Tests of Trilu: upper/lower, k from far below to past the columns (random shapes against a
// direct evaluation, batches, empty matrices), float data, and bad input refused.
#include <gtest/gtest.h>

#include <limits>
#include <random>

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

TEST(TriluTest, RandomShapesAndDiagonalsMatchDirectEvaluation) {
  std::mt19937 rng(396);
  std::uniform_int_distribution<int> dim_d(0, 5);
  for (int trial = 0; trial < 80; ++trial) {
    Shape s;
    const int lead = std::uniform_int_distribution<int>(0, 2)(rng);
    for (int d = 0; d < lead; ++d) s.push_back(std::uniform_int_distribution<int>(1, 3)(rng));
    const int64_t rows = dim_d(rng), cols = dim_d(rng);
    s.push_back(rows);
    s.push_back(cols);
    const int64_t k = std::uniform_int_distribution<int64_t>(-7, 7)(rng);
    const bool upper = trial % 2 == 0;
    std::vector<int64_t> x(static_cast<size_t>(NumElements(s)));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int64_t>(i) + 1;
    const bool with_k = trial % 3 != 0;
    std::vector<testing::OpInput> ins = {In(MakeI64(s, x))};
    if (with_k) ins.push_back(In(MakeI64({}, {k})));
    auto out = RunSingleOp(OpType::kTrilu, Int("upper", upper ? 1 : 0), ins);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const int64_t kk = with_k ? k : 0;
    std::vector<int64_t> want(x.size());
    for (size_t e = 0; e < x.size(); ++e) {
      const int64_t j = static_cast<int64_t>(e) % cols;
      const int64_t i = static_cast<int64_t>(e) / cols % rows;
      const bool keep = upper ? j - i >= kk : j - i <= kk;
      want[e] = keep ? x[e] : 0;
    }
    EXPECT_EQ(Read<int64_t>((*out)[0]), want) << ShapeToString(s) << " k " << kk;
  }
}

TEST(TriluTest, ExtremeKFloatAndRefusals) {
  const auto x = MakeF32({2, 2}, {1, 2, 3, 4});
  auto all = RunSingleOp(OpType::kTrilu, {},
                         {In(x), In(MakeI64({}, {std::numeric_limits<int64_t>::min()}))});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(Read<float>((*all)[0]), (std::vector<float>{1, 2, 3, 4}));
  auto none = RunSingleOp(OpType::kTrilu, {},
                          {In(x), In(MakeI64({}, {std::numeric_limits<int64_t>::max()}))});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(Read<float>((*none)[0]), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_FALSE(RunSingleOp(OpType::kTrilu, {}, {In(MakeF32({3}, {1, 2, 3}))}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kTrilu, {}, {In(x), In(MakeI64({2}, {0, 1}))}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kTrilu, Int("upper", 2), {In(x)}).ok());
}

}  // namespace
}  // namespace kiln
