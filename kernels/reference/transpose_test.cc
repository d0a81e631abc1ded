// Tests of Transpose, DepthToSpace (DCR/CRD) and SpaceToDepth; expected values worked out with
// numpy's reshape/transpose definitions from the ONNX spec.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/op_runner.h"

namespace kiln {
namespace {

using testing::MakeF32;
using testing::RunSingleOp;
using testing::ToF32;

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

TEST(TransposeTest, ExplicitPerm) {
  Attributes a;
  a.Set("perm", std::vector<int64_t>{1, 2, 0});
  auto out = RunSingleOp(OpType::kTranspose, a, {{MakeF32({2, 3, 4}, Iota(24))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{3, 4, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{0, 12, 1, 13, 2, 14, 3, 15, 4,  16, 5,  17,
                                                  6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23}));
}

TEST(TransposeTest, DefaultPermReversesDims) {
  auto out = RunSingleOp(OpType::kTranspose, {}, {{MakeF32({2, 3, 4}, Iota(24))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{4, 3, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{0, 12, 4, 16, 8,  20, 1, 13, 5, 17, 9,  21,
                                                  2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}));
}

TEST(TransposeTest, F16AndU8MoveBytesOnly) {
  HostTensor h("", DType::kF16, {2, 2});
  const uint16_t bits[4] = {0x3c00, 0x4000, 0x4200, 0x4400};  // 1, 2, 3, 4
  std::memcpy(h.bytes.data(), bits, sizeof(bits));
  auto out = RunSingleOp(OpType::kTranspose, {}, {{h}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const uint16_t* o = (*out)[0].data<uint16_t>();
  EXPECT_EQ(std::vector<uint16_t>(o, o + 4),
            (std::vector<uint16_t>{0x3c00, 0x4200, 0x4000, 0x4400}));

  HostTensor u("", DType::kU8, {2, 3});
  u.bytes = {1, 2, 3, 4, 5, 6};
  auto out8 = RunSingleOp(OpType::kTranspose, {}, {{u}});
  ASSERT_TRUE(out8.ok()) << out8.status().ToString();
  EXPECT_EQ((*out8)[0].bytes, (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeTest, RejectsBadPerm) {
  for (const std::vector<int64_t>& perm :
       {std::vector<int64_t>{0, 0}, std::vector<int64_t>{0}, std::vector<int64_t>{0, 2}}) {
    Attributes a;
    a.Set("perm", perm);
    EXPECT_FALSE(RunSingleOp(OpType::kTranspose, a, {{MakeF32({2, 2}, Iota(4))}}).ok());
  }
}

TEST(DepthToSpaceTest, DcrAndCrd) {
  Attributes a;
  a.Set("blocksize", int64_t{2});
  auto dcr = RunSingleOp(OpType::kDepthToSpace, a, {{MakeF32({1, 8, 1, 2}, Iota(16))}});
  ASSERT_TRUE(dcr.ok()) << dcr.status().ToString();
  EXPECT_EQ((*dcr)[0].shape, (Shape{1, 2, 2, 4}));
  EXPECT_EQ(ToF32((*dcr)[0]),
            (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  a.Set("mode", std::string("CRD"));
  auto crd = RunSingleOp(OpType::kDepthToSpace, a, {{MakeF32({1, 8, 1, 2}, Iota(16))}});
  ASSERT_TRUE(crd.ok()) << crd.status().ToString();
  EXPECT_EQ(ToF32((*crd)[0]),
            (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
}

TEST(DepthToSpaceTest, RejectsBadAttributes) {
  Attributes a;
  a.Set("blocksize", int64_t{3});  // 8 channels do not divide by 9
  EXPECT_FALSE(RunSingleOp(OpType::kDepthToSpace, a, {{MakeF32({1, 8, 1, 2}, Iota(16))}}).ok());
  a.Set("blocksize", int64_t{2});
  a.Set("mode", std::string("XYZ"));
  EXPECT_FALSE(RunSingleOp(OpType::kDepthToSpace, a, {{MakeF32({1, 8, 1, 2}, Iota(16))}}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kDepthToSpace, {}, {{MakeF32({1, 8, 1, 2}, Iota(16))}}).ok());
}

TEST(SpaceToDepthTest, ExampleAndRoundTrip) {
  Attributes a;
  a.Set("blocksize", int64_t{2});
  auto out = RunSingleOp(OpType::kSpaceToDepth, a, {{MakeF32({1, 1, 4, 4}, Iota(16))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{1, 4, 2, 2}));
  EXPECT_EQ(ToF32((*out)[0]),
            (std::vector<float>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
  // SpaceToDepth undoes DCR DepthToSpace.
  auto d2s = RunSingleOp(OpType::kDepthToSpace, a, {{MakeF32({2, 8, 3, 2}, Iota(96))}});
  ASSERT_TRUE(d2s.ok());
  auto back = RunSingleOp(OpType::kSpaceToDepth, a, {{(*d2s)[0]}});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(ToF32((*back)[0]), Iota(96));
  // 5 is not a multiple of the block size.
  EXPECT_FALSE(RunSingleOp(OpType::kSpaceToDepth, a, {{MakeF32({1, 1, 5, 4}, Iota(20))}}).ok());
}

}  // namespace
}  // namespace kiln
