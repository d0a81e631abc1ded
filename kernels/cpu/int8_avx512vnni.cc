// AVX-512 VNNI int8 micro-kernels: the GEMM on vpdpbusd (8 rows x 32 columns, 16 zmm
// accumulators, 4 reduction steps per instruction), the requantize epilogue in 64-bit lanes
// (even and odd int32 lanes widened, so Requantize's 64-bit product and shift are exact), and
// the depthwise accumulation on 16 int32 lanes.
#include "kernels/cpu/int8_impl.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
namespace {

inline __mmask16 Q8Mask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// Requantize of the int32 values in the low halves of the 64-bit lanes of x (sign ignored
// above bit 31: _mm512_mul_epi32 reads the low 32 bits as signed), saturated to int32.
inline __m512i Q8Rq64(__m512i x, __m512i mult, __m512i round, __m128i shift) {
  const __m512i v = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, mult), round), shift);
  return _mm512_min_epi64(_mm512_max_epi64(v, _mm512_set1_epi64(INT32_MIN)),
                          _mm512_set1_epi64(INT32_MAX));
}

// 16 codes of type t at p (masked) as int32.
inline __m512i Q8LoadCodes(const void* p, QType t, __mmask16 m) {
  const __m128i raw = _mm_maskz_loadu_epi8(m, p);
  return t == QType::kU8 ? _mm512_cvtepu8_epi32(raw) : _mm512_cvtepi8_epi32(raw);
}

// The low bytes of 16 int32 lanes (values in the output type's range: truncation keeps them).
// Narrowed in a register and stored whole where all 16 lanes are on: vpmovdb straight to
// memory under a mask is slow.
inline void Q8StoreBytes(uint8_t* y, __m512i v, __mmask16 m) {
  const __m128i b = _mm512_cvtepi32_epi8(v);
  if (m == 0xffff) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), b);
  } else {
    _mm_mask_storeu_epi8(y, m, b);
  }
}

// The 8-bit epilogue of 16 sums (no residual; see QRequantRowAvx512Vnni's common case) into
// 16 bytes at y under mask m.
struct Q8RowConsts {
  __m512i offset, zero, mult, round;
  __m128i shift;
  bool has_zero;
};
struct Q8OutConsts {
  __m512i out_zero, qmin, qmax, lo32;
};
inline Q8RowConsts Q8Row(const QRowParams& p) {
  return {_mm512_set1_epi32(p.offset),
          _mm512_set1_epi32(p.zero),
          _mm512_set1_epi64(p.requant.multiplier),
          _mm512_set1_epi64(int64_t{1} << (p.requant.shift - 1)),
          _mm_cvtsi32_si128(p.requant.shift),
          p.zero != 0};
}
inline Q8OutConsts Q8Out(const QRowParams& p) {
  return {_mm512_set1_epi64(p.out_zero), _mm512_set1_epi64(p.qmin), _mm512_set1_epi64(p.qmax),
          _mm512_set1_epi64(0xffffffffLL)};
}
inline void Q8RequantVec(__m512i d, const Q8RowConsts& r, const Q8OutConsts& o,
                         const int32_t* col_sum, uint8_t* y, __mmask16 m) {
  __m512i acc = _mm512_add_epi32(d, r.offset);
  if (r.has_zero) {
    acc = _mm512_sub_epi32(acc, _mm512_mullo_epi32(r.zero, _mm512_maskz_loadu_epi32(m, col_sum)));
  }
  __m512i ev = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(acc, r.mult), r.round), r.shift);
  __m512i od = _mm512_sra_epi64(
      _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(acc, 32), r.mult), r.round), r.shift);
  ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, o.out_zero), o.qmin), o.qmax);
  od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, o.out_zero), o.qmin), o.qmax);
  Q8StoreBytes(y, _mm512_or_si512(_mm512_and_si512(ev, o.lo32), _mm512_slli_epi64(od, 32)), m);
}

// With a residual (8-bit output): acc = SaturatingAdd(acc, Requantize(r - zr, Mr)) in 64-bit
// lanes, then requantized with Requantize's own saturation (QRequantRowAvx512Vnni's general
// path, for one vector).
struct Q8ResConsts {
  __m512i zero, mult, round;
  __m128i shift;
  QType type;
};
inline Q8ResConsts Q8Res(const QRowParams& p) {
  return {_mm512_set1_epi32(p.residual_zero), _mm512_set1_epi64(p.residual_requant.multiplier),
          _mm512_set1_epi64(int64_t{1} << (p.residual_requant.shift - 1)),
          _mm_cvtsi32_si128(p.residual_requant.shift), p.residual_type};
}
inline void Q8RequantVecResidual(__m512i d, const Q8RowConsts& r, const Q8ResConsts& res,
                                 const Q8OutConsts& o, const int32_t* col_sum,
                                 const uint8_t* residual, uint8_t* y, __mmask16 m) {
  __m512i acc = _mm512_add_epi32(d, r.offset);
  if (r.has_zero) {
    acc = _mm512_sub_epi32(acc, _mm512_mullo_epi32(r.zero, _mm512_maskz_loadu_epi32(m, col_sum)));
  }
  __m512i ev = _mm512_srai_epi64(_mm512_slli_epi64(acc, 32), 32);
  __m512i od = _mm512_srai_epi64(acc, 32);
  const __m512i rv = _mm512_sub_epi32(Q8LoadCodes(residual, res.type, m), res.zero);
  const __m512i lo = _mm512_set1_epi64(INT32_MIN), hi = _mm512_set1_epi64(INT32_MAX);
  ev = _mm512_min_epi64(
      _mm512_max_epi64(_mm512_add_epi64(ev, Q8Rq64(rv, res.mult, res.round, res.shift)), lo), hi);
  od = _mm512_min_epi64(
      _mm512_max_epi64(
          _mm512_add_epi64(od, Q8Rq64(_mm512_srli_epi64(rv, 32), res.mult, res.round, res.shift)),
          lo),
      hi);
  ev = Q8Rq64(ev, r.mult, r.round, r.shift);
  od = Q8Rq64(od, r.mult, r.round, r.shift);
  ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, o.out_zero), o.qmin), o.qmax);
  od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, o.out_zero), o.qmin), o.qmax);
  Q8StoreBytes(y, _mm512_or_si512(_mm512_and_si512(ev, o.lo32), _mm512_slli_epi64(od, 32)), m);
}

}  // namespace

void QGemmUkernelAvx512Vnni(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                            int32_t* d, int64_t ldd, int mr, int nr, bool accumulate) {
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
          c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
          c70 = c00, c71 = c00;
  const int32_t* aw = reinterpret_cast<const int32_t*>(a);
  for (int64_t g = 0; g < k4; ++g) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 64);
    b += b_stride;
    __m512i w = _mm512_set1_epi32(aw[0]);
    c00 = _mm512_dpbusd_epi32(c00, b0, w);
    c01 = _mm512_dpbusd_epi32(c01, b1, w);
    w = _mm512_set1_epi32(aw[1]);
    c10 = _mm512_dpbusd_epi32(c10, b0, w);
    c11 = _mm512_dpbusd_epi32(c11, b1, w);
    w = _mm512_set1_epi32(aw[2]);
    c20 = _mm512_dpbusd_epi32(c20, b0, w);
    c21 = _mm512_dpbusd_epi32(c21, b1, w);
    w = _mm512_set1_epi32(aw[3]);
    c30 = _mm512_dpbusd_epi32(c30, b0, w);
    c31 = _mm512_dpbusd_epi32(c31, b1, w);
    w = _mm512_set1_epi32(aw[4]);
    c40 = _mm512_dpbusd_epi32(c40, b0, w);
    c41 = _mm512_dpbusd_epi32(c41, b1, w);
    w = _mm512_set1_epi32(aw[5]);
    c50 = _mm512_dpbusd_epi32(c50, b0, w);
    c51 = _mm512_dpbusd_epi32(c51, b1, w);
    w = _mm512_set1_epi32(aw[6]);
    c60 = _mm512_dpbusd_epi32(c60, b0, w);
    c61 = _mm512_dpbusd_epi32(c61, b1, w);
    w = _mm512_set1_epi32(aw[7]);
    c70 = _mm512_dpbusd_epi32(c70, b0, w);
    c71 = _mm512_dpbusd_epi32(c71, b1, w);
    aw += kQGemmMr;
  }
  const __m512i rows[kQGemmMr][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                                     {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  const __mmask16 m0 = Q8Mask(nr), m1 = Q8Mask(nr > 16 ? nr - 16 : 0);
  for (int r = 0; r < mr; ++r) {
    int32_t* dr = d + r * ldd;
    __m512i v0 = rows[r][0], v1 = rows[r][1];
    if (accumulate) {
      v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, dr));
      v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, dr + 16));
    }
    _mm512_mask_storeu_epi32(dr, m0, v0);
    _mm512_mask_storeu_epi32(dr + 16, m1, v1);
  }
}

void QGemmRequantAvx512Vnni(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                            const QRowParams* rows, int mr, int nr, const int32_t* col_sum,
                            const uint8_t* residual, int64_t ldr, uint8_t* y, int64_t ldy) {
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
          c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
          c70 = c00, c71 = c00;
  const int32_t* aw = reinterpret_cast<const int32_t*>(a);
  for (int64_t g = 0; g < k4; ++g) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 64);
    b += b_stride;
    __m512i w = _mm512_set1_epi32(aw[0]);
    c00 = _mm512_dpbusd_epi32(c00, b0, w);
    c01 = _mm512_dpbusd_epi32(c01, b1, w);
    w = _mm512_set1_epi32(aw[1]);
    c10 = _mm512_dpbusd_epi32(c10, b0, w);
    c11 = _mm512_dpbusd_epi32(c11, b1, w);
    w = _mm512_set1_epi32(aw[2]);
    c20 = _mm512_dpbusd_epi32(c20, b0, w);
    c21 = _mm512_dpbusd_epi32(c21, b1, w);
    w = _mm512_set1_epi32(aw[3]);
    c30 = _mm512_dpbusd_epi32(c30, b0, w);
    c31 = _mm512_dpbusd_epi32(c31, b1, w);
    w = _mm512_set1_epi32(aw[4]);
    c40 = _mm512_dpbusd_epi32(c40, b0, w);
    c41 = _mm512_dpbusd_epi32(c41, b1, w);
    w = _mm512_set1_epi32(aw[5]);
    c50 = _mm512_dpbusd_epi32(c50, b0, w);
    c51 = _mm512_dpbusd_epi32(c51, b1, w);
    w = _mm512_set1_epi32(aw[6]);
    c60 = _mm512_dpbusd_epi32(c60, b0, w);
    c61 = _mm512_dpbusd_epi32(c61, b1, w);
    w = _mm512_set1_epi32(aw[7]);
    c70 = _mm512_dpbusd_epi32(c70, b0, w);
    c71 = _mm512_dpbusd_epi32(c71, b1, w);
    aw += kQGemmMr;
  }
  const __m512i tile[kQGemmMr][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                                     {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  const __mmask16 m0 = Q8Mask(nr), m1 = Q8Mask(nr > 16 ? nr - 16 : 0);
  const Q8OutConsts o = Q8Out(rows[0]);
  for (int r = 0; r < mr; ++r) {
    const Q8RowConsts rc = Q8Row(rows[r]);
    if (residual) {
      const Q8ResConsts res = Q8Res(rows[r]);
      const uint8_t* rr = residual + r * ldr;
      Q8RequantVecResidual(tile[r][0], rc, res, o, col_sum, rr, y + r * ldy, m0);
      if (nr > 16) {
        Q8RequantVecResidual(tile[r][1], rc, res, o, col_sum + 16, rr + 16, y + r * ldy + 16, m1);
      }
      continue;
    }
    Q8RequantVec(tile[r][0], rc, o, col_sum, y + r * ldy, m0);
    if (nr > 16) Q8RequantVec(tile[r][1], rc, o, col_sum + 16, y + r * ldy + 16, m1);
  }
}

void QGemmTapsAvx512Vnni(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                         const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr,
                         int nr) {
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
          c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
          c70 = c00, c71 = c00;
  const int32_t* aw = reinterpret_cast<const int32_t*>(a);
  for (int64_t t = 0; t < taps; ++t) {
    const uint8_t* bt = b + tap_off[t];
    for (int64_t g = 0; g < c4; ++g) {
      const __m512i b0 = _mm512_loadu_si512(bt);
      const __m512i b1 = _mm512_loadu_si512(bt + 64);
      bt += b_stride;
      __m512i w = _mm512_set1_epi32(aw[0]);
      c00 = _mm512_dpbusd_epi32(c00, b0, w);
      c01 = _mm512_dpbusd_epi32(c01, b1, w);
      w = _mm512_set1_epi32(aw[1]);
      c10 = _mm512_dpbusd_epi32(c10, b0, w);
      c11 = _mm512_dpbusd_epi32(c11, b1, w);
      w = _mm512_set1_epi32(aw[2]);
      c20 = _mm512_dpbusd_epi32(c20, b0, w);
      c21 = _mm512_dpbusd_epi32(c21, b1, w);
      w = _mm512_set1_epi32(aw[3]);
      c30 = _mm512_dpbusd_epi32(c30, b0, w);
      c31 = _mm512_dpbusd_epi32(c31, b1, w);
      w = _mm512_set1_epi32(aw[4]);
      c40 = _mm512_dpbusd_epi32(c40, b0, w);
      c41 = _mm512_dpbusd_epi32(c41, b1, w);
      w = _mm512_set1_epi32(aw[5]);
      c50 = _mm512_dpbusd_epi32(c50, b0, w);
      c51 = _mm512_dpbusd_epi32(c51, b1, w);
      w = _mm512_set1_epi32(aw[6]);
      c60 = _mm512_dpbusd_epi32(c60, b0, w);
      c61 = _mm512_dpbusd_epi32(c61, b1, w);
      w = _mm512_set1_epi32(aw[7]);
      c70 = _mm512_dpbusd_epi32(c70, b0, w);
      c71 = _mm512_dpbusd_epi32(c71, b1, w);
      aw += kQGemmMr;
    }
  }
  const __m512i rows[kQGemmMr][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                                     {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  const __mmask16 m0 = Q8Mask(nr), m1 = Q8Mask(nr > 16 ? nr - 16 : 0);
  for (int r = 0; r < mr; ++r) {
    int32_t* dr = d + r * ldd;
    __m512i v0 = rows[r][0], v1 = rows[r][1];
    _mm512_mask_storeu_epi32(dr, m0, v0);
    _mm512_mask_storeu_epi32(dr + 16, m1, v1);
  }
}

void QRequantRowAvx512Vnni(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                           int64_t n) {
  const __m512i offset = _mm512_set1_epi32(p.offset);
  const __m512i zero = _mm512_set1_epi32(p.zero);
  const __m512i mult = _mm512_set1_epi64(p.requant.multiplier);
  const __m512i round = _mm512_set1_epi64(int64_t{1} << (p.requant.shift - 1));
  const __m128i shift = _mm_cvtsi32_si128(p.requant.shift);
  const __m512i rmult = _mm512_set1_epi64(p.residual_requant.multiplier);
  const __m512i rround = _mm512_set1_epi64(int64_t{1} << (p.residual_requant.shift - 1));
  const __m128i rshift = _mm_cvtsi32_si128(p.residual_requant.shift);
  const __m512i rzero = _mm512_set1_epi32(p.residual_zero);
  const __m512i out_zero = _mm512_set1_epi64(p.out_zero);
  const __m512i qmin = _mm512_set1_epi64(p.qmin), qmax = _mm512_set1_epi64(p.qmax);
  const __m512i lo32 = _mm512_set1_epi64(0xffffffffLL);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 m = Q8Mask(n - j);
    __m512i acc = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, d + j), offset);
    if (p.zero) {
      acc =
          _mm512_sub_epi32(acc, _mm512_mullo_epi32(zero, _mm512_maskz_loadu_epi32(m, col_sum + j)));
    }
    if (!p.residual && p.out_type != QType::kI32) {
      // The common case, shortest: _mm512_mul_epi32 reads each 64-bit lane's low int32 (the
      // even elements; the odd ones shifted down), and the int32 saturation of Requantize is
      // left out: with qmin/qmax inside the 8-bit output range (the kernel's traits ensure it)
      // clamp(sat32(r) + zy) == clamp(r + zy).
      __m512i ev = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(acc, mult), round), shift);
      __m512i od = _mm512_sra_epi64(
          _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(acc, 32), mult), round), shift);
      ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, out_zero), qmin), qmax);
      od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, out_zero), qmin), qmax);
      const __m512i v = _mm512_or_si512(_mm512_and_si512(ev, lo32), _mm512_slli_epi64(od, 32));
      Q8StoreBytes(static_cast<uint8_t*>(y) + j, v, m);
      continue;
    }
    // Even lanes in the low halves of `ev`, odd lanes in those of `od` (sign-extended).
    __m512i ev = _mm512_srai_epi64(_mm512_slli_epi64(acc, 32), 32);
    __m512i od = _mm512_srai_epi64(acc, 32);
    if (p.residual) {
      const __m512i r = _mm512_sub_epi32(
          Q8LoadCodes(static_cast<const uint8_t*>(p.residual) + j, p.residual_type, m), rzero);
      const __m512i re = Q8Rq64(r, rmult, rround, rshift);
      const __m512i ro = Q8Rq64(_mm512_srli_epi64(r, 32), rmult, rround, rshift);
      const __m512i lo = _mm512_set1_epi64(INT32_MIN), hi = _mm512_set1_epi64(INT32_MAX);
      ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, re), lo), hi);
      od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, ro), lo), hi);
    }
    if (p.out_type == QType::kI32) {
      ev = _mm512_min_epi64(_mm512_max_epi64(ev, qmin), qmax);
      od = _mm512_min_epi64(_mm512_max_epi64(od, qmin), qmax);
      const __m512i v = _mm512_or_si512(_mm512_and_si512(ev, lo32), _mm512_slli_epi64(od, 32));
      _mm512_mask_storeu_epi32(static_cast<int32_t*>(y) + j, m, v);
      continue;
    }
    ev = Q8Rq64(ev, mult, round, shift);
    od = Q8Rq64(od, mult, round, shift);
    ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, out_zero), qmin), qmax);
    od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, out_zero), qmin), qmax);
    const __m512i v = _mm512_or_si512(_mm512_and_si512(ev, lo32), _mm512_slli_epi64(od, 32));
    Q8StoreBytes(static_cast<uint8_t*>(y) + j, v, m);
  }
}

void QRequantRowsAvx512Vnni(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                            const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n) {
  const Q8OutConsts o = Q8Out(rows[0]);
  for (int r = 0; r < mr; ++r) {
    const Q8RowConsts rc = Q8Row(rows[r]);
    const int32_t* dr = d + r * ldd;
    uint8_t* yr = y + r * ldy;
    for (int64_t j = 0; j < n; j += 16) {
      const __mmask16 m = Q8Mask(n - j);
      Q8RequantVec(_mm512_maskz_loadu_epi32(m, dr + j), rc, o, col_sum + j, yr + j, m);
    }
  }
}

void QGemvAvx512Vnni(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d) {
  // Two 32-byte weight groups per zmm: lanes 0-7 take group g's 8 rows, lanes 8-15 group g+1's;
  // the activation quads broadcast to match, and the halves summed at the end.
  __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0;
  const int32_t* xq = reinterpret_cast<const int32_t*>(x);
  int64_t g = 0;
  for (; g + 4 <= k4; g += 4) {
    const __m512i w0 = _mm512_loadu_si512(a + g * 32);
    const __m512i w1 = _mm512_loadu_si512(a + g * 32 + 64);
    const __m512i x0 = _mm512_mask_set1_epi32(_mm512_set1_epi32(xq[g]), 0xff00, xq[g + 1]);
    const __m512i x1 = _mm512_mask_set1_epi32(_mm512_set1_epi32(xq[g + 2]), 0xff00, xq[g + 3]);
    acc0 = _mm512_dpbusd_epi32(acc0, x0, w0);
    acc1 = _mm512_dpbusd_epi32(acc1, x1, w1);
  }
  for (; g + 2 <= k4; g += 2) {
    const __m512i w0 = _mm512_loadu_si512(a + g * 32);
    const __m512i x0 = _mm512_mask_set1_epi32(_mm512_set1_epi32(xq[g]), 0xff00, xq[g + 1]);
    acc0 = _mm512_dpbusd_epi32(acc0, x0, w0);
  }
  if (g < k4) {  // the last group alone, in the low half
    const __m512i w0 =
        _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + g * 32)));
    const __m512i x0 = _mm512_maskz_set1_epi32(0x00ff, xq[g]);
    acc0 = _mm512_dpbusd_epi32(acc0, x0, w0);
  }
  const __m512i s = _mm512_add_epi32(acc0, acc1);
  const __m256i r = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), r);
}

void QDwAccumulateAvx512Vnni(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc) {
  const int64_t taps = p.kernel_h * p.kernel_w;
  if (taps > kQDwMaxTaps) {
    Q8DwPortable(p, x, w, acc, 0);
    return;
  }
  // Each tap's offset from an output row's first input (phase plane and column folded in).
  int64_t off[kQDwMaxTaps];
  for (int64_t ky = 0, t = 0; ky < p.kernel_h; ++ky) {
    for (int64_t kx = 0; kx < p.kernel_w; ++kx, ++t) {
      const int64_t c = kx * p.dilation_w;
      off[t] = ky * p.dilation_h * p.row + (c % p.stride_w) * p.phase_stride + c / p.stride_w;
    }
  }
  const int64_t full = p.out_w / 32 * 32;
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    int32_t* arow = acc + oy * p.out_w;
    const int16_t* xrow = x + oy * p.stride_h * p.row;
    int64_t ox = 0;
    for (; ox < full; ox += 32) {  // two vectors per tap: one weight broadcast for both
      __m512i s0 = _mm512_setzero_si512(), s1 = s0;
      for (int64_t t = 0; t < taps; ++t) {
        const int16_t* xp = xrow + off[t] + ox;
        const __m512i wv = _mm512_set1_epi32(w[t]);
        const __m512i x0 =
            _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(xp)));
        const __m512i x1 =
            _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(xp + 16)));
        s0 = _mm512_add_epi32(s0, _mm512_mullo_epi32(x0, wv));
        s1 = _mm512_add_epi32(s1, _mm512_mullo_epi32(x1, wv));
      }
      _mm512_storeu_si512(arow + ox, s0);
      _mm512_storeu_si512(arow + ox + 16, s1);
    }
    for (; ox < p.out_w; ox += 16) {
      const __mmask16 m = Q8Mask(p.out_w - ox);
      __m512i s = _mm512_setzero_si512();
      for (int64_t t = 0; t < taps; ++t) {
        const int16_t* xp = xrow + off[t] + ox;
        const __m512i xv =
            _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(xp)));
        s = _mm512_add_epi32(s, _mm512_mullo_epi32(xv, _mm512_set1_epi32(w[t])));
      }
      _mm512_mask_storeu_epi32(arow + ox, m, s);
    }
  }
}

void QCentreAvx512Vnni(const uint8_t* src, int64_t n, bool is_signed, int32_t zero, int16_t* even,
                       int16_t* odd) {
  const __m512i z = _mm512_set1_epi16(static_cast<int16_t>(zero));
  if (!odd) {
    for (int64_t i = 0; i < n; i += 32) {  // the tail under a mask, not scalar
      const __mmask32 m = n - i >= 32 ? ~__mmask32{0} : (__mmask32{1} << (n - i)) - 1;
      const __m256i b = _mm256_maskz_loadu_epi8(m, src + i);
      const __m512i w = is_signed ? _mm512_cvtepi8_epi16(b) : _mm512_cvtepu8_epi16(b);
      _mm512_mask_storeu_epi16(even + i, m, _mm512_sub_epi16(w, z));
    }
    return;
  }
  for (int64_t i = 0; i < n; i += 64) {  // 32 even and 32 odd codes: the bytes of 16-bit lanes
    const int64_t left = n - i;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    const int64_t ne = (left >= 64 ? 64 : left + 1) / 2, no = (left >= 64 ? 64 : left) / 2;
    const __mmask32 me = ne >= 32 ? ~__mmask32{0} : (__mmask32{1} << ne) - 1;
    const __mmask32 mo = no >= 32 ? ~__mmask32{0} : (__mmask32{1} << no) - 1;
    const __m512i b = _mm512_maskz_loadu_epi8(m, src + i);
    const __m512i e = is_signed ? _mm512_srai_epi16(_mm512_slli_epi16(b, 8), 8)
                                : _mm512_and_si512(b, _mm512_set1_epi16(0x00ff));
    const __m512i o = is_signed ? _mm512_srai_epi16(b, 8) : _mm512_srli_epi16(b, 8);
    _mm512_mask_storeu_epi16(even + i / 2, me, _mm512_sub_epi16(e, z));
    _mm512_mask_storeu_epi16(odd + i / 2, mo, _mm512_sub_epi16(o, z));
  }
}

void QAddAvx512Vnni(const QAddParams& p, const void* a, const void* b, void* y, int64_t n) {
  const __m512i za = _mm512_set1_epi32(p.a_zero), zb = _mm512_set1_epi32(p.b_zero);
  const __m512i ma = _mm512_set1_epi64(p.ra.multiplier), mb = _mm512_set1_epi64(p.rb.multiplier);
  const __m512i mo = _mm512_set1_epi64(p.ro.multiplier);
  const __m512i rda = _mm512_set1_epi64(int64_t{1} << (p.ra.shift - 1));
  const __m512i rdb = _mm512_set1_epi64(int64_t{1} << (p.rb.shift - 1));
  const __m512i rdo = _mm512_set1_epi64(int64_t{1} << (p.ro.shift - 1));
  const __m128i sa = _mm_cvtsi32_si128(p.ra.shift), sb = _mm_cvtsi32_si128(p.rb.shift);
  const __m128i so = _mm_cvtsi32_si128(p.ro.shift);
  const __m512i zo = _mm512_set1_epi64(p.out_zero);
  const __m512i qmin = _mm512_set1_epi64(p.qmin), qmax = _mm512_set1_epi64(p.qmax);
  const __m512i lo32 = _mm512_set1_epi64(0xffffffffLL);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __mmask16 m = 0xffff;
    const __m512i av = _mm512_slli_epi32(
        _mm512_sub_epi32(Q8LoadCodes(static_cast<const uint8_t*>(a) + i, p.a_type, m), za), 20);
    const __m512i bv = _mm512_slli_epi32(
        _mm512_sub_epi32(Q8LoadCodes(static_cast<const uint8_t*>(b) + i, p.b_type, m), zb), 20);
    // Per 64-bit lane: a' + b' of the even (low) and odd (high) elements, wrapped to int32 as
    // the reference's int32 sum, then the output requantization.
    const __m512i se = _mm512_add_epi64(Q8Rq64(av, ma, rda, sa), Q8Rq64(bv, mb, rdb, sb));
    const __m512i sodd = _mm512_add_epi64(Q8Rq64(_mm512_srli_epi64(av, 32), ma, rda, sa),
                                          Q8Rq64(_mm512_srli_epi64(bv, 32), mb, rdb, sb));
    __m512i ev = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(se, mo), rdo), so);
    __m512i od = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(sodd, mo), rdo), so);
    ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, zo), qmin), qmax);
    od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, zo), qmin), qmax);
    const __m512i v = _mm512_or_si512(_mm512_and_si512(ev, lo32), _mm512_slli_epi64(od, 32));
    Q8StoreBytes(static_cast<uint8_t*>(y) + i, v, m);
  }
  Q8AddPortable(p, a, b, y, i, n);
}

void QuantizeF32Avx512Vnni(const float* x, int64_t n, float scale, int32_t zero, QType out,
                           void* y) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512 z = _mm512_set1_ps(static_cast<float>(zero));
  const __m512 lo = _mm512_set1_ps(out == QType::kU8 ? 0.f : -128.f);
  const __m512 hi = _mm512_set1_ps(out == QType::kU8 ? 255.f : 127.f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 q = _mm512_div_ps(_mm512_loadu_ps(x + i), s);  // IEEE: the scalar quotient
    // Half to even (the instruction's own rounding, not the FP environment's); |r| > 2^24 is
    // integral already and saturates, so adding the zero point in float is exact where it
    // matters. NaN becomes 0 before the zero point, as in the reference.
    __m512 r = _mm512_roundscale_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_add_ps(r, z);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(q, q, _CMP_UNORD_Q), _mm512_setzero_ps());
    r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(y) + i),
                     _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(r)));
  }
  Q8QuantizePortable(x, i, n, scale, zero, out, y);
}

#endif
}  // namespace kiln::cpu
