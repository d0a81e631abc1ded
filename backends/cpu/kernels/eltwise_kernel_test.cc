// The elementwise ops on the CPU fast kernels against the reference kernels through real
// sessions at every ISA this CPU runs: activations, broadcast arithmetic, BatchNormalization,
// Softmax, Concat. Exact where the kernels promise the reference's bits.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "tests/conv_test_util.h"
#include "tests/op_runner.h"

namespace kiln::cpu {
namespace {

using ::kiln::testing::ExpectFastMatchesReference;
using ::kiln::testing::MakeF32;
using ::kiln::testing::OpInput;

OpInput In(const Shape& s, std::mt19937& rng, float lo = -4.f, float hi = 4.f) {
  return {MakeF32(s, testing::RandomVector(NumElements(s), rng, lo, hi)), false, false};
}
OpInput Const(const Shape& s, std::vector<float> v) {
  return {MakeF32(s, std::move(v)), true, false};
}

TEST(EltwiseCpuKernelTest, Activations) {
  std::mt19937 rng(31);
  for (const Shape& s : {Shape{1, 3, 7, 9}, Shape{2, 33}, Shape{1}, Shape{1, 16, 17, 17}}) {
    const OpInput x = In(s, rng, -12.f, 12.f);
    ExpectFastMatchesReference(OpType::kRelu, {}, {x}, 0.f, 0.f);
    ExpectFastMatchesReference(OpType::kHardSwish, {}, {x}, 0.f, 0.f);
    Attributes lr;
    lr.Set("alpha", 0.07f);
    ExpectFastMatchesReference(OpType::kLeakyRelu, lr, {x}, 0.f, 0.f);
    Attributes hs;
    hs.Set("alpha", 0.3f);
    hs.Set("beta", 0.4f);
    ExpectFastMatchesReference(OpType::kHardSigmoid, hs, {x}, 0.f, 0.f);
    ExpectFastMatchesReference(OpType::kSigmoid, {}, {x}, 1e-7f, 1e-6f);
    ExpectFastMatchesReference(OpType::kTanh, {}, {x}, 1e-7f, 1e-6f);
    ExpectFastMatchesReference(OpType::kClip, {}, {x, Const({}, {-1.5f}), Const({}, {6.f})}, 0.f,
                               0.f);
    ExpectFastMatchesReference(OpType::kClip, {},
                               {x, {HostTensor(), false, true}, Const({}, {0.5f})}, 0.f, 0.f);
    ExpectFastMatchesReference(OpType::kClip, {}, {x}, 0.f, 0.f);
  }
  // Sigmoid's ends: exp(-x) clamped (no split by sign), the reciprocal of a huge 1 + e
  // flushed to 0, infinities, and tiny inputs (where the value is 1/2).
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> ends = {-inf,  -1000.f, -100.f,  -88.8f, -88.3f, -87.f, -50.f,
                             -20.f, -1e-3f,  -1e-30f, 0.f,    1e-30f, 1e-3f, 20.f,
                             50.f,  87.f,    88.8f,   100.f,  inf};
  ends.resize(32, 0.25f);
  ExpectFastMatchesReference(OpType::kSigmoid, {}, {{MakeF32({32}, ends), false, false}}, 1e-7f,
                             1e-6f);
  // Non-constant Clip bounds: reference fallback.
  ExpectFastMatchesReference(OpType::kClip, {},
                             {In({5, 5}, rng), In({}, rng, -1.f, 0.f), In({}, rng, 0.f, 1.f)}, 0.f,
                             0.f);
}

TEST(EltwiseCpuKernelTest, BroadcastArithmetic) {
  std::mt19937 rng(32);
  struct Case {
    Shape a, b;
  };
  const std::vector<Case> cases = {
      {{1, 8, 13, 13}, {1, 8, 13, 13}},  // same shape
      {{1, 8, 13, 13}, {1, 8, 1, 1}},    // squeeze-excite channel scale
      {{2, 5, 7, 3}, {5, 1, 1}},         // per channel, batch 2
      {{1, 6, 9, 9}, {}},                // scalar
      {{4, 10}, {10}},                   // row bias (leading broadcast)
      {{1, 3, 4, 6}, {1, 1, 4, 6}},      // leading broadcast of a plane
      {{1, 1, 1}, {3, 5, 7}},            // broadcast on the left operand
      {{3, 1, 7}, {3, 5, 7}},            // middle broadcast: reference fallback
  };
  for (const Case& c : cases) {
    for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv}) {
      ExpectFastMatchesReference(op, {}, {In(c.a, rng), In(c.b, rng, 0.5f, 2.f)}, 0.f, 0.f);
      ExpectFastMatchesReference(op, {}, {In(c.b, rng, 0.5f, 2.f), In(c.a, rng)}, 0.f, 0.f);
    }
  }
}

TEST(EltwiseCpuKernelTest, BatchNormSoftmaxConcat) {
  std::mt19937 rng(33);
  const int64_t c = 6;
  auto chan = [&](float lo, float hi) { return Const({c}, testing::RandomVector(c, rng, lo, hi)); };
  Attributes bn;
  bn.Set("epsilon", 1e-3f);
  ExpectFastMatchesReference(
      OpType::kBatchNormalization, bn,
      {In({2, c, 5, 7}, rng), chan(0.5f, 2.f), chan(-1.f, 1.f), chan(-1.f, 1.f), chan(0.1f, 3.f)},
      0.f, 0.f);
  for (const Shape& s : {Shape{1, 1000}, Shape{3, 17}, Shape{2, 5, 1}, Shape{7}}) {
    Attributes a;
    a.Set("axis", int64_t{s.size() == 3 ? 1 : -1});
    ExpectFastMatchesReference(OpType::kSoftmax, a, {In(s, rng, -20.f, 20.f)}, 1e-7f, 1e-5f);
    ExpectFastMatchesReference(OpType::kLogSoftmax, a, {In(s, rng, -20.f, 20.f)}, 1e-5f, 1e-6f);
  }
  Attributes first;
  first.Set("axis", int64_t{0});  // softmax over a non-last axis: reference fallback
  ExpectFastMatchesReference(OpType::kSoftmax, first, {In({4, 3}, rng)}, 1e-7f, 1e-5f);
  for (int64_t axis : {0, 1, 3, -1}) {
    Attributes a;
    a.Set("axis", axis);
    Shape s1 = {2, 3, 4, 5}, s2 = s1, s3 = s1;
    const size_t d = static_cast<size_t>(axis < 0 ? 3 : axis);
    s2[d] = 1;
    s3[d] = 7;
    ExpectFastMatchesReference(OpType::kConcat, a, {In(s1, rng), In(s2, rng), In(s3, rng)}, 0.f,
                               0.f);
  }
}

}  // namespace
}  // namespace kiln::cpu
