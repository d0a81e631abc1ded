// Tests of the broadcast plan: offsets, dim coalescing and shape errors.
#include "kernels/reference/broadcast.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

std::vector<std::array<int64_t, 2>> Walk(const BroadcastPlan& plan) {
  std::vector<std::array<int64_t, 2>> offs;
  ForEachBroadcast<2>(plan, [&](int64_t i, const std::array<int64_t, 2>& o) {
    EXPECT_EQ(i, static_cast<int64_t>(offs.size()));
    offs.push_back(o);
  });
  return offs;
}

TEST(BroadcastPlanTest, RowAndColumnVectors) {
  // [2,1] against [3] -> [2,3]: input 0 repeats along columns, input 1 along rows.
  auto plan = MakeBroadcastPlan({2, 3}, {{2, 1}, {3}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const auto offs = Walk(*plan);
  const std::vector<std::array<int64_t, 2>> want = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
  EXPECT_EQ(offs, want);
}

TEST(BroadcastPlanTest, PerChannelBiasCoalescesSpatialDims) {
  auto plan = MakeBroadcastPlan({1, 4, 5, 6}, {{1, 4, 5, 6}, {4, 1, 1}});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->dims, (Shape{4, 30}));
  const auto offs = Walk(*plan);
  ASSERT_EQ(offs.size(), 120u);
  for (int64_t i = 0; i < 120; ++i) {
    EXPECT_EQ(offs[static_cast<size_t>(i)][0], i);
    EXPECT_EQ(offs[static_cast<size_t>(i)][1], i / 30);
  }
}

TEST(BroadcastPlanTest, MiddleAxisBroadcast) {
  // [2,1,2] into [2,3,2]: element (a,b,c) reads (a,0,c).
  auto plan = MakeBroadcastPlan({2, 3, 2}, {{2, 3, 2}, {2, 1, 2}});
  ASSERT_TRUE(plan.ok());
  const auto offs = Walk(*plan);
  ASSERT_EQ(offs.size(), 12u);
  for (int64_t i = 0; i < 12; ++i) {
    const int64_t a = i / 6, c = i % 2;
    EXPECT_EQ(offs[static_cast<size_t>(i)][1], a * 2 + c) << i;
  }
}

TEST(BroadcastPlanTest, ScalarsAndEmptyTensors) {
  auto scalar = MakeBroadcastPlan({}, {{}, {}});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(Walk(*scalar).size(), 1u);
  auto empty = MakeBroadcastPlan({0, 3}, {{0, 3}, {3}});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(Walk(*empty).empty());
}

TEST(BroadcastPlanTest, RejectsIncompatibleShapes) {
  EXPECT_FALSE(MakeBroadcastPlan({2, 3}, {{2, 3}, {2}}).ok());
  EXPECT_FALSE(MakeBroadcastPlan({3}, {{2, 3}}).ok());
}

}  // namespace
}  // namespace kiln
