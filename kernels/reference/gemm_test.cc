// Gemm and MatMul reference kernels and schemas: hand-computed products, broadcasting, errors.
#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

const HostTensor kA = MakeF32({2, 2}, {1, 2, 3, 4});
const HostTensor kB = MakeF32({2, 2}, {5, 6, 7, 8});

TEST(NnGemm, AlphaBetaAndVectorBias) {
  Attributes a;
  a.Set("alpha", 2.f);
  a.Set("beta", 0.5f);
  HostTensor y = RunOk(OpType::kGemm, a, {In(kA), In(kB), In(MakeF32({2}, {10, 20}))});
  ExpectF32(y, {2, 2}, {43, 54, 91, 110});  // 2 * [19 22; 43 50] + 0.5 * [10 20]
}

TEST(NnGemm, TransposedOperandsNoBias) {
  Attributes a;
  a.Set("transA", int64_t{1});
  a.Set("transB", int64_t{1});
  HostTensor y = RunOk(OpType::kGemm, a, {In(kA), In(kB)});
  ExpectF32(y, {2, 2}, {23, 31, 34, 46});
}

TEST(NnGemm, ScalarAndColumnBias) {
  HostTensor y = RunOk(OpType::kGemm, Attributes(), {In(kA), In(kB), In(MakeF32({}, {1}))});
  ExpectF32(y, {2, 2}, {20, 23, 44, 51});
  y = RunOk(OpType::kGemm, Attributes(), {In(kA), In(kB), In(MakeF32({2, 1}, {1, 2}))});
  ExpectF32(y, {2, 2}, {20, 23, 45, 52});
}

TEST(NnGemm, RectangularTransB) {
  // [1x3] x [2x3]^T
  Attributes a;
  a.Set("transB", int64_t{1});
  HostTensor y = RunOk(OpType::kGemm, a,
                       {In(MakeF32({1, 3}, {1, 2, 3})), In(MakeF32({2, 3}, {1, 0, 0, 1, 1, 1}))});
  ExpectF32(y, {1, 2}, {1, 6});
}

TEST(NnGemm, RejectsMismatches) {
  EXPECT_EQ(RunStatus(OpType::kGemm, Attributes(), {In(kA), In(MakeF32({3, 2}, Ramp(6)))}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunStatus(OpType::kGemm, Attributes(), {In(kA), In(kB), In(MakeF32({3}, Ramp(3)))}).code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kGemm, Attributes(), {In(MakeF32({4}, Ramp(4))), In(kB)}).code(),
            StatusCode::kInvalidArgument);
}

TEST(NnMatMul, TwoD) {
  HostTensor y = RunOk(OpType::kMatMul, Attributes(),
                       {In(MakeF32({2, 3}, Ramp(6, 1))), In(MakeF32({3, 2}, Ramp(6, 1)))});
  ExpectF32(y, {2, 2}, {22, 28, 49, 64});
}

TEST(NnMatMul, BroadcastBatches) {
  // A: [2,1,2,2] = {I, 2I}; B: [3,2,2] three matrices -> out[i][j] = (i+1) * B[j].
  std::vector<float> b = Ramp(12, 1);
  HostTensor y =
      RunOk(OpType::kMatMul, Attributes(),
            {In(MakeF32({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2})), In(MakeF32({3, 2, 2}, b))});
  std::vector<float> want;
  for (float s : {1.f, 2.f}) {
    for (float v : b) want.push_back(s * v);
  }
  ExpectF32(y, {2, 3, 2, 2}, want);
}

TEST(NnMatMul, VectorOperands) {
  HostTensor y = RunOk(OpType::kMatMul, Attributes(),
                       {In(MakeF32({2}, {1, 2})), In(MakeF32({2, 3}, Ramp(6)))});
  ExpectF32(y, {3}, {6, 9, 12});
  y = RunOk(OpType::kMatMul, Attributes(),
            {In(MakeF32({2, 2}, {1, 2, 3, 4})), In(MakeF32({2}, {1, 1}))});
  ExpectF32(y, {2}, {3, 7});
  y = RunOk(OpType::kMatMul, Attributes(),
            {In(MakeF32({3}, {1, 2, 3})), In(MakeF32({3}, {4, 5, 6}))});
  ExpectF32(y, {}, {32});
  // A 1-D B against a batched A.
  y = RunOk(OpType::kMatMul, Attributes(),
            {In(MakeF32({2, 1, 2}, {1, 2, 3, 4})), In(MakeF32({2}, {1, 10}))});
  ExpectF32(y, {2, 1}, {21, 43});
}

TEST(NnMatMul, RejectsMismatches) {
  EXPECT_EQ(RunStatus(OpType::kMatMul, Attributes(),
                      {In(MakeF32({2, 3}, Ramp(6))), In(MakeF32({2, 3}, Ramp(6)))})
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kMatMul, Attributes(),
                      {In(MakeF32({2, 2, 2}, Ramp(8))), In(MakeF32({3, 2, 2}, Ramp(12)))})
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::nn_test
