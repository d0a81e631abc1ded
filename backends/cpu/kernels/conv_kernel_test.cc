// The Conv op on the CPU fast kernels against the reference kernel, through real sessions
// (schema inference, registry dispatch at each ISA, thread pool), on random shapes.
#include <gtest/gtest.h>

#include <random>

#include "tests/conv_test_util.h"
#include "tests/op_runner.h"

namespace kiln::cpu {
namespace {

using ::kiln::testing::ExpectFastMatchesReference;
using ::kiln::testing::MakeF32;
using ::kiln::testing::OpInput;

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides, pads, dilations;
  int64_t group;
  bool bias;
};

void CheckConvOp(const ConvCase& c, std::mt19937& rng) {
  Attributes a;
  a.Set("strides", c.strides);
  a.Set("pads", c.pads);
  a.Set("dilations", c.dilations);
  a.Set("group", c.group);
  std::vector<OpInput> in;
  in.push_back({MakeF32(c.x, testing::RandomVector(NumElements(c.x), rng)), false, false});
  in.push_back({MakeF32(c.w, testing::RandomVector(NumElements(c.w), rng)), true, false});
  if (c.bias) in.push_back({MakeF32({c.w[0]}, testing::RandomVector(c.w[0], rng)), true, false});
  const float atol = 2e-6f * static_cast<float>(NumElements(c.w) / c.w[0]);
  ExpectFastMatchesReference(OpType::kConv, a, in, atol, 1e-4f);
}

TEST(ConvCpuKernelTest, MatchesReference) {
  std::mt19937 rng(11);
  CheckConvOp({{1, 8, 13, 11}, {12, 8, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true}, rng);
  CheckConvOp({{1, 6, 15, 15}, {6, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 6, true}, rng);
  CheckConvOp({{1, 6, 7, 7}, {6, 1, 5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}, 6, false}, rng);
  CheckConvOp({{2, 16, 9, 9}, {24, 16, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, true}, rng);
  CheckConvOp({{1, 6, 10, 12}, {9, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}, {2, 1}, 3, true}, rng);
  CheckConvOp({{1, 4, 19}, {5, 4, 3}, {2}, {1, 1}, {1}, 1, true}, rng);  // 1-D
}

TEST(ConvCpuKernelTest, FallsBackToReference) {
  std::mt19937 rng(12);
  // 3-D convolution: no fast path, the adapter must hand it to the reference kernel.
  CheckConvOp({{1, 2, 4, 5, 6}, {3, 2, 2, 3, 3}, {1, 1, 1}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, 1, true},
              rng);
  // Non-constant weights: fallback as well.
  Attributes a;
  std::vector<OpInput> in;
  in.push_back({MakeF32({1, 3, 5, 5}, testing::RandomVector(75, rng)), false, false});
  in.push_back({MakeF32({4, 3, 3, 3}, testing::RandomVector(108, rng)), false, false});
  ExpectFastMatchesReference(OpType::kConv, a, in, 1e-5f, 1e-5f);
}

}  // namespace
}  // namespace kiln::cpu
