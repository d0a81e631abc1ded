// Portable bodies of the int8 micro-kernels (int8_ukernels.h), with internal linkage: the
// portable table uses them, and ISA files reuse the parts they do not vectorise (each
// translation unit gets its own copy built with its own flags; see simd.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "backends/cpu/ukernels/int8_ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// docs/quantization.md's Requantize and the clamps, written out here (no calls into
// requantize.h's inline functions from ISA code).
inline int64_t Q8Clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}
inline int32_t Q8Requantize(int32_t x, Requant r) {
  const int64_t product = static_cast<int64_t>(x) * r.multiplier;
  const int64_t rounded = (product + (int64_t{1} << (r.shift - 1))) >> r.shift;
  return static_cast<int32_t>(Q8Clamp64(rounded, INT32_MIN, INT32_MAX));
}

inline int32_t Q8Load(const void* p, QType t, int64_t i) {
  return t == QType::kU8 ? static_cast<const uint8_t*>(p)[i] : static_cast<const int8_t*>(p)[i];
}

// One element of the epilogue (QRowParams) from its raw sum d and column sum s.
inline void Q8EpilogueOne(const QRowParams& p, int32_t d, int32_t s, void* y, int64_t j) {
  // Wrapping int32 arithmetic (unsigned): exact wherever the true accumulator fits.
  int32_t acc = static_cast<int32_t>(static_cast<uint32_t>(d) + static_cast<uint32_t>(p.offset) -
                                     static_cast<uint32_t>(p.zero) * static_cast<uint32_t>(s));
  if (p.residual) {
    const int32_t r =
        Q8Requantize(Q8Load(p.residual, p.residual_type, j) - p.residual_zero, p.residual_requant);
    acc = static_cast<int32_t>(Q8Clamp64(static_cast<int64_t>(acc) + r, INT32_MIN, INT32_MAX));
  }
  if (p.out_type == QType::kI32) {
    static_cast<int32_t*>(y)[j] = static_cast<int32_t>(Q8Clamp64(acc, p.qmin, p.qmax));
    return;
  }
  const int32_t v = static_cast<int32_t>(
      Q8Clamp64(static_cast<int64_t>(Q8Requantize(acc, p.requant)) + p.out_zero, p.qmin, p.qmax));
  if (p.out_type == QType::kU8) {
    static_cast<uint8_t*>(y)[j] = static_cast<uint8_t>(v);
  } else {
    static_cast<int8_t*>(y)[j] = static_cast<int8_t>(v);
  }
}

// Epilogue of elements [j0, n) of a row.
inline void Q8RequantRowPortable(const QRowParams& p, const int32_t* d, const int32_t* col_sum,
                                 void* y, int64_t j0, int64_t n) {
  for (int64_t j = j0; j < n; ++j) Q8EpilogueOne(p, d[j], p.zero ? col_sum[j] : 0, y, j);
}

inline void Q8RequantRowsPortable(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                                  const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n) {
  for (int r = 0; r < mr; ++r)
    Q8RequantRowPortable(rows[r], d + r * ldd, col_sum, y + r * ldy, 0, n);
}

inline void Q8GemvPortable(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d) {
  uint32_t acc[kQGemmMr] = {};
  for (int64_t g = 0; g < k4; ++g) {
    for (int r = 0; r < kQGemmMr; ++r) {
      int32_t s = 0;
      for (int q = 0; q < kQGemmKGroup; ++q) {
        s += static_cast<int32_t>(a[(g * kQGemmMr + r) * kQGemmKGroup + q]) *
             x[g * kQGemmKGroup + q];
      }
      acc[r] += static_cast<uint32_t>(s);
    }
  }
  for (int r = 0; r < kQGemmMr; ++r) d[r] = static_cast<int32_t>(acc[r]);
}

template <int kNr>
void Q8GemmPortable(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, int32_t* d,
                    int64_t ldd, int mr, int nr, bool accumulate) {
  int32_t acc[kQGemmMr][kNr] = {};
  for (int64_t g = 0; g < k4; ++g) {
    const int8_t* ag = a + g * kQGemmMr * kQGemmKGroup;
    const uint8_t* bg = b + g * b_stride;
    for (int r = 0; r < kQGemmMr; ++r) {
      for (int j = 0; j < kNr; ++j) {
        int32_t s = 0;
        for (int q = 0; q < kQGemmKGroup; ++q) {
          s += static_cast<int32_t>(ag[r * kQGemmKGroup + q]) * bg[j * kQGemmKGroup + q];
        }
        acc[r][j] =
            static_cast<int32_t>(static_cast<uint32_t>(acc[r][j]) + static_cast<uint32_t>(s));
      }
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) {
      d[r * ldd + j] = accumulate ? static_cast<int32_t>(static_cast<uint32_t>(d[r * ldd + j]) +
                                                         static_cast<uint32_t>(acc[r][j]))
                                  : acc[r][j];
    }
  }
}

// Output columns [ox0, out_w) of the depthwise accumulation (QDwParams), one tap at a time.
inline void Q8DwPortable(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc,
                         int64_t ox0) {
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    int32_t* arow = acc + oy * p.out_w;
    for (int64_t ox = ox0; ox < p.out_w; ++ox) arow[ox] = 0;
    for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
      const int16_t* xrow = x + (oy * p.stride_h + ky * p.dilation_h) * p.row;
      for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
        const int64_t c = kx * p.dilation_w;
        const int16_t* xp = xrow + (c % p.stride_w) * p.phase_stride + c / p.stride_w;
        const int32_t wv = w[ky * p.kernel_w + kx];
        for (int64_t ox = ox0; ox < p.out_w; ++ox) arow[ox] += wv * xp[ox];
      }
    }
  }
}

// Each depthwise tap's offset from an output row's first input (phase plane and column folded
// in), for the SIMD versions' inner loops; false when the window has more than kQDwMaxTaps taps.
inline bool Q8DwTapOffsets(const QDwParams& p, int64_t (&off)[kQDwMaxTaps]) {
  if (p.kernel_h * p.kernel_w > kQDwMaxTaps) return false;
  // Column c = kx * dilation_w is phase c % stride_w, index c / stride_w: both stepped along
  // kx without a division (this runs once per channel: divisions were most of a 7x7 plane's
  // time).
  for (int64_t ky = 0, t = 0; ky < p.kernel_h; ++ky) {
    int64_t phase = 0, index = 0;
    for (int64_t kx = 0; kx < p.kernel_w; ++kx, ++t) {
      off[t] = ky * p.dilation_h * p.row + phase * p.phase_stride + index;
      for (int64_t step = 0; step < p.dilation_w; ++step) {
        if (++phase == p.stride_w) {
          phase = 0;
          ++index;
        }
      }
    }
  }
  return true;
}

// Codes [i0, n) of QCentreFn.
inline void Q8CentrePortable(const uint8_t* src, int64_t i0, int64_t n, bool is_signed,
                             int32_t zero, int16_t* even, int16_t* odd) {
  for (int64_t i = i0; i < n; ++i) {
    const int32_t code = is_signed ? static_cast<int8_t>(src[i]) : src[i];
    const auto v = static_cast<int16_t>(code - zero);
    if (!odd) {
      even[i] = v;
    } else if (i % 2 == 0) {
      even[i / 2] = v;
    } else {
      odd[i / 2] = v;
    }
  }
}

// QAdd's int32 form for the SIMD tables (QAddAvx2, QAddAvx512Vnni), where the input shifts are
// >= 31 and the output's >= 33 (what the quantizer makes: the inputs' multipliers at most 1/2,
// the output's far smaller): each Requantize in the high-half form, (H + 2^(s - 33)) >>
// (s - 32) of the product's high 32 bits H. An input shift s below 33 runs as 33 on
// (a - za) 2^(20 + 33 - s) instead of 2^20 (below 2^30: the same quotient). Per input: the
// left shift of the centred codes, the rounding term and the right shift; for the output the
// last two.
struct Q8AddHighForm {
  int32_t lshift_a, round_a, rshift_a;
  int32_t lshift_b, round_b, rshift_b;
  int32_t round_o, rshift_o;
};
inline bool Q8AddHighApplies(const QAddParams& p) {
  const auto from = [](const Requant& r, int32_t lo) { return r.shift >= lo && r.shift <= 62; };
  return from(p.ra, 31) && from(p.rb, 31) && from(p.ro, 33);
}
inline Q8AddHighForm Q8AddHigh(const QAddParams& p) {
  const int32_t ea = p.ra.shift > 33 ? p.ra.shift : 33, eb = p.rb.shift > 33 ? p.rb.shift : 33;
  const auto round = [](int32_t s) { return int32_t{1} << (s - 33); };
  return {.lshift_a = 20 + ea - p.ra.shift,
          .round_a = round(ea),
          .rshift_a = ea - 32,
          .lshift_b = 20 + eb - p.rb.shift,
          .round_b = round(eb),
          .rshift_b = eb - 32,
          .round_o = round(p.ro.shift),
          .rshift_o = p.ro.shift - 32};
}

// Elements [i0, n) of QAddFn.
inline void Q8AddPortable(const QAddParams& p, const void* a, const void* b, void* y, int64_t i0,
                          int64_t n) {
  for (int64_t i = i0; i < n; ++i) {
    const int32_t av = Q8Requantize((Q8Load(a, p.a_type, i) - p.a_zero) * (int32_t{1} << 20), p.ra);
    const int32_t bv = Q8Requantize((Q8Load(b, p.b_type, i) - p.b_zero) * (int32_t{1} << 20), p.rb);
    const int32_t sum = static_cast<int32_t>(static_cast<uint32_t>(av) + static_cast<uint32_t>(bv));
    const auto v = static_cast<int32_t>(
        Q8Clamp64(static_cast<int64_t>(Q8Requantize(sum, p.ro)) + p.out_zero, p.qmin, p.qmax));
    if (p.out_type == QType::kU8) {
      static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(v);
    } else {
      static_cast<int8_t*>(y)[i] = static_cast<int8_t>(v);
    }
  }
}

// Elements [i0, n) of QMulScalarFn.
inline void Q8MulScalarPortable(const QMulParams& p, const uint8_t* a, int32_t b, uint8_t* y,
                                int64_t i0, int64_t n) {
  for (int64_t i = i0; i < n; ++i) {
    const int32_t v = static_cast<int32_t>(Q8Clamp64(
        static_cast<int64_t>(Q8Requantize((Q8Load(a, p.a_type, i) - p.a_zero) * b, p.requant)) +
            p.out_zero,
        p.qmin, p.qmax));
    y[i] = static_cast<uint8_t>(v);  // the code's byte (i8: two's complement)
  }
}

// Elements [i0, n) of QuantizeF32Fn (the reference's arithmetic, in float: rint of a float is
// the double path's result, and a sum past 2^24 saturates either way).
inline void Q8QuantizePortable(const float* x, int64_t i0, int64_t n, float scale, int32_t zero,
                               QType out, void* y) {
  const double lo = out == QType::kU8 ? 0 : -128, hi = out == QType::kU8 ? 255 : 127;
  for (int64_t i = i0; i < n; ++i) {
    const double d = static_cast<double>(x[i] / scale);  // divided in float, as the reference
    // Round half to even without the FP environment: truncate, then step away from zero past
    // a half, or at exactly a half when the truncation is odd. |d| >= 2^52 is integral.
    double t = d;
    if (d == d && d < 4503599627370496.0 && d > -4503599627370496.0) {
      const auto ti = static_cast<int64_t>(d);
      t = static_cast<double>(ti);
      const double frac = d - t, mag = frac < 0 ? -frac : frac;
      if (mag > 0.5 || (mag == 0.5 && (ti & 1) != 0)) t += d < 0 ? -1.0 : 1.0;
    }
    double v = d != d ? 0.0 : t + zero;  // NaN quantizes to 0, as in the reference
    v = v < lo ? lo : (v > hi ? hi : v);
    const auto c = static_cast<int32_t>(v);
    if (out == QType::kU8) {
      static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(c);
    } else {
      static_cast<int8_t*>(y)[i] = static_cast<int8_t>(c);
    }
  }
}

// QGemmRequantFn for an ISA without a fused one: its GEMM micro-kernel into a tile on the
// stack, then the portable epilogue per row.
template <QGemmUkernelFn kGemm>
void Q8GemmRequantVia(int64_t k4, const int8_t* a, int64_t panels, const uint8_t* b,
                      int64_t b_stride, const QRowParams* rows, int mr, int nr,
                      const int32_t* col_sum, const uint8_t* residual, int64_t ldr, uint8_t* y,
                      int64_t ldy) {
  int32_t d[kQGemmMr * 8];
  for (int64_t pi = 0; pi < panels; ++pi) {
    const int rows_p = pi + 1 < panels ? kQGemmMr : mr;
    kGemm(k4, a + pi * k4 * kQGemmMr * kQGemmKGroup, b, b_stride, d, 8, rows_p, nr, false);
    for (int r = 0; r < rows_p; ++r) {
      const int64_t row = pi * kQGemmMr + r;
      QRowParams p = rows[row];
      p.residual = residual ? residual + row * ldr : nullptr;
      Q8RequantRowPortable(p, d + r * 8, col_sum, y + row * ldy, 0, nr);
    }
  }
}

// QGemmTapsFn for an ISA without a fused one: one accumulating GEMM call per tap.
template <QGemmUkernelFn kGemm>
void Q8GemmTapsVia(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                   const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr, int nr) {
  for (int64_t t = 0; t < taps; ++t) {
    kGemm(c4, a + t * c4 * kQGemmMr * kQGemmKGroup, b + tap_off[t], b_stride, d, ldd, mr, nr,
          t > 0);
  }
}

}  // namespace
}  // namespace kiln::cpu
