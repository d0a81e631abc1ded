// Gemm and MatMul on the CPU fast kernels against the reference kernels: transposes, alpha,
// beta, every C broadcast handled (row, full matrix, scalar, non-constant), batched MatMul A,
// and the fallbacks.
#include <gtest/gtest.h>

#include <random>

#include "tests/conv_test_util.h"
#include "tests/op_runner.h"

namespace kiln::cpu {
namespace {

using ::kiln::testing::ExpectFastMatchesReference;
using ::kiln::testing::MakeF32;
using ::kiln::testing::OpInput;

OpInput Rand(const Shape& s, std::mt19937& rng, bool constant) {
  return {MakeF32(s, testing::RandomVector(NumElements(s), rng)), constant, false};
}

TEST(GemmCpuKernelTest, GemmMatchesReference) {
  std::mt19937 rng(41);
  struct Case {
    int64_t m, k, n;
    bool ta, tb;
    Shape c;
    bool c_const;
    float alpha, beta;
  };
  const std::vector<Case> cases = {
      {1, 512, 1000, false, true, {1000}, true, 1.f, 1.f},  // resnet fc
      {3, 37, 19, false, false, {19}, true, 1.f, 1.f},
      {9, 300, 45, true, true, {9, 45}, true, 0.5f, 2.f},
      {5, 20, 33, false, true, {1, 33}, false, 1.f, 1.f},  // C as a runtime input
      {4, 16, 8, false, false, {}, true, 1.f, 0.25f},      // scalar C
      {2, 8, 3, false, false, {2, 1}, true, 1.f, 1.f},     // column C: reference fallback
  };
  for (const Case& c : cases) {
    Attributes a;
    a.Set("transA", int64_t{c.ta});
    a.Set("transB", int64_t{c.tb});
    a.Set("alpha", c.alpha);
    a.Set("beta", c.beta);
    std::vector<OpInput> in = {Rand(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, rng, false),
                               Rand(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, rng, true),
                               Rand(c.c, rng, c.c_const)};
    ExpectFastMatchesReference(OpType::kGemm, a, in, 2e-6f * static_cast<float>(c.k), 1e-5f);
  }
  // No C; B as a runtime input (fallback).
  ExpectFastMatchesReference(OpType::kGemm, {},
                             {Rand({6, 10}, rng, false), Rand({10, 4}, rng, true)}, 1e-5f, 1e-5f);
  ExpectFastMatchesReference(OpType::kGemm, {},
                             {Rand({6, 10}, rng, false), Rand({10, 4}, rng, false)}, 1e-5f, 1e-5f);
}

TEST(GemmCpuKernelTest, MatMulMatchesReference) {
  std::mt19937 rng(42);
  ExpectFastMatchesReference(
      OpType::kMatMul, {}, {Rand({1, 640}, rng, false), Rand({640, 300}, rng, true)}, 2e-3f, 1e-5f);
  ExpectFastMatchesReference(OpType::kMatMul, {},
                             {Rand({2, 3, 7, 24}, rng, false), Rand({24, 17}, rng, true)}, 1e-4f,
                             1e-5f);
  ExpectFastMatchesReference(OpType::kMatMul, {},
                             {Rand({2, 5, 6}, rng, false), Rand({2, 6, 3}, rng, true)}, 1e-5f,
                             1e-5f);  // batched B: fallback
}

}  // namespace
}  // namespace kiln::cpu
