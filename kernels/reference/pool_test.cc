// Pool reference kernels and schemas: MaxPool (indices, ceil_mode, u8), AveragePool padding
// counts, global pools, attribute errors.
#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

Attributes Window(std::vector<int64_t> kernel, std::vector<int64_t> strides = {}) {
  Attributes a;
  a.Set("kernel_shape", std::move(kernel));
  if (!strides.empty()) a.Set("strides", std::move(strides));
  return a;
}

TEST(NnMaxPool, IndicesRowAndColumnMajor) {
  const auto x = MakeF32({1, 1, 4, 4}, Ramp(16));
  Attributes a = Window({2, 2}, {2, 2});
  auto r = testing::RunSingleOp(OpType::kMaxPool, a, {In(x)}, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectF32((*r)[0], {1, 1, 2, 2}, {5, 7, 13, 15});
  ASSERT_EQ((*r)[1].dtype, DType::kI64);
  EXPECT_EQ(Values<int64_t>((*r)[1]), (std::vector<int64_t>{5, 7, 13, 15}));
  a.Set("storage_order", int64_t{1});
  r = testing::RunSingleOp(OpType::kMaxPool, a, {In(x)}, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<int64_t>((*r)[1]), (std::vector<int64_t>{5, 13, 7, 15}));
}

TEST(NnMaxPool, IndicesCountEarlierPlanes) {
  auto r = testing::RunSingleOp(OpType::kMaxPool, Window({2}),
                                {In(MakeF32({1, 2, 2}, {1, 0, 3, 4}))}, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectF32((*r)[0], {1, 2, 1}, {1, 4});
  EXPECT_EQ(Values<int64_t>((*r)[1]), (std::vector<int64_t>{0, 3}));
}

TEST(NnMaxPool, CeilModeAddsAPartialWindow) {
  Attributes a = Window({1, 2}, {1, 2});
  HostTensor y = RunOk(OpType::kMaxPool, a, {In(MakeF32({1, 1, 1, 5}, Ramp(5)))});
  ExpectF32(y, {1, 1, 1, 2}, {1, 3});
  a.Set("ceil_mode", int64_t{1});
  y = RunOk(OpType::kMaxPool, a, {In(MakeF32({1, 1, 1, 5}, Ramp(5)))});
  ExpectF32(y, {1, 1, 1, 3}, {1, 3, 4});
}

TEST(NnMaxPool, PaddingIsIgnoredAndUint8Works) {
  Attributes a = Window({3});
  a.Set("pads", std::vector<int64_t>{1, 1});
  HostTensor y =
      RunOk(OpType::kMaxPool, a, {In(Make<uint8_t>(DType::kU8, {1, 1, 4}, {200, 3, 7, 250}))});
  ASSERT_EQ(y.dtype, DType::kU8);
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{200, 200, 250, 250}));
  y = RunOk(OpType::kMaxPool, a, {In(MakeF32({1, 1, 3}, {-5, -7, -9}))});
  ExpectF32(y, {1, 1, 3}, {-5, -5, -7});  // padding never wins, even over negatives
}

TEST(NnMaxPool, DilatedThreeDimensional) {
  Attributes a = Window({2, 1, 2});
  a.Set("dilations", std::vector<int64_t>{1, 1, 2});
  HostTensor y = RunOk(OpType::kMaxPool, a, {In(MakeF32({1, 1, 2, 1, 3}, {1, 9, 2, 3, 0, 4}))});
  ExpectF32(y, {1, 1, 1, 1, 1}, {4});  // taps (d, w) in {0,1} x {0,2}: 1 2 3 4
}

TEST(NnAveragePool, CountIncludePad) {
  Attributes a = Window({2, 2});
  a.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const auto x = MakeF32({1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor y = RunOk(OpType::kAveragePool, a, {In(x)});
  ExpectF32(y, {1, 1, 3, 3}, {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
  a.Set("count_include_pad", int64_t{1});
  y = RunOk(OpType::kAveragePool, a, {In(x)});
  ExpectF32(y, {1, 1, 3, 3}, {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1});
}

TEST(NnAveragePool, CeilModeOverhangIsNotCounted) {
  Attributes a = Window({2}, {2});
  a.Set("ceil_mode", int64_t{1});
  a.Set("count_include_pad", int64_t{1});
  HostTensor y = RunOk(OpType::kAveragePool, a, {In(MakeF32({1, 1, 3}, {2, 4, 9}))});
  ExpectF32(y, {1, 1, 2}, {3, 9});
}

TEST(NnAveragePool, SameLowerPadsAtTheStart) {
  Attributes a = Window({2});
  a.Set("auto_pad", std::string("SAME_LOWER"));
  HostTensor y = RunOk(OpType::kAveragePool, a, {In(MakeF32({1, 1, 3}, {2, 4, 8}))});
  ExpectF32(y, {1, 1, 3}, {2, 3, 6});
}

TEST(NnGlobalPool, AverageAndMax) {
  const auto x = MakeF32({1, 2, 2, 2}, {1, 2, 3, 4, -1, -8, -3, -2});
  ExpectF32(RunOk(OpType::kGlobalAveragePool, Attributes(), {In(x)}), {1, 2, 1, 1}, {2.5f, -3.5f});
  ExpectF32(RunOk(OpType::kGlobalMaxPool, Attributes(), {In(x)}), {1, 2, 1, 1}, {4, -1});
}

TEST(NnPool, RejectsBadAttributes) {
  const auto x = MakeF32({1, 1, 4, 4}, Ramp(16));
  EXPECT_EQ(RunStatus(OpType::kMaxPool, Attributes(), {In(x)}).code(),
            StatusCode::kInvalidArgument);  // kernel_shape missing
  EXPECT_EQ(RunStatus(OpType::kAveragePool, Window({2}), {In(x)}).code(),
            StatusCode::kInvalidArgument);  // wrong length
  EXPECT_EQ(RunStatus(OpType::kMaxPool, Window({2, 2}, {1, 0}), {In(x)}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kMaxPool, Window({5, 5}), {In(x)}).code(),
            StatusCode::kInvalidArgument);  // window larger than the input
  Attributes order = Window({2, 2});
  order.Set("storage_order", int64_t{2});
  EXPECT_EQ(RunStatus(OpType::kMaxPool, order, {In(x)}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunStatus(OpType::kGlobalAveragePool, Attributes(), {In(MakeF32({2, 2}, Ramp(4)))}).code(),
      StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::nn_test
