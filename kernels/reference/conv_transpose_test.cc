// ConvTranspose reference kernel and schema: hand-computed cases and attribute errors.
#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

TEST(NnConvTranspose, Stride1Overlaps1D) {
  HostTensor y = RunOk(OpType::kConvTranspose, Attributes(),
                       {In(MakeF32({1, 1, 3}, {1, 2, 3})), In(MakeF32({1, 1, 2}, {1, 1}))});
  ExpectF32(y, {1, 1, 4}, {1, 3, 5, 3});
}

TEST(NnConvTranspose, Kernel2Stride2WithBias) {
  // The ppocr_det upsampling pattern: every input pixel becomes a scaled 2x2 block.
  Attributes a;
  a.Set("strides", std::vector<int64_t>{2, 2});
  HostTensor y = RunOk(OpType::kConvTranspose, a,
                       {In(MakeF32({1, 1, 2, 2}, {1, 2, 3, 4})),
                        In(MakeF32({1, 1, 2, 2}, {1, 2, 3, 4})), In(MakeF32({1}, {1}))});
  ExpectF32(y, {1, 1, 4, 4}, {2, 3, 3, 5, 4, 5, 7, 9, 4, 7, 5, 9, 10, 13, 13, 17});
}

TEST(NnConvTranspose, PadsCropTheFullOutput) {
  Attributes a;
  a.Set("pads", std::vector<int64_t>{1, 1});
  HostTensor y = RunOk(OpType::kConvTranspose, a,
                       {In(MakeF32({1, 1, 3}, {1, 2, 3})), In(MakeF32({1, 1, 3}, {1, 1, 1}))});
  ExpectF32(y, {1, 1, 3}, {3, 6, 5});  // full output is 1 3 6 5 3
}

TEST(NnConvTranspose, OutputShapeLargerThanFullGrowsAtTheEnd) {
  Attributes a;
  a.Set("strides", std::vector<int64_t>{2});
  a.Set("output_shape", std::vector<int64_t>{7});
  HostTensor y = RunOk(OpType::kConvTranspose, a,
                       {In(MakeF32({1, 1, 3}, {1, 2, 3})), In(MakeF32({1, 1, 2}, {1, 1}))});
  ExpectF32(y, {1, 1, 7}, {1, 1, 2, 2, 3, 3, 0});
}

TEST(NnConvTranspose, GroupsAndOutputPadding) {
  Attributes a;
  a.Set("group", int64_t{2});
  a.Set("strides", std::vector<int64_t>{2});
  a.Set("output_padding", std::vector<int64_t>{1});
  HostTensor y = RunOk(OpType::kConvTranspose, a,
                       {In(MakeF32({1, 2, 1}, {2, 3})), In(MakeF32({2, 1, 1}, {10, 100}))});
  ExpectF32(y, {1, 2, 2}, {20, 0, 300, 0});
}

TEST(NnConvTranspose, RejectsBadAttributes) {
  const auto x = MakeF32({1, 1, 3}, {1, 2, 3});
  const auto w = MakeF32({1, 1, 2}, {1, 1});
  Attributes big_out_pad;
  big_out_pad.Set("output_padding", std::vector<int64_t>{1});  // stride 1
  EXPECT_EQ(RunStatus(OpType::kConvTranspose, big_out_pad, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
  Attributes bad_shape;
  bad_shape.Set("output_shape", std::vector<int64_t>{4, 4});
  EXPECT_EQ(RunStatus(OpType::kConvTranspose, bad_shape, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
  // W's first axis must equal X's channels.
  EXPECT_EQ(
      RunStatus(OpType::kConvTranspose, Attributes(), {In(x), In(MakeF32({2, 1, 2}, {1, 1, 1, 1}))})
          .code(),
      StatusCode::kInvalidArgument);
  Attributes huge_pads;
  huge_pads.Set("pads", std::vector<int64_t>{2, 2});
  EXPECT_EQ(RunStatus(OpType::kConvTranspose, huge_pads, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::nn_test
