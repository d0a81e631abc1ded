// The pooling ops on the CPU fast kernels against the reference kernels, through real
// sessions at every ISA this CPU runs, on random shapes (pads, strides, ceil_mode,
// count_include_pad, windows wider than a vector's tail, 1-D).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/conv_test_util.h"
#include "tests/op_runner.h"

namespace kiln::cpu {
namespace {

using ::kiln::testing::ExpectFastMatchesReference;
using ::kiln::testing::MakeF32;
using ::kiln::testing::OpInput;

OpInput RandomInput(const Shape& s, std::mt19937& rng) {
  return {MakeF32(s, testing::RandomVector(NumElements(s), rng, -3.f, 3.f)), false, false};
}

TEST(PoolCpuKernelTest, MaxAndAverageMatchReference) {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int64_t> sp(1, 40), k(1, 5), st(1, 2), pd(0, 2), bit(0, 1);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t kh = k(rng), kw = k(rng);
    const int64_t h = sp(rng) + kh, w = sp(rng) + kw;
    Attributes a;
    a.Set("kernel_shape", std::vector<int64_t>{kh, kw});
    a.Set("strides", std::vector<int64_t>{st(rng) + (iter % 5 == 0 ? 1 : 0), st(rng)});
    const int64_t pt = std::min(pd(rng), kh - 1), pl = std::min(pd(rng), kw - 1);
    const int64_t pb = std::min(pd(rng), kh - 1), pr = std::min(pd(rng), kw - 1);
    a.Set("pads", std::vector<int64_t>{pt, pl, pb, pr});
    a.Set("ceil_mode", bit(rng));
    const OpInput x = RandomInput({1 + iter % 2, 3, h, w}, rng);
    SCOPED_TRACE("iter " + std::to_string(iter));
    ExpectFastMatchesReference(OpType::kMaxPool, a, {x}, 0.f, 0.f);
    a.Set("count_include_pad", bit(rng));
    ExpectFastMatchesReference(OpType::kAveragePool, a, {x}, 0.f, 0.f);
  }
}

TEST(PoolCpuKernelTest, CommonLayersAnd1D) {
  std::mt19937 rng(22);
  Attributes a;  // resnet/squeezenet stem pool: 3x3 s2, pads 1 / ceil_mode
  a.Set("kernel_shape", std::vector<int64_t>{3, 3});
  a.Set("strides", std::vector<int64_t>{2, 2});
  a.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ExpectFastMatchesReference(OpType::kMaxPool, a, {RandomInput({1, 8, 112, 112}, rng)}, 0.f, 0.f);
  Attributes c;
  c.Set("kernel_shape", std::vector<int64_t>{3, 3});
  c.Set("strides", std::vector<int64_t>{2, 2});
  c.Set("ceil_mode", int64_t{1});
  ExpectFastMatchesReference(OpType::kMaxPool, c, {RandomInput({1, 4, 55, 55}, rng)}, 0.f, 0.f);
  Attributes d;  // densenet transition: 2x2 s2 average
  d.Set("kernel_shape", std::vector<int64_t>{2, 2});
  d.Set("strides", std::vector<int64_t>{2, 2});
  ExpectFastMatchesReference(OpType::kAveragePool, d, {RandomInput({1, 6, 56, 56}, rng)}, 0.f, 0.f);
  d.Set("ceil_mode", int64_t{1});  // 2x2 s2 max (an unrolled version), odd size, ceil mode
  ExpectFastMatchesReference(OpType::kMaxPool, d, {RandomInput({1, 5, 57, 57}, rng)}, 0.f, 0.f);
  Attributes one_d;
  one_d.Set("kernel_shape", std::vector<int64_t>{3});
  one_d.Set("strides", std::vector<int64_t>{2});
  one_d.Set("pads", std::vector<int64_t>{1, 1});
  ExpectFastMatchesReference(OpType::kMaxPool, one_d, {RandomInput({2, 3, 41}, rng)}, 0.f, 0.f);
  ExpectFastMatchesReference(OpType::kAveragePool, one_d, {RandomInput({2, 3, 41}, rng)}, 0.f, 0.f);
}

// The inception blocks' 3x3 stride-1 "same" max pools run as flat planes (MaxPoolFlat): 7x7
// and 14x14, 28x28 at its 64-vector limit, 30x30 past it (row kernel), a 2x2 window with
// asymmetric pads; NaN taps are skipped as by the reference.
TEST(PoolCpuKernelTest, SameSizeMaxPools) {
  std::mt19937 rng(25);
  Attributes same;
  same.Set("kernel_shape", std::vector<int64_t>{3, 3});
  same.Set("strides", std::vector<int64_t>{1, 1});
  same.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  for (const Shape& s : {Shape{1, 9, 7, 7}, Shape{2, 5, 14, 14}, Shape{1, 3, 28, 28},
                         Shape{1, 2, 30, 30}, Shape{1, 4, 5, 13}}) {
    OpInput x = RandomInput(s, rng);
    float* v = x.tensor.data<float>();
    for (int64_t i = 0; i < NumElements(s); i += 7) v[i] = std::nanf("");
    ExpectFastMatchesReference(OpType::kMaxPool, same, {x}, 0.f, 0.f);
  }
  Attributes two;
  two.Set("kernel_shape", std::vector<int64_t>{2, 2});
  two.Set("pads", std::vector<int64_t>{0, 1, 1, 0});
  ExpectFastMatchesReference(OpType::kMaxPool, two, {RandomInput({1, 6, 11, 12}, rng)}, 0.f, 0.f);
}

// Stride-2 max pools run as row maxima then even / odd columns (MaxPoolStride2): the stem
// pools of resnet / squeezenet / googlenet (pads 1, ceil mode), windows of 1-7 columns, rows
// narrower and wider than a vector, asymmetric pads, windows past the right edge; NaN taps
// are skipped as by the reference.
TEST(PoolCpuKernelTest, StrideTwoMaxPools) {
  std::mt19937 rng(27);
  struct Case {
    Shape shape;
    int64_t kh, kw, pt, pl, pb, pr, ceil;
  };
  for (const Case& c :
       {Case{{1, 5, 112, 112}, 3, 3, 1, 1, 1, 1, 0}, Case{{1, 3, 111, 111}, 3, 3, 0, 0, 0, 0, 1},
        Case{{2, 4, 27, 27}, 3, 3, 0, 0, 0, 0, 1}, Case{{1, 3, 28, 28}, 3, 3, 0, 0, 0, 0, 1},
        Case{{1, 2, 9, 40}, 7, 7, 3, 3, 3, 3, 0}, Case{{1, 2, 13, 35}, 1, 1, 0, 0, 0, 0, 1},
        Case{{1, 3, 17, 33}, 2, 5, 1, 2, 0, 1, 1}, Case{{1, 2, 6, 5}, 3, 4, 2, 3, 2, 3, 1},
        // Rows whose outputs read fewer column vectors than the pairs (googlenet's 14x14 pool:
        // one), a partial last vector, a 2-wide window on a narrow row.
        Case{{1, 6, 14, 14}, 3, 3, 0, 0, 0, 0, 1}, Case{{1, 4, 16, 16}, 3, 3, 1, 1, 1, 1, 0},
        Case{{1, 3, 9, 9}, 2, 2, 0, 0, 0, 0, 1}, Case{{1, 2, 33, 40}, 3, 3, 1, 1, 1, 1, 1}}) {
    Attributes a;
    a.Set("kernel_shape", std::vector<int64_t>{c.kh, c.kw});
    a.Set("strides", std::vector<int64_t>{2, 2});
    a.Set("pads", std::vector<int64_t>{c.pt, c.pl, c.pb, c.pr});
    a.Set("ceil_mode", c.ceil);
    OpInput x = RandomInput(c.shape, rng);
    float* v = x.tensor.data<float>();
    for (int64_t i = 3; i < NumElements(c.shape); i += 11) v[i] = std::nanf("");
    SCOPED_TRACE(ShapeToString(c.shape) + " window " + std::to_string(c.kh) + "x" +
                 std::to_string(c.kw));
    ExpectFastMatchesReference(OpType::kMaxPool, a, {x}, 0.f, 0.f);
  }
}

// Stride-2 average pools with windows up to 3 columns (AvgPoolStride2): densenet's 2x2
// transitions (the reciprocal of a power-of-two count), 3x3 windows with pads counted or not
// (divided), ceil mode, rows needing one column vector, a partial last vector, 1-wide windows.
TEST(PoolCpuKernelTest, StrideTwoAveragePools) {
  std::mt19937 rng(28);
  struct Case {
    Shape shape;
    int64_t kh, kw, pt, pl, pb, pr, ceil, include_pad;
  };
  for (const Case& c :
       {Case{{1, 5, 56, 56}, 2, 2, 0, 0, 0, 0, 0, 0}, Case{{1, 7, 14, 14}, 2, 2, 0, 0, 0, 0, 0, 0},
        Case{{2, 3, 27, 29}, 2, 2, 0, 0, 0, 0, 1, 0}, Case{{1, 4, 28, 28}, 3, 3, 1, 1, 1, 1, 0, 0},
        Case{{1, 4, 17, 35}, 3, 3, 1, 1, 1, 1, 1, 1}, Case{{1, 3, 9, 40}, 3, 2, 2, 1, 0, 1, 1, 1},
        Case{{1, 2, 13, 13}, 1, 1, 0, 0, 0, 0, 0, 0},
        Case{{1, 3, 33, 33}, 3, 3, 0, 0, 0, 0, 1, 0}}) {
    Attributes a;
    a.Set("kernel_shape", std::vector<int64_t>{c.kh, c.kw});
    a.Set("strides", std::vector<int64_t>{2, 2});
    a.Set("pads", std::vector<int64_t>{c.pt, c.pl, c.pb, c.pr});
    a.Set("ceil_mode", c.ceil);
    a.Set("count_include_pad", c.include_pad);
    SCOPED_TRACE(ShapeToString(c.shape) + " window " + std::to_string(c.kh) + "x" +
                 std::to_string(c.kw));
    ExpectFastMatchesReference(OpType::kAveragePool, a, {RandomInput(c.shape, rng)}, 0.f, 0.f);
  }
}

TEST(PoolCpuKernelTest, GlobalPools) {
  std::mt19937 rng(23);
  for (const Shape& s : {Shape{1, 7, 7, 7}, Shape{2, 5, 13, 13}, Shape{1, 3, 1, 1},
                         Shape{1, 4, 56, 56}, Shape{1, 2, 9}}) {
    const OpInput x = RandomInput(s, rng);
    ExpectFastMatchesReference(OpType::kGlobalMaxPool, {}, {x}, 0.f, 0.f);
    ExpectFastMatchesReference(OpType::kGlobalAveragePool, {}, {x}, 1e-6f, 1e-5f);
  }
}

TEST(PoolCpuKernelTest, FallbackCases) {
  std::mt19937 rng(24);
  Attributes dil;
  dil.Set("kernel_shape", std::vector<int64_t>{2, 2});
  dil.Set("dilations", std::vector<int64_t>{2, 2});
  ExpectFastMatchesReference(OpType::kMaxPool, dil, {RandomInput({1, 2, 9, 9}, rng)}, 0.f, 0.f);
  Attributes wide;
  wide.Set("kernel_shape", std::vector<int64_t>{2, 9});
  wide.Set("strides", std::vector<int64_t>{1, 3});
  ExpectFastMatchesReference(OpType::kAveragePool, wide, {RandomInput({1, 2, 9, 30}, rng)}, 0.f,
                             0.f);
  Attributes three_d;
  three_d.Set("kernel_shape", std::vector<int64_t>{2, 2, 2});
  ExpectFastMatchesReference(OpType::kMaxPool, three_d, {RandomInput({1, 2, 4, 5, 6}, rng)}, 0.f,
                             0.f);
  // MaxPool with its Indices output.
  Attributes idx;
  idx.Set("kernel_shape", std::vector<int64_t>{2, 2});
  ExpectFastMatchesReference(OpType::kMaxPool, idx, {RandomInput({1, 2, 6, 6}, rng)}, 0.f, 0.f, 2);
}

}  // namespace
}  // namespace kiln::cpu
