// Tests for the preprocessing SPEC and the PIL-compatible resize. Expected values were computed
// with Pillow (Image.resize(..., BILINEAR), convert('L')) on the synthetic image below.
#include "calibration/image_preprocess.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <stb/stb_image_write.h>

#include <filesystem>
#include <fstream>

#include "tests/test_support.h"

namespace kiln {
namespace {

// 16x12 RGB, v = (37x + 91y + 53c + 7xy) mod 256: structured enough that any deviation in
// filter support, rounding or pass order changes the output.
Image8 Pattern() {
  Image8 img{16, 12, 3, std::vector<uint8_t>(16 * 12 * 3)};
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 16; ++x)
      for (int c = 0; c < 3; ++c)
        img.pixels[(y * 16 + x) * 3 + c] =
            static_cast<uint8_t>((x * 37 + y * 91 + c * 53 + x * y * 7) % 256);
  return img;
}

uint64_t Fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

TEST(PilResize, MatchesPillowBitExactly) {
  const Image8 img = Pattern();
  struct Case {
    int w, h;
    uint64_t hash;
    std::vector<uint8_t> head;  // first 12 bytes, for a readable failure
  };
  const Case cases[] = {
      {5, 4, 0x143ee93ce6a7f644ull, {115, 132, 141, 126, 133, 138, 121, 128, 134, 122, 135, 124}},
      {16, 5, 0x6bc679c1147be5bfull, {79, 132, 128, 122, 119, 172, 109, 162, 108, 153, 98, 146}},
      {23, 17, 0xf9fac68877a2658full, {0, 53, 106, 20, 73, 126, 46, 99, 152, 72, 125, 178}},
      {7, 12, 0x8ac0047bac369f92ull, {31, 84, 137, 108, 161, 204, 170, 149, 100, 61, 75, 128}},
      {3, 29, 0x14840a1a9b376fc7ull, {94, 132, 159, 106, 124, 128, 125, 125, 96, 98, 132, 156}},
  };
  for (const Case& c : cases) {
    const Image8 out = ResizeBilinearPil(img, c.w, c.h);
    ASSERT_EQ(out.pixels.size(), static_cast<size_t>(c.w * c.h * 3));
    EXPECT_EQ(std::vector<uint8_t>(out.pixels.begin(), out.pixels.begin() + 12), c.head)
        << c.w << "x" << c.h;
    EXPECT_EQ(Fnv1a(out.pixels), c.hash) << c.w << "x" << c.h;
  }
}

TEST(ImagePreprocess, ResizeCropMeanStdBgrNchw) {
  // resize=8: shorter side 12 -> 8, longer round(16*8/12) = 11; crop 6x4 at (2, 2).
  auto spec = ParsePreprocessSpec("resize=8, crop=6x4, bgr, mean=10:20:30, std=2, nchw");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto t = PreprocessImage(Pattern(), *spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype, DType::kF32);
  ASSERT_EQ(t->shape, (Shape{1, 3, 4, 6}));
  const float* v = t->data<float>();
  // PIL pixel (0,0) of the crop is RGB (150,153,122), (x=5,y=3) is (144,89,141).
  EXPECT_FLOAT_EQ(v[0 * 24 + 0], (122 - 10) / 2.f);  // B
  EXPECT_FLOAT_EQ(v[1 * 24 + 0], (153 - 20) / 2.f);  // G
  EXPECT_FLOAT_EQ(v[2 * 24 + 0], (150 - 30) / 2.f);  // R
  EXPECT_FLOAT_EQ(v[0 * 24 + 3 * 6 + 5], (141 - 10) / 2.f);
  EXPECT_FLOAT_EQ(v[2 * 24 + 3 * 6 + 5], (144 - 30) / 2.f);
}

TEST(ImagePreprocess, RgbNhwcScaleAndGray) {
  auto spec = ParsePreprocessSpec("resize=11x8,crop=6x4,scale=1/255,nhwc");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto t = PreprocessImage(Pattern(), *spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->shape, (Shape{1, 4, 6, 3}));
  EXPECT_FLOAT_EQ(t->data<float>()[0], 150.f / 255.f);
  EXPECT_FLOAT_EQ(t->data<float>()[2], 122.f / 255.f);
  EXPECT_FLOAT_EQ(t->data<float>()[(3 * 6 + 5) * 3 + 1], 89.f / 255.f);

  auto gray = ParsePreprocessSpec("gray");
  ASSERT_TRUE(gray.ok());
  auto g = PreprocessImage(Pattern(), *gray);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->shape, (Shape{1, 1, 12, 16}));
  const float expected[] = {43, 80, 117, 154, 191, 199, 86, 46};  // PIL convert('L')
  for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(g->data<float>()[i], expected[i]) << i;
}

TEST(ImagePreprocess, ParsesTheDocumentedSpec) {
  auto s = ParsePreprocessSpec(
      "resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb,nchw");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->resize_short, 256);
  EXPECT_EQ(s->crop_width, 224);
  EXPECT_EQ(s->crop_height, 224);
  EXPECT_DOUBLE_EQ(s->scale_den, 255);
  ASSERT_EQ(s->mean.size(), 3u);
  EXPECT_FLOAT_EQ(s->std[2], 0.225f);
  auto e = ParsePreprocessSpec("");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->resize_short, 0);
  EXPECT_TRUE(e->nchw);
}

TEST(ImagePreprocess, RejectsMalformedSpecs) {
  const char* bad[] = {"resize=abc", "resize=0",  "resize=-5",       "crop=224x",
                       "crop=x3",    "mean=1:2",  "std=1:0:1",       "scale=1/0",
                       "scale=abc",  "foo",       "rgb,bgr",         "resize=256,resize=224",
                       ",",          "mean=",     "gray,mean=1:2:3", "resize=99999999",
                       "nchw,nhwc",  "mean=1;2;3"};
  for (const char* spec : bad) {
    auto s = ParsePreprocessSpec(spec);
    EXPECT_FALSE(s.ok()) << "'" << spec << "' was accepted";
    if (!s.ok()) {
      EXPECT_NE(s.status().message().find("preprocess"), std::string::npos);
    }
  }
}

TEST(ImagePreprocess, CropLargerThanImageIsAnError) {
  auto spec = ParsePreprocessSpec("crop=20");
  ASSERT_TRUE(spec.ok());
  auto t = PreprocessImage(Pattern(), *spec);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("larger than the image"), std::string::npos);
}

TEST(ImagePreprocess, DecodesPngAndRejectsGarbage) {
  const Image8 img = Pattern();
  const std::string png = ::testing::TempDir() + "/kiln_pattern.png";
  ASSERT_NE(stbi_write_png(png.c_str(), img.width, img.height, 3, img.pixels.data(), img.width * 3),
            0);
  auto decoded = DecodeImageRgb(png);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->pixels, img.pixels);
  std::filesystem::remove(png);

  const std::string junk = ::testing::TempDir() + "/kiln_junk.png";
  std::ofstream(junk) << "\x89PNG\r\n\x1a\n but then nothing valid";
  auto bad = LoadImageTensor(junk, PreprocessSpec{});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cannot decode image"), std::string::npos);
  std::filesystem::remove(junk);

  auto missing = LoadImageTensor("/nonexistent/cat.png", PreprocessSpec{});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// The resnet18_rw test input was made with PIL from this JPEG. stb's JPEG decoder differs from
// libjpeg's by at most one level on a few pixels, so allow one level (1/255/0.224) on < 3%.
TEST(ImagePreprocess, ReproducesTheModelTestDataInput) {
  const std::string dir = testing::SharedDir();
  const std::string jpeg = dir + "/images/eval/n01440764_tench.JPEG";
  const std::string pb = dir + "/models/resnet18_rw/test_data_set_0/input_0.pb";
  if (!std::filesystem::exists(jpeg) || !std::filesystem::exists(pb))
    GTEST_SKIP() << "no shared data";
  onnx::TensorProto proto;
  std::ifstream in(pb, std::ios::binary);
  ASSERT_TRUE(proto.ParseFromIstream(&in));
  ASSERT_EQ(proto.raw_data().size(), 3u * 224 * 224 * 4);
  const float* ref = reinterpret_cast<const float*>(proto.raw_data().data());

  auto spec = ParsePreprocessSpec(
      "resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb,nchw");
  ASSERT_TRUE(spec.ok());
  auto t = LoadImageTensor(jpeg, *spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->shape, (Shape{1, 3, 224, 224}));
  int64_t differing = 0;
  double max_err = 0;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    const double d = std::abs(t->data<float>()[i] - ref[i]);
    max_err = std::max(max_err, d);
    differing += d > 1e-5;
  }
  EXPECT_LE(max_err, 1.01 / 255 / 0.224);
  EXPECT_LT(differing, t->num_elements() * 3 / 100);
}

}  // namespace
}  // namespace kiln
