// The kernel-binaries section: written, signed, loaded back field for field; refused when
// modified; and the gemmko64 weight layout packs and unpacks losslessly.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/layout.h"
#include "runtime/model.h"
#include "serializer/container_reader.h"
#include "serializer/model_writer.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

Graph TinyGraph() {
  testing::GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4});
  b.Output(b.Op(OpType::kRelu, "y", {x}));
  return b.Take();
}

TEST(KernelBinariesSection, RoundTripsThroughASignedFile) {
  KernelBinaries k;
  k.device = "Some GPU";
  k.driver = "1.2.3";
  k.platform = "Vendor CL";
  k.programs.push_back({"fp32", std::string(64, 'a'), {1, 2, 3, 0, 255}});
  k.programs.push_back({"fp16", std::string(64, 'b'), std::vector<uint8_t>(1000, 7)});
  k.tuning = {{"fp32 conv_gemm n1", "conv_gemm_64x64 splits 2"}, {"fp16 x", "y"}};
  auto key = signing::PrivateKey::Generate();
  ASSERT_TRUE(key.ok());
  WriteOptions wo;
  wo.kernel_binaries = &k;
  wo.signing_key = &*key;
  wo.compression = format::Compression::kZstd;
  const Graph g = TinyGraph();
  auto image = SerializeModel(g, wo);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  TrustStore trust;
  auto pub = key->public_key();
  ASSERT_TRUE(pub.ok());
  auto pem = pub->ToPem();
  ASSERT_TRUE(pem.ok());
  ASSERT_TRUE(trust.AddPublicKeyPem(*pem).ok());
  auto model = Model::LoadFromMemory(nullptr, image->data(), image->size(), trust);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto got = (*model)->kernel_binaries();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->device, k.device);
  EXPECT_EQ(got->driver, k.driver);
  EXPECT_EQ(got->platform, k.platform);
  ASSERT_EQ(got->programs.size(), 2u);
  EXPECT_EQ(got->programs[1].precision, "fp16");
  EXPECT_EQ(got->programs[0].source_hash, k.programs[0].source_hash);
  EXPECT_EQ(got->programs[0].binary, k.programs[0].binary);
  EXPECT_EQ(got->programs[1].binary, k.programs[1].binary);
  EXPECT_EQ(got->tuning, k.tuning);
  EXPECT_EQ((*model)->info().gpu_binaries_device, "Some GPU");
  bool listed = false;
  for (const auto& s : (*model)->info().sections) listed |= s.kind == "kernel-binaries";
  EXPECT_TRUE(listed);

  // A modified binary breaks the section hash: the file is refused before anything is used.
  std::vector<uint8_t> bad = *image;
  const auto view = format::ParseContainer(bad.data(), bad.size());
  ASSERT_TRUE(view.ok());
  const format::SectionEntry* e = view->Find(format::SectionKind::kKernelBinaries);
  ASSERT_NE(e, nullptr);
  bad[e->offset + e->stored_size / 2] ^= 0x40;
  auto refused = Model::LoadFromMemory(nullptr, bad.data(), bad.size(), trust);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("kernel-binaries"), std::string::npos)
      << refused.status().ToString();
}

TEST(GemmKO64Layout, PacksReductionMajorWithPaddedOutputs) {
  const Shape shape = {70, 3, 2, 2};  // O = 70 -> padded to 128, K = 12
  std::vector<float> plain(70 * 12);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>(i) + 0.5f;
  EXPECT_EQ(LayoutByteSize(Layout::kGemmKO64, DType::kF32, shape), 12u * 128u * 4u);
  auto packed = PackLayout(Layout::kGemmKO64, DType::kF32, shape,
                           reinterpret_cast<const uint8_t*>(plain.data()), plain.size() * 4);
  ASSERT_TRUE(packed.ok());
  const float* p = reinterpret_cast<const float*>(packed->data());
  EXPECT_EQ(p[5 * 128 + 69], plain[69 * 12 + 5]);  // (k=5, o=69)
  EXPECT_EQ(p[5 * 128 + 100], 0.f);                // padding
  auto back = UnpackLayout(Layout::kGemmKO64, DType::kF32, shape, packed->data(), packed->size());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::memcmp(back->data(), plain.data(), plain.size() * 4), 0);
  EXPECT_EQ(LayoutName(Layout::kGemmKO64), "gemmko64");
  EXPECT_TRUE(IsValidLayout(static_cast<int32_t>(Layout::kGemmKO64)));
}

}  // namespace
}  // namespace kiln
