// Pad reference kernel and schema: the three modes, cropping, dtypes, errors.
#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

Attributes Mode(const std::string& mode) {
  Attributes a;
  a.Set("mode", mode);
  return a;
}

TEST(NnPad, ConstantWithValue) {
  HostTensor y = RunOk(
      OpType::kPad, Mode("constant"),
      {In(MakeF32({2, 2}, {1, 2, 3, 4})), Const(MakeI64({4}, {1, 0, 0, 1})), In(MakeF32({}, {9}))});
  ExpectF32(y, {3, 3}, {9, 9, 9, 1, 2, 9, 3, 4, 9});
}

TEST(NnPad, DefaultsToZeroConstant) {
  HostTensor y = RunOk(OpType::kPad, Attributes(),
                       {In(MakeF32({1, 2}, {1, 2})), Const(MakeI64({4}, {0, 1, 0, 0}))});
  ExpectF32(y, {1, 3}, {0, 1, 2});
}

TEST(NnPad, ReflectDoesNotRepeatTheBorder) {
  HostTensor y = RunOk(OpType::kPad, Mode("reflect"),
                       {In(MakeF32({3}, {1, 2, 3})), Const(MakeI64({2}, {2, 2}))});
  ExpectF32(y, {7}, {3, 2, 1, 2, 3, 2, 1});
}

TEST(NnPad, EdgeOnInt32) {
  HostTensor y =
      RunOk(OpType::kPad, Mode("edge"),
            {In(Make<int32_t>(DType::kI32, {3}, {1, 2, 3})), Const(MakeI64({2}, {1, 2}))});
  ASSERT_EQ(y.dtype, DType::kI32);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, 1, 2, 3, 3, 3}));
}

TEST(NnPad, NegativePadsCrop) {
  HostTensor y = RunOk(OpType::kPad, Attributes(),
                       {In(MakeF32({2, 4}, Ramp(8))), Const(MakeI64({4}, {-1, -1, 0, 1}))});
  ExpectF32(y, {1, 4}, {5, 6, 7, 0});
}

TEST(NnPad, Rank3ReflectMiddleAxis) {
  HostTensor y =
      RunOk(OpType::kPad, Mode("reflect"),
            {In(MakeF32({1, 3, 1}, {1, 2, 3})), Const(MakeI64({6}, {0, 1, 0, 0, 1, 0}))});
  ExpectF32(y, {1, 5, 1}, {2, 1, 2, 3, 2});
}

// Pad-19 wrap: the opposite end continues periodically (numpy's "wrap").
TEST(NnPad, WrapMode) {
  const auto x = MakeF32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y = RunOk(OpType::kPad, Mode("wrap"), {In(x), Const(MakeI64({4}, {0, 2, 1, 1}))});
  ExpectF32(y, {3, 6},
            {2, 3, 1, 2, 3, 1,  //
             5, 6, 4, 5, 6, 4,  //
             2, 3, 1, 2, 3, 1});
}

// Pad-18 axes: pads cover only the listed axes (negative axes count from the end).
TEST(NnPad, AxesInputPadsOnlyTheListedAxes) {
  const auto x = MakeF32({2, 2}, {1, 2, 3, 4});
  HostTensor y = RunOk(OpType::kPad, Attributes(),
                       {In(x), Const(MakeI64({2}, {1, 0})), Omitted(), Const(MakeI64({1}, {-1}))});
  ExpectF32(y, {2, 3}, {0, 1, 2, 0, 3, 4});
  EXPECT_EQ(
      RunStatus(OpType::kPad, Attributes(),
                {In(x), Const(MakeI64({4}, {1, 0, 0, 0})), Omitted(), Const(MakeI64({1}, {0}))})
          .code(),
      StatusCode::kInvalidArgument);  // 2 pads per listed axis
}

TEST(NnPad, RejectsBadPads) {
  const auto x = MakeF32({3}, {1, 2, 3});
  EXPECT_EQ(RunStatus(OpType::kPad, Mode("reflect"), {In(x), Const(MakeI64({2}, {3, 0}))}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunStatus(OpType::kPad, Attributes(), {In(x), Const(MakeI64({4}, {0, 0, 0, 0}))}).code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kPad, Attributes(), {In(x), Const(MakeI64({2}, {-2, -2}))}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kPad, Mode("cyclic"), {In(x), Const(MakeI64({2}, {1, 1}))}).code(),
            StatusCode::kInvalidArgument);
  // wrap needs data to wrap around.
  EXPECT_EQ(
      RunStatus(OpType::kPad, Mode("wrap"), {In(MakeF32({0}, {})), Const(MakeI64({2}, {1, 1}))})
          .code(),
      StatusCode::kInvalidArgument);
  // Pads fed at run time cannot fix a static shape.
  EXPECT_EQ(RunStatus(OpType::kPad, Attributes(), {In(x), In(MakeI64({2}, {1, 1}))}).code(),
            StatusCode::kInvalidArgument);
  // constant_value of another dtype.
  EXPECT_EQ(RunStatus(OpType::kPad, Attributes(),
                      {In(x), Const(MakeI64({2}, {1, 1})), In(MakeI64({}, {1}))})
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::nn_test
