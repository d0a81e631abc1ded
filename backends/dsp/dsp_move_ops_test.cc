// The DSP's data-movement ops against the CPU kernels, byte for byte, at several scratchpad sizes
// with every access checked: Transpose of 8-bit codes (random ranks 1-5, shapes and
// permutations) and nearest Resize (scales and sizes whose index map is floor(o * in / out),
// up and down); a Resize whose map differs stays on the CPU, with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_op.h"
#include "backends/dsp/dsp_executor.h"
#include "runtime/session.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

// A small graph and its inputs.
using Model = PartitionModel;

std::vector<HostTensor> RunOn(const Model& m, const std::string& executor, uint32_t scratch,
                              std::string* placed) {
  SessionOptions so;
  so.executors = {executor};
  so.backend_options.Mutable<DspOptions>().scratch_bytes = scratch;
  so.backend_options.Mutable<DspOptions>().instrument = true;
  auto s = Session::Create(m.graph, so);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  auto out = (*s)->Run(m.feeds);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (placed) *placed = (*s)->Placement()[0];
  return out.ok() ? std::move(out).value() : std::vector<HostTensor>{};
}

void ExpectSameOnDsp(const Model& m, const std::string& what) {
  const auto want = RunOn(m, kExecutorCpu, kDspDefaultScratchBytes, nullptr);
  ASSERT_EQ(want.size(), 1u) << what;
  for (uint32_t scratch : {kDspDefaultScratchBytes, 16u * 1024, kDspMinScratchBytes}) {
    std::string placed;
    const auto got = RunOn(m, kExecutorDsp, scratch, &placed);
    ASSERT_EQ(got.size(), 1u) << what;
    EXPECT_EQ(placed, kExecutorDsp) << what << " at " << scratch;
    EXPECT_EQ(got[0].bytes, want[0].bytes) << what << " at " << scratch;
  }
}

TEST(DspMoveOps, TransposeMatchesTheCpuOnRandomPermutations) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 24; ++trial) {
    const size_t rank = 1 + trial % 5;
    Shape shape;
    for (size_t d = 0; d < rank; ++d)
      shape.push_back(1 + static_cast<int64_t>(rng() % (rank > 3 ? 9 : 40)));
    if (trial % 6 == 5) shape[0] = 1;
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Model m;
    const DType t = trial % 2 ? DType::kI8 : DType::kU8;
    const ValueId x = AddOperand(
        *m.graph, {RandomCodes(rng, t, shape), Zp(t == DType::kU8 ? 3 : -2)}, "x", &m.feeds);
    Attributes a;
    a.Set("perm", perm);
    m.graph->outputs().push_back(AddNode(*m.graph, OpType::kTranspose, "t", {x}, Zp(0), a));
    std::string what = "trial " + std::to_string(trial) + " shape " + ShapeToString(shape);
    ExpectSameOnDsp(m, what);
  }
}

// Resize of a u8 [1, c, h, w] by `scales` (or `sizes` when given), nearest.
Model MakeResize(int64_t c, int64_t h, int64_t w, std::vector<float> scales,
                 std::vector<int64_t> sizes, const std::string& coord, const std::string& nearest,
                 uint32_t seed) {
  Model m;
  Graph& g = *m.graph;
  std::mt19937 rng(seed);
  const ValueId x =
      AddOperand(g, {RandomCodes(rng, DType::kU8, {1, c, h, w}), Zp(9)}, "x", &m.feeds);
  ValueId sc = kNoValue, sz = kNoValue;
  if (!scales.empty()) {
    HostTensor s("", DType::kF32, {4});
    std::memcpy(s.bytes.data(), scales.data(), 16);
    sc = AddOperand(g, {s, {}, true}, "scales", &m.feeds);
  } else {
    HostTensor s("", DType::kI64, {4});
    std::memcpy(s.bytes.data(), sizes.data(), 32);
    sz = AddOperand(g, {s, {}, true}, "sizes", &m.feeds);
  }
  Attributes a;
  a.Set("mode", std::string("nearest"));
  a.Set("coordinate_transformation_mode", coord);
  a.Set("nearest_mode", nearest);
  g.outputs().push_back(AddNode(g, OpType::kResize, "r", {x, kNoValue, sc, sz}, Zp(9), a));
  return m;
}

TEST(DspMoveOps, NearestResizeMatchesTheCpu) {
  ExpectSameOnDsp(MakeResize(24, 20, 20, {1, 1, 2, 2}, {}, "asymmetric", "floor", 1), "x2");
  ExpectSameOnDsp(MakeResize(5, 7, 9, {1, 1, 3, 2}, {}, "asymmetric", "floor", 2), "x3 x2");
  ExpectSameOnDsp(MakeResize(3, 5, 6, {}, {1, 3, 8, 13}, "asymmetric", "floor", 3), "sizes up");
  ExpectSameOnDsp(MakeResize(4, 16, 12, {}, {1, 4, 5, 7}, "asymmetric", "floor", 4), "down");
  // half_pixel with round_prefer_floor at scale 2 maps o -> floor(o / 2) too.
  ExpectSameOnDsp(MakeResize(8, 11, 10, {1, 1, 2, 2}, {}, "half_pixel", "round_prefer_floor", 5),
                  "half_pixel x2");
  // align_corners 5 -> 8 does not: the CPU runs it, and says why the DSP does not.
  const Model other =
      MakeResize(2, 5, 5, {}, {1, 2, 8, 8}, "align_corners", "round_prefer_floor", 6);
  const auto reason = DspFallbackReason(*other.graph, other.graph->node(0));
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("floor(o * in / out)"), std::string::npos) << *reason;
}

}  // namespace
}  // namespace kiln
