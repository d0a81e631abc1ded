// Normalisation reference kernels (BatchNormalization, InstanceNormalization, LRN) and schemas.
#include <cmath>

#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

TEST(NnBatchNorm, InferenceUsesGivenStatistics) {
  Attributes a;
  a.Set("epsilon", 0.f);
  HostTensor y =
      RunOk(OpType::kBatchNormalization, a,
            {In(MakeF32({1, 2, 1, 2}, {1, 2, 3, 4})), In(MakeF32({2}, {1, 2})),
             In(MakeF32({2}, {0, 1})), In(MakeF32({2}, {1, 3})), In(MakeF32({2}, {4, 1}))});
  ExpectF32(y, {1, 2, 1, 2}, {0, 0.5f, 1, 3});
}

TEST(NnBatchNorm, TrainingModeOutputsRunningStatistics) {
  Attributes a;
  a.Set("epsilon", 0.f);
  a.Set("momentum", 0.5f);
  a.Set("training_mode", int64_t{1});
  const std::vector<OpInput> in = {In(MakeF32({2, 1, 1, 2}, {1, 3, 5, 7})), In(MakeF32({1}, {1})),
                                   In(MakeF32({1}, {0})), In(MakeF32({1}, {0})),
                                   In(MakeF32({1}, {1}))};
  auto r = testing::RunSingleOp(OpType::kBatchNormalization, a, in, 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const float s = std::sqrt(5.f);  // batch mean 4, population variance 5
  ExpectF32((*r)[0], {2, 1, 1, 2}, {-3 / s, -1 / s, 1 / s, 3 / s});
  ExpectF32((*r)[1], {1}, {2});  // 0 * 0.5 + 4 * 0.5
  ExpectF32((*r)[2], {1}, {3});  // 1 * 0.5 + 5 * 0.5
}

TEST(NnBatchNorm, RejectsWrongChannelVectorAndStrayOutputs) {
  const auto x = MakeF32({1, 2, 1, 1}, {1, 2});
  const auto c2 = MakeF32({2}, {1, 1});
  EXPECT_EQ(RunStatus(OpType::kBatchNormalization, Attributes(),
                      {In(x), In(MakeF32({3}, {1, 1, 1})), In(c2), In(c2), In(c2)})
                .code(),
            StatusCode::kInvalidArgument);
  // Running statistics without training_mode.
  EXPECT_EQ(RunStatus(OpType::kBatchNormalization, Attributes(),
                      {In(x), In(c2), In(c2), In(c2), In(c2)}, 3)
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(NnInstanceNorm, NormalisesEachPlane) {
  Attributes a;
  a.Set("epsilon", 0.f);
  HostTensor y = RunOk(OpType::kInstanceNormalization, a,
                       {In(MakeF32({1, 2, 1, 4}, {1, 2, 3, 4, 0, 0, 4, 4})),
                        In(MakeF32({2}, {2, 1})), In(MakeF32({2}, {1, 7}))});
  const float s = std::sqrt(1.25f);  // plane 0: mean 2.5, variance 1.25; plane 1: 2 and 4
  ExpectF32(y, {1, 2, 1, 4}, {-3 / s + 1, -1 / s + 1, 1 / s + 1, 3 / s + 1, 6, 6, 8, 8});
}

TEST(NnInstanceNorm, EpsilonKeepsConstantPlanesFinite) {
  HostTensor y =
      RunOk(OpType::kInstanceNormalization, Attributes(),
            {In(MakeF32({1, 1, 3}, {5, 5, 5})), In(MakeF32({1}, {2})), In(MakeF32({1}, {7}))});
  ExpectF32(y, {1, 1, 3}, {7, 7, 7});
}

TEST(NnInstanceNorm, RejectsWrongScaleShape) {
  EXPECT_EQ(
      RunStatus(OpType::kInstanceNormalization, Attributes(),
                {In(MakeF32({1, 2, 2}, Ramp(4))), In(MakeF32({1}, {1})), In(MakeF32({2}, {0, 0}))})
          .code(),
      StatusCode::kInvalidArgument);
}

TEST(NnLrn, SumsSquaresOverNeighbouringChannels) {
  Attributes a;
  a.Set("size", int64_t{3});
  a.Set("alpha", 3.f);  // alpha / size = 1
  a.Set("beta", 1.f);
  a.Set("bias", 1.f);
  HostTensor y = RunOk(OpType::kLRN, a, {In(MakeF32({1, 3, 1, 1}, {1, 2, 3}))});
  ExpectF32(y, {1, 3, 1, 1}, {1.f / 6, 2.f / 15, 3.f / 14});
}

TEST(NnLrn, EvenSizeLeansForward) {
  // size 2: window [c, c+1].
  Attributes a;
  a.Set("size", int64_t{2});
  a.Set("alpha", 2.f);
  a.Set("beta", 1.f);
  a.Set("bias", 0.f);
  HostTensor y = RunOk(OpType::kLRN, a, {In(MakeF32({1, 2, 1}, {1, 2}))});
  ExpectF32(y, {1, 2, 1}, {1.f / 5, 2.f / 4});
}

TEST(NnLrn, RejectsMissingOrBadSize) {
  EXPECT_EQ(RunStatus(OpType::kLRN, Attributes(), {In(MakeF32({1, 2, 1}, {1, 2}))}).code(),
            StatusCode::kInvalidArgument);
  Attributes a;
  a.Set("size", int64_t{0});
  EXPECT_EQ(RunStatus(OpType::kLRN, a, {In(MakeF32({1, 2, 1}, {1, 2}))}).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::nn_test
