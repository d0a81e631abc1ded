// The DSP row kernels: every flavour this CPU runs against the plain formula, on random codes,
// weights, zero points, lengths 0-100 and unaligned starts.
#include "backends/dsp/kernels/dsp_row.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln {
namespace {

TEST(DspRowKernels, EveryFlavourMatchesTheFormula) {
  std::mt19937 rng(42);
  const auto flavours = AvailableDspRowKernels();
  ASSERT_FALSE(flavours.empty());
  EXPECT_STREQ(flavours.front()->name, "portable");
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = rng() % 101, lead = rng() % 7;
    std::vector<uint8_t> x(static_cast<size_t>(n + lead));
    for (auto& v : x) v = static_cast<uint8_t>(rng());
    std::vector<int32_t> acc0(static_cast<size_t>(n + lead));
    for (auto& v : acc0) v = static_cast<int32_t>(rng() % 200001) - 100000;
    const int32_t w = static_cast<int32_t>(rng() % 511) - 255;
    const int32_t zero = static_cast<int32_t>(rng() % 256) - (trial % 2 ? 128 : 0);
    std::vector<int32_t> want_u = acc0, want_i = acc0;
    for (int64_t i = lead; i < n + lead; ++i) {
      want_u[static_cast<size_t>(i)] += w * (x[static_cast<size_t>(i)] - zero);
      want_i[static_cast<size_t>(i)] += w * (static_cast<int8_t>(x[static_cast<size_t>(i)]) - zero);
    }
    for (const DspRowKernels* k : flavours) {
      std::vector<int32_t> got_u = acc0, got_i = acc0;
      k->mac_u8(x.data() + lead, 0, got_u.data() + lead, 0, 1, n, 1, w, zero);
      k->mac_i8(reinterpret_cast<const int8_t*>(x.data()) + lead, 0, got_i.data() + lead, 0, 1, n,
                1, w, zero);
      ASSERT_EQ(got_u, want_u) << k->name << " u8 trial " << trial;
      ASSERT_EQ(got_i, want_i) << k->name << " i8 trial " << trial;
    }
  }
}

// Several rows with strides, column steps 1 and 2, contiguous rows (taken as one long row),
// and a buffer that ends at the last column read (ASan checks nothing past it is loaded).
TEST(DspRowKernels, RowsWithStrides) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    const int64_t n = 1 + rng() % 40, rows = 1 + rng() % 6;
    const bool contiguous = trial % 3 == 0;
    const int64_t step = trial % 2 ? 2 : 1;  // the convolution's horizontal stride
    const int64_t xs = contiguous && step == 1 ? n : step * n + rng() % 9;
    const int64_t as = contiguous ? n : n + rng() % 9;
    // Only the columns read exist past the last row (step 2: its last odd byte is not there).
    std::vector<uint8_t> x(static_cast<size_t>((rows - 1) * xs + (n - 1) * step + 1));
    for (auto& v : x) v = static_cast<uint8_t>(rng());
    std::vector<int32_t> acc0(static_cast<size_t>(rows * as));
    for (auto& v : acc0) v = static_cast<int32_t>(rng() % 2001) - 1000;
    const int32_t w = static_cast<int32_t>(rng() % 255) - 127,
                  zero = static_cast<int32_t>(rng() % 200);
    std::vector<int32_t> want = acc0;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < n; ++i) {
        want[static_cast<size_t>(r * as + i)] +=
            w * (x[static_cast<size_t>(r * xs + i * step)] - zero);
      }
    }
    for (const DspRowKernels* k : AvailableDspRowKernels()) {
      std::vector<int32_t> got = acc0;
      k->mac_u8(x.data(), xs, got.data(), as, rows, n, step, w, zero);
      ASSERT_EQ(got, want) << k->name << " trial " << trial;
      std::vector<int32_t> got_i = acc0, want_i = acc0;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < n; ++i) {
          want_i[static_cast<size_t>(r * as + i)] +=
              w * (static_cast<int8_t>(x[static_cast<size_t>(r * xs + i * step)]) - zero);
        }
      }
      k->mac_i8(reinterpret_cast<const int8_t*>(x.data()), xs, got_i.data(), as, rows, n, step, w,
                zero);
      ASSERT_EQ(got_i, want_i) << k->name << " i8 trial " << trial;
    }
  }
}

// The 4-channel dot product: every flavour (VNNI where the CPU has it) against the formula,
// steps 1 and 2, several rows, lengths 0-40, rows padded past the last 16-output group as the
// DSP convolution's interleaved copy is.
TEST(DspRowKernels, DotQ4EveryFlavourMatchesTheFormula) {
  std::mt19937 rng(7);
  const auto flavours = AvailableDspRowKernels();
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t n = rng() % 41, rows = 1 + rng() % 3, step = 1 + trial % 2;
    const int64_t row_bytes = ((n + 15) / 16 * 16) * step * 4 + 8;
    std::vector<uint8_t> x(static_cast<size_t>(rows * row_bytes));
    for (auto& v : x) v = static_cast<uint8_t>(rng());
    const auto w4 = static_cast<int32_t>(rng());
    std::vector<int32_t> acc0(static_cast<size_t>(rows * (n + 3)));
    for (auto& v : acc0) v = static_cast<int32_t>(rng() % 2000001) - 1000000;
    std::vector<int32_t> want = acc0;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < n; ++i) {
        int32_t dot = 0;
        for (int j = 0; j < 4; ++j) {
          const auto wj = static_cast<int8_t>(static_cast<uint32_t>(w4) >> (8 * j));
          dot += x[static_cast<size_t>(r * row_bytes + 4 * i * step + j)] * wj;
        }
        want[static_cast<size_t>(r * (n + 3) + i)] += dot;
      }
    }
    for (const DspRowKernels* k : flavours) {
      std::vector<int32_t> got = acc0;
      k->dot_q4(x.data(), row_bytes, got.data(), n + 3, rows, n, step, w4);
      ASSERT_EQ(got, want) << k->name << " trial " << trial << " n " << n << " step " << step;
    }
  }
}

}  // namespace
}  // namespace kiln
