// Resize on the CPU fast path against the reference kernel (bit-equal): nearest and linear,
// every coordinate mapping but tf_crop_and_resize, scales and sizes, up and down; 8-bit codes.
#include <gtest/gtest.h>

#include <random>

#include "tests/conv_test_util.h"
#include "tests/op_runner.h"

namespace kiln::cpu {
namespace {

using ::kiln::testing::ExpectFastMatchesReference;
using ::kiln::testing::MakeF32;
using ::kiln::testing::MakeI64;
using ::kiln::testing::OpInput;

TEST(ResizeCpuKernelTest, MatchesReference) {
  std::mt19937 rng(51);
  const Shape x_shape = {1, 3, 7, 10};
  const OpInput x = {MakeF32(x_shape, testing::RandomVector(NumElements(x_shape), rng)), false,
                     false};
  const OpInput none = {HostTensor(), false, true};
  for (const char* mode : {"nearest", "linear"}) {
    for (const char* coord : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
      Attributes a;
      a.Set("mode", std::string(mode));
      a.Set("coordinate_transformation_mode", std::string(coord));
      SCOPED_TRACE(std::string(mode) + " " + coord);
      // Scales: 2x up; 0.5 / 0.7 down.
      for (const std::vector<float>& s :
           {std::vector<float>{1, 1, 2, 2}, std::vector<float>{1, 1, 0.5f, 0.7f},
            std::vector<float>{1, 1, 1, 3}}) {
        ExpectFastMatchesReference(OpType::kResize, a, {x, none, {MakeF32({4}, s), true, false}},
                                   0.f, 0.f);
      }
      // Sizes.
      ExpectFastMatchesReference(OpType::kResize, a,
                                 {x, none, none, {MakeI64({4}, {1, 3, 11, 4}), true, false}}, 0.f,
                                 0.f);
    }
  }
  // Resizing the channel axis: reference fallback.
  Attributes n;
  ExpectFastMatchesReference(OpType::kResize, n,
                             {x, none, {MakeF32({4}, {1, 2, 1, 1}), true, false}}, 0.f, 0.f);
}

// 8-bit codes (a quantized model's upsampling; the schema takes codes for nearest only):
// gathers on the fast path, u8 and i8, up and down, rows repeated by the upsampling (copied
// whole) and not, two images.
TEST(ResizeCpuKernelTest, CodesMatchReference) {
  std::mt19937 rng(52);
  const OpInput none = {HostTensor(), false, true};
  for (DType t : {DType::kU8, DType::kI8}) {
    HostTensor codes("x", t, {2, 3, 7, 10});
    for (auto& b : codes.bytes) b = static_cast<uint8_t>(rng());
    const OpInput x = {codes, false, false};
    for (const char* nearest : {"floor", "round_prefer_floor", "ceil"}) {
      for (const char* coord : {"asymmetric", "half_pixel", "align_corners"}) {
        Attributes a;
        a.Set("mode", std::string("nearest"));
        a.Set("nearest_mode", std::string(nearest));
        a.Set("coordinate_transformation_mode", std::string(coord));
        SCOPED_TRACE(std::string(DTypeName(t)) + " " + nearest + " " + coord);
        for (const std::vector<float>& s :
             {std::vector<float>{1, 1, 2, 2}, std::vector<float>{1, 1, 0.5f, 0.7f},
              std::vector<float>{1, 1, 3, 1}}) {
          ExpectFastMatchesReference(OpType::kResize, a, {x, none, {MakeF32({4}, s), true, false}},
                                     0.f, 0.f);
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
