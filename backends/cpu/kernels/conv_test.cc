// CpuConv (packed GEMM and depthwise algorithms) against a naive direct convolution on random
// shapes, for every micro-kernel table this machine runs (the portable one included), with 1
// and 2 threads.
#include "backends/cpu/kernels/conv.h"

#include <gtest/gtest.h>

#include <vector>

#include "backends/cpu/kernels/conv_depthwise.h"
#include "backends/cpu/kernels/conv_gemm.h"
#include "backends/cpu/kernels/conv_packing.h"
#include "tests/conv_test_util.h"

namespace kiln::cpu {
namespace {

using testing::ExpectClose;
using testing::NaiveConv;
using testing::RandomVector;

// Runs `g` through CpuConv (the chosen algorithm and, when different, plain GEMM) with every
// ISA and thread count and compares with NaiveConv.
void CheckConv(const Conv2dGeometry& g, std::mt19937& rng, const ActivationParams& act,
               bool with_bias, bool with_residual) {
  const auto x = RandomVector(static_cast<size_t>(g.batch * g.in_c * g.in_plane()), rng);
  const auto w = RandomVector(static_cast<size_t>(g.out_c * g.gemm_k()), rng);
  const auto bias = RandomVector(static_cast<size_t>(g.out_c), rng);
  const size_t ysize = static_cast<size_t>(g.batch * g.out_c * g.out_plane());
  const auto res = RandomVector(ysize, rng);
  const float* b = with_bias ? bias.data() : nullptr;
  const float* r = with_residual ? res.data() : nullptr;
  const auto want = NaiveConv(g, x, w, b, r, act);
  ThreadPool pool(2);
  // The chosen algorithm, plain GEMM (runs everything), and Winograd wherever it applies.
  std::vector<ConvAlgo> algos = {ChooseConvAlgo(g)};
  if (algos[0] != ConvAlgo::kGemm) algos.push_back(ConvAlgo::kGemm);
  if (WinogradApplies(g) && algos[0] != ConvAlgo::kWinograd) algos.push_back(ConvAlgo::kWinograd);
  for (ConvAlgo algo : algos)
    for (const CpuKernels* kernels : AvailableCpuKernels()) {
      auto packed = PackConvWeights(g, ConvWeightLayout(algo), w.data());
      ASSERT_TRUE(packed.ok()) << packed.status().ToString();
      for (int threads : {1, 2}) {
        CpuConv conv(g, algo, *kernels, threads);
        std::vector<uint8_t> scratch(conv.ScratchBytes() + 64);
        void* aligned =
            scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
        // Winograd F(4,3) rounds more (transforms with factors up to 8 and 1/24).
        const float tol =
            (algo == ConvAlgo::kWinograd ? 1e-4f : 1e-5f) * static_cast<float>(g.gemm_k());
        const std::string what = g.ToString() + " " + std::string(ConvAlgoName(algo)) + " isa " +
                                 std::to_string(static_cast<int>(kernels->isa)) + " threads " +
                                 std::to_string(threads);
        std::vector<float> y(ysize, -777.f);
        conv.Run(x.data(), packed->data(), b, r, act, y.data(), aligned,
                 threads > 1 ? &pool : nullptr);
        ExpectClose(y, want, tol, 1e-4f, what);
        if (r) {
          // In place: the residual in y's own buffer (FusedConv's residual may alias y).
          std::vector<float> y2 = res;
          conv.Run(x.data(), packed->data(), b, y2.data(), act, y2.data(), aligned,
                   threads > 1 ? &pool : nullptr);
          ExpectClose(y2, want, tol, 1e-4f, what + " in place");
        }
      }
    }
}

Conv2dGeometry Geo(int64_t c, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t s, int64_t p,
                   int64_t d = 1, int64_t groups = 1, int64_t batch = 1) {
  Conv2dGeometry g;
  g.batch = batch;
  g.in_c = c;
  g.in_h = h;
  g.in_w = w;
  g.out_c = oc;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = s;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = p;
  g.dilation_h = g.dilation_w = d;
  g.groups = groups;
  EXPECT_TRUE(g.ComputeOutput());
  return g;
}

TEST(CpuConvTest, PackUnpackRoundTrip) {
  std::mt19937 rng(1);
  const Conv2dGeometry g = Geo(6, 5, 5, 20, 3, 1, 1, 1, 2);
  const auto w = RandomVector(static_cast<size_t>(g.out_c * g.gemm_k()), rng);
  auto packed = PackConvWeights(g, kLayoutConvGemmA8, w.data());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(packed->size(),
            static_cast<size_t>(2 * 2 * g.gemm_k() * 8));  // 10 oc/group -> 2 panels
  auto back = UnpackConvWeights(g, kLayoutConvGemmA8, packed->data(), packed->size());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, w);
  EXPECT_FALSE(UnpackConvWeights(g, kLayoutConvGemmA8, packed->data(), packed->size() - 1).ok());
  EXPECT_FALSE(PackConvWeights(g, "no_such_layout", w.data()).ok());
}

TEST(CpuConvTest, CommonShapes) {
  std::mt19937 rng(2);
  const ActivationParams relu{Activation::kRelu, 0.f, 0.f};
  CheckConv(Geo(16, 9, 9, 24, 3, 1, 1), rng, relu, true, false);                // 3x3 s1
  CheckConv(Geo(8, 11, 13, 17, 3, 2, 1), rng, relu, true, true);                // 3x3 s2, odd oc
  CheckConv(Geo(32, 7, 7, 40, 1, 1, 0), rng, ActivationParams{}, false, true);  // 1x1 direct
  CheckConv(Geo(12, 10, 10, 9, 1, 2, 0), rng, relu, true, false);               // 1x1 stride 2
  CheckConv(Geo(3, 23, 23, 16, 7, 2, 3), rng, relu, true, true);                // 7x7 s2 stem
  CheckConv(Geo(96, 9, 9, 20, 3, 2, 1), rng, relu, true, true);                 // several k blocks
  CheckConv(Geo(300, 5, 6, 12, 1, 1, 0), rng, relu, true, true);        // 1x1, several k blocks
  CheckConv(Geo(8, 12, 12, 8, 3, 1, 2, 2), rng, relu, true, false);     // dilation 2
  CheckConv(Geo(12, 8, 9, 18, 3, 1, 1, 1, 3), rng, relu, true, true);   // groups 3
  CheckConv(Geo(5, 6, 7, 7, 3, 1, 1, 1, 1, 2), rng, relu, true, true);  // batch 2
  CheckConv(Geo(4, 1, 1, 5, 1, 1, 0), rng, relu, true, false);          // 1x1 spatial
}

// 1x1 layers read B in place with the wide micro-kernel where the table has one (AVX-512: 48
// columns): planes whose pixels end on, just past and just short of its tiles and of the
// narrow kernel's, tails of one to three vectors, split reductions, residuals.
TEST(CpuConvTest, PointwiseTileWidths) {
  std::mt19937 rng(11);
  const ActivationParams relu{Activation::kRelu, 0.f, 0.f};
  const std::pair<int64_t, int64_t> planes[] = {{7, 7},  {6, 8},   {1, 47},  {7, 14}, {1, 95},
                                                {2, 49}, {11, 11}, {13, 13}, {4, 36}};
  for (const auto& [h, w] : planes) {
    CheckConv(Geo(24, h, w, 40, 1, 1, 0), rng, relu, true, (h + w) % 2 == 0);
  }
  CheckConv(Geo(260, 7, 7, 17, 1, 1, 0), rng, relu, true, true);  // several k blocks
  // Strided 1x1 layers (subsampled, then read in place): resnet's shortcut, odd sizes,
  // stride 3, batch 2 with a residual.
  CheckConv(Geo(24, 56, 56, 40, 1, 2, 0), rng, relu, true, false);
  CheckConv(Geo(16, 15, 17, 24, 1, 2, 0), rng, relu, false, true);
  CheckConv(Geo(8, 20, 23, 16, 1, 3, 0), rng, relu, true, false);
  CheckConv(Geo(12, 9, 11, 20, 1, 2, 0, 1, 1, 2), rng, relu, true, true);
  for (const CpuKernels* k : AvailableCpuKernels()) {
    const int nr = ConvGemm::TileColumns(Geo(24, 7, 7, 40, 1, 1, 0), *k);
    EXPECT_EQ(nr, k->gemm_wide ? k->gemm_wide_nr : k->gemm_nr);
    EXPECT_EQ(ConvGemm::TileColumns(Geo(24, 14, 14, 40, 1, 2, 0), *k), nr);
    EXPECT_EQ(ConvGemm::TileColumns(Geo(24, 7, 7, 40, 3, 1, 1), *k), k->gemm_nr);
  }
}

TEST(CpuConvTest, Depthwise) {
  std::mt19937 rng(6);
  const ActivationParams relu6{Activation::kClip, 0.f, 6.f};
  for (int64_t k : {3, 5}) {
    for (int64_t s : {1, 2}) {
      for (int64_t hw : {1, 2, 7, 14, 19, 40}) {
        const Conv2dGeometry g = Geo(6, hw, hw, 6, k, s, k / 2, 1, 6);
        ASSERT_EQ(ChooseConvAlgo(g), ConvAlgo::kDepthwise) << g.ToString();
        SCOPED_TRACE(g.ToString());
        CheckConv(g, rng, relu6, true, hw % 2 == 1);
      }
    }
  }
  // Odd pads, rectangular maps and windows, vertical stride 3, batch 2.
  Conv2dGeometry g = Geo(4, 9, 37, 4, 3, 1, 0, 1, 4, 2);
  g.kernel_h = 2;
  g.kernel_w = 7;
  g.stride_h = 3;
  g.stride_w = 2;
  g.pad_top = 2;
  g.pad_left = 0;
  g.pad_right = 3;
  ASSERT_TRUE(g.ComputeOutput());
  ASSERT_EQ(ChooseConvAlgo(g), ConvAlgo::kDepthwise);
  CheckConv(g, rng, ActivationParams{Activation::kSilu, 0.f, 0.f}, true, true);
  // Dilated depthwise goes through GEMM.
  EXPECT_EQ(ChooseConvAlgo(Geo(4, 9, 9, 4, 3, 1, 2, 2, 4)), ConvAlgo::kGemm);
}

// The channels-in-lanes depthwise kernels (AVX-512, AVX2) on whole and partial 16-channel
// blocks (AVX2: a block of 8 lanes or fewer stores one half), 3x3 / 5x5 (compiled for) and
// 7x7 / 3x5 (generic) windows, both strides, odd and rectangular planes, asymmetric pads,
// batch 2; CheckConv runs the portable table on the plane kernel.
TEST(CpuConvTest, DepthwiseChannelLanes) {
  std::mt19937 rng(8);
  const ActivationParams acts[] = {{Activation::kClip, 0.f, 6.f},
                                   {Activation::kSilu, 0.f, 0.f},
                                   {Activation::kRelu, 0.f, 0.f},
                                   {Activation::kNone, 0.f, 0.f}};
  std::vector<const CpuKernels*> lane_tables;
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512}) {
    const CpuKernels* k = GetCpuKernels(isa);
    if (k && k->dwconv_lanes) lane_tables.push_back(k);
  }
  int i = 0;
  for (int64_t c : {16, 17, 40}) {
    for (int64_t k : {3, 5, 7}) {
      for (int64_t s : {1, 2}) {
        const int64_t h = 5 + (i % 3) * 4, w = h + i % 2;  // 5..13, some not square
        Conv2dGeometry g = Geo(c, h, w, c, k, s, k / 2, 1, c, i % 5 == 0 ? 2 : 1);
        if (i % 4 == 1) {
          g.kernel_w = 5;  // 7x5 / 3x5 windows, pads on one side only
          g.pad_left = 0;
          g.pad_right = 3;
          ASSERT_TRUE(g.ComputeOutput());
        }
        ASSERT_EQ(ChooseConvAlgo(g), ConvAlgo::kDepthwise) << g.ToString();
        for (const CpuKernels* lt : lane_tables) {
          EXPECT_TRUE(ConvDepthwise(g, *lt, 1, false).lanes()) << g.ToString();
        }
        SCOPED_TRACE(g.ToString());
        CheckConv(g, rng, acts[i % 4], i % 3 != 2, (i / 2) % 2 == 0);  // silu with and without
        ++i;
      }
    }
  }
  // Planes whose tile passes kDwLanesTileBytes go in bands of output rows (80x80: two of 40
  // rows; 150 -> 75 at stride 2: bands of 25).
  CheckConv(Geo(20, 80, 80, 20, 3, 1, 1, 1, 20), rng, acts[0], true, true);
  CheckConv(Geo(16, 150, 150, 16, 3, 2, 1, 1, 16), rng, acts[1], true, false);
  CheckConv(Geo(17, 61, 70, 17, 5, 1, 2, 1, 17, 2), rng, acts[2], false, true);
  // 1x1 windows keep the plane kernel's one-pass affine; rows too wide for a band too.
  for (const CpuKernels* lt : lane_tables) {
    EXPECT_FALSE(ConvDepthwise(Geo(16, 14, 14, 16, 1, 1, 0, 1, 16), *lt, 1, false).lanes());
    EXPECT_FALSE(ConvDepthwise(Geo(16, 4, 3000, 16, 3, 1, 1, 1, 16), *lt, 1, false).lanes());
    EXPECT_TRUE(ConvDepthwise(Geo(16, 112, 112, 16, 3, 1, 1, 1, 16), *lt, 1, false).lanes());
  }
  // AVX2 takes stride 2 on inputs up to 56 columns, and leaves planes a multiple of 4 KiB
  // apart to the plane kernel (32x32, 64x64: the planes alias in the L1).
  if (const CpuKernels* avx2 = GetCpuKernels(Isa::kAvx2); avx2 && avx2->dwconv_lanes) {
    const Conv2dGeometry s2 = Geo(24, 56, 56, 24, 3, 2, 1, 1, 24);
    EXPECT_TRUE(ConvDepthwise(s2, *avx2, 1, false).lanes());
    EXPECT_FALSE(ConvDepthwise(Geo(16, 112, 112, 16, 3, 2, 1, 1, 16), *avx2, 1, false).lanes());
    EXPECT_FALSE(ConvDepthwise(Geo(16, 32, 32, 16, 3, 1, 1, 1, 16), *avx2, 1, false).lanes());
    CheckConv(s2, rng, acts[0], true, true);
  }
}

TEST(CpuConvTest, DepthwisePointwise) {
  // 1x1 depthwise (a BatchNormalization before an activation, as the compiler rewrites it):
  // the flat one-pass kernel, inline relu / clip, the transcendental activations after it,
  // plane sizes around the vector widths, residual in place.
  std::mt19937 rng(7);
  for (Activation a :
       {Activation::kRelu, Activation::kClip, Activation::kSigmoid, Activation::kNone}) {
    ActivationParams act{a, 0.f, 0.f};
    if (a == Activation::kClip) act = {a, -0.5f, 0.75f};
    for (int64_t hw : {1, 4, 5, 7, 14, 56}) {
      const Conv2dGeometry g = Geo(5, hw, hw + 1, 5, 1, 1, 0, 1, 5);
      ASSERT_EQ(ChooseConvAlgo(g), ConvAlgo::kDepthwise) << g.ToString();
      SCOPED_TRACE(g.ToString() + " " + std::string(ActivationName(a)));
      CheckConv(g, rng, act, true, hw % 2 == 1);
    }
  }
}

// 1x1 layers read X in place unless a tile's rows (one per input channel, a plane apart) would
// put more lines on an L1 set than it has ways: planes of a multiple of 4 KiB (32x32, 64x64)
// are packed like im2col panels, the shared models' 56x56 and 28x28 are not. Both paths agree
// with the naive convolution (several k blocks, batch 2, odd channel counts).
TEST(CpuConvTest, PointwiseOnAliasingPlanesIsPacked) {
  std::mt19937 rng(11);
  const ActivationParams relu{Activation::kRelu, 0.f, 0.f};
  for (const CpuKernels* kernels : AvailableCpuKernels()) {
    SCOPED_TRACE(static_cast<int>(kernels->isa));
    // (The portable kernel's k blocks of 256 rows overfill 56x56's 16 sets too.)
    if (kernels->gemm_nr >= 24) {
      EXPECT_EQ(ConvGemm(Geo(256, 56, 56, 128, 1, 1, 0), *kernels, 1).ScratchBytes(), 0u);
    }
    EXPECT_EQ(ConvGemm(Geo(256, 28, 28, 128, 1, 1, 0), *kernels, 1).ScratchBytes(), 0u);
    EXPECT_GT(ConvGemm(Geo(256, 32, 32, 128, 1, 1, 0), *kernels, 1).ScratchBytes(), 0u);
    EXPECT_GT(ConvGemm(Geo(32, 64, 64, 192, 1, 1, 0), *kernels, 1).ScratchBytes(), 0u);
  }
  CheckConv(Geo(200, 32, 32, 24, 1, 1, 0), rng, relu, true, true);
  CheckConv(Geo(13, 64, 16, 19, 1, 1, 0, 1, 1, 2), rng, relu, true, false);
  // Random channel counts on aliasing planes (some packed, some too few panels to pack).
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t side = int64_t{16} << (rng() % 3);  // 16, 32 or 64
    const int64_t c = 8 + rng() % 120, m = 1 + rng() % 80, batch = 1 + rng() % 2;
    SCOPED_TRACE(trial);
    CheckConv(Geo(c, side, side, m, 1, 1, 0, 1, 1, batch), rng, relu, trial % 2 == 0,
              trial % 3 == 0);
  }
}

TEST(CpuConvTest, Winograd) {
  std::mt19937 rng(7);
  const ActivationParams relu{Activation::kRelu, 0.f, 0.f};
  // Tile edges: output sizes not multiples of 4, pads 0/1/2, one tile, many tiles.
  for (int64_t hw : {1, 3, 4, 5, 9, 14, 23, 30}) {
    for (int64_t pad : {0, 1, 2}) {
      if (hw + 2 * pad < 3) continue;
      const Conv2dGeometry g = Geo(5, hw, hw + 3, 11, 3, 1, pad);
      ASSERT_TRUE(WinogradApplies(g));
      SCOPED_TRACE(g.ToString());
      CheckConv(g, rng, relu, true, hw % 2 == 0);
    }
  }
  // Asymmetric pads, batch 2, wide channel counts (several k blocks), every output panel size.
  Conv2dGeometry g = Geo(37, 17, 21, 19, 3, 1, 1, 1, 1, 2);
  g.pad_top = 0;
  g.pad_right = 2;
  ASSERT_TRUE(g.ComputeOutput());
  CheckConv(g, rng, ActivationParams{Activation::kSilu, 0.f, 0.f}, true, true);
  CheckConv(Geo(160, 12, 12, 9, 3, 1, 1), rng, relu, false, true);
  // 16 x 8 tiles, batch 2: with 2 threads each takes whole 4-row blocks (32 tiles, one full
  // AVX-512 column tile) through all three stages, in its own part of the scratch.
  CheckConv(Geo(6, 64, 32, 10, 3, 1, 1, 1, 1, 2), rng, relu, true, true);
  // The chosen algorithm for a real layer shape is Winograd; its packing round-trips.
  const Conv2dGeometry r = Geo(64, 56, 56, 64, 3, 1, 1);
  EXPECT_EQ(ChooseConvAlgo(r), ConvAlgo::kWinograd);
  // Up to 128 x 192 channels on 28x28 (googlenet's), not on 14x14 (16 tiles) nor past it.
  EXPECT_EQ(ChooseConvAlgo(Geo(128, 28, 28, 192, 3, 1, 1)), ConvAlgo::kWinograd);
  EXPECT_EQ(ChooseConvAlgo(Geo(112, 14, 14, 224, 3, 1, 1)), ConvAlgo::kGemm);
  EXPECT_EQ(ChooseConvAlgo(Geo(160, 28, 28, 320, 3, 1, 1)), ConvAlgo::kGemm);
  const auto w = RandomVector(static_cast<size_t>(8 * 5 * 9), rng);
  const Conv2dGeometry s = Geo(5, 8, 8, 8, 3, 1, 1);
  auto packed = PackConvWeights(s, kLayoutConvWino43A8, w.data());
  ASSERT_TRUE(packed.ok());
  auto back = UnpackConvWeights(s, kLayoutConvWino43A8, packed->data(), packed->size());
  ASSERT_TRUE(back.ok());
  ExpectClose(*back, w, 1e-6f, 1e-5f, "winograd unpack");
  EXPECT_FALSE(PackConvWeights(Geo(4, 8, 8, 4, 5, 1, 2), kLayoutConvWino43A8, w.data()).ok());
}

// The Winograd driver reading the proposed 16-channel-block layout of the transformed weights.
TEST(CpuConvTest, WinogradBlock16Layout) {
  std::mt19937 rng(8);
  ThreadPool pool(2);
  for (const Conv2dGeometry& g :
       {Geo(7, 13, 11, 21, 3, 1, 1), Geo(24, 20, 20, 40, 3, 1, 0), Geo(170, 9, 9, 16, 3, 1, 1)}) {
    const auto x = RandomVector(static_cast<size_t>(g.in_c * g.in_plane()), rng);
    const auto w = RandomVector(static_cast<size_t>(g.out_c * g.gemm_k()), rng);
    const auto bias = RandomVector(static_cast<size_t>(g.out_c), rng);
    const ActivationParams relu{Activation::kRelu, 0.f, 0.f};
    const auto want = NaiveConv(g, x, w, bias.data(), nullptr, relu);
    std::vector<float> packed(ConvWino43Block16Floats(g));
    PackConvWino43Block16(g, w.data(), packed.data());
    for (const CpuKernels* kernels : AvailableCpuKernels()) {
      ConvWinograd conv(g, *kernels, /*block16=*/true);
      std::vector<float> scratch(conv.ScratchBytes() / 4 + 16);
      std::vector<float> y(static_cast<size_t>(g.out_c * g.out_plane()));
      conv.Run(x.data(), packed.data(), bias.data(), nullptr, relu, y.data(), scratch.data(),
               &pool);
      ExpectClose(y, want, 1e-4f * static_cast<float>(g.gemm_k()), 1e-4f,
                  g.ToString() + " isa " + std::to_string(static_cast<int>(kernels->isa)));
    }
  }
}

// The lane-table packer (ConvLaneTable): same-size stride-1 layers read the input at one
// offset per tap, stride-2 layers read phase planes (two column phases where the output halves
// the input, else one plane per window column); odd sizes (a zero phase column
// and row), batch 2, several k blocks, tiles that end inside a row, and layers it must refuse.
TEST(CpuConvTest, LaneTablePacking) {
  std::mt19937 rng(7);
  const std::vector<Conv2dGeometry> uses = {
      Geo(7, 13, 13, 9, 3, 1, 1),             // same-size 3x3, 169 pixels: a partial tile
      Geo(5, 9, 11, 8, 5, 1, 2, 1, 1, 2),     // same-size 5x5, rectangular, batch 2
      Geo(3, 23, 23, 16, 7, 2, 3),            // 7x7 s2 stem on an odd map (ceil halving)
      Geo(96, 10, 10, 12, 3, 2, 1),           // 3x3 s2, several k blocks
      Geo(12, 15, 14, 10, 1, 2, 0, 1, 1, 2),  // 1x1 s2 downsample, odd height, batch 2
      Geo(6, 9, 9, 7, 5, 2, 2),               // 5x5 s2
      // Narrower than halving: one plane per window column.
      Geo(3, 24, 24, 16, 3, 2, 0),          // 3x3 s2 unpadded, 24 -> 11 (squeezenet's stem)
      Geo(4, 19, 17, 9, 3, 2, 0, 1, 1, 2),  // odd sizes, batch 2
      Geo(5, 16, 21, 8, 5, 2, 1),           // 5x5 s2 pad 1: 21 -> 10
      Geo(40, 15, 15, 12, 3, 2, 0),         // several k blocks
  };
  for (const Conv2dGeometry& g : uses) {
    SCOPED_TRACE(g.ToString());
    EXPECT_FALSE(ConvLaneTable::For(g, 32, true).empty());
    CheckConv(g, rng, ActivationParams{Activation::kRelu, 0.f, 0.f}, true, true);
  }
  EXPECT_TRUE(ConvLaneTable::For(Geo(8, 12, 12, 8, 3, 1, 2, 2), 32, true).empty());  // dilated
  EXPECT_EQ(ConvLaneTable::For(Geo(3, 224, 224, 8, 3, 2, 0), 32, true).phase_cols, 3);
  EXPECT_EQ(ConvLaneTable::For(Geo(3, 224, 224, 8, 3, 2, 1), 32, true).phase_cols, 2);
  EXPECT_TRUE(ConvLaneTable::For(Geo(8, 11, 13, 8, 3, 2, 1), 32, false).empty());  // no phases
  CheckConv(Geo(3, 20, 20, 16, 3, 3, 0), rng, ActivationParams{}, true, true);     // row segments
}

TEST(CpuConvTest, AsymmetricPadsAndRectKernels) {
  std::mt19937 rng(3);
  Conv2dGeometry g;
  g.in_c = 5;
  g.in_h = 10;
  g.in_w = 37;
  g.out_c = 11;
  g.kernel_h = 1;
  g.kernel_w = 5;
  g.stride_h = 2;
  g.stride_w = 3;
  g.pad_top = 0;
  g.pad_bottom = 1;
  g.pad_left = 2;
  g.pad_right = 0;
  ASSERT_TRUE(g.ComputeOutput());
  CheckConv(g, rng, ActivationParams{Activation::kLeakyRelu, 0.1f, 0.f}, true, false);
}

TEST(CpuConvTest, EveryActivation) {
  std::mt19937 rng(4);
  const Conv2dGeometry g = Geo(6, 6, 6, 10, 3, 1, 1);
  for (Activation a : {Activation::kNone, Activation::kRelu, Activation::kClip,
                       Activation::kLeakyRelu, Activation::kSigmoid, Activation::kHardSigmoid,
                       Activation::kHardSwish, Activation::kTanh, Activation::kSilu}) {
    ActivationParams p{a, 0.f, 0.f};
    if (a == Activation::kClip) p = {a, -0.5f, 0.75f};
    if (a == Activation::kLeakyRelu) p = {a, 0.2f, 0.f};
    if (a == Activation::kHardSigmoid) p = {a, 0.2f, 0.5f};
    SCOPED_TRACE(std::string(ActivationName(a)));
    CheckConv(g, rng, p, true, true);
  }
}

TEST(CpuConvTest, RandomShapes) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> ch(1, 20), sp(1, 19), kern(1, 4), st(1, 3), pd(0, 2),
      dl(1, 2), gr(1, 3);
  for (int iter = 0; iter < 30; ++iter) {
    Conv2dGeometry g;
    g.groups = gr(rng);
    g.in_c = ch(rng) * g.groups;
    g.out_c = ch(rng) * g.groups;
    g.in_h = sp(rng);
    g.in_w = sp(rng);
    g.kernel_h = kern(rng);
    g.kernel_w = kern(rng);
    g.stride_h = st(rng);
    g.stride_w = st(rng);
    g.dilation_h = dl(rng);
    g.dilation_w = dl(rng);
    g.pad_top = pd(rng);
    g.pad_left = pd(rng);
    g.pad_bottom = pd(rng);
    g.pad_right = pd(rng);
    if (!g.ComputeOutput()) continue;
    SCOPED_TRACE(g.ToString());
    CheckConv(g, rng, ActivationParams{Activation::kRelu, 0.f, 0.f}, iter % 2 == 0, iter % 3 == 0);
  }
}

}  // namespace
}  // namespace kiln::cpu
