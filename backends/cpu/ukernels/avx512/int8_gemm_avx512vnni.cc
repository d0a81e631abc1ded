// AVX-512 VNNI int8 GEMM micro-kernels: the GEMM on vpdpbusd (8 rows x 32 columns, 16 zmm
// accumulators, 4 reduction steps per instruction), the requantize epilogue in 64-bit lanes
// (even and odd int32 lanes widened, so Requantize's 64-bit product and shift are exact), the
// GEMV, and the channel-quad interleave that makes the GEMM's B operand.
#include <algorithm>

#include "backends/cpu/kernels/int8_avx512_pack.h"
#include "backends/cpu/ukernels/avx512/int8_shared_avx512vnni.h"
#include "backends/cpu/ukernels/int8_impl.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
namespace {

// The epilogue of 16 sums (docs/quantization.md; QRowParams), in pieces shared by the tile
// epilogues and QRequantRowAvx512Vnni. Even elements are handled in the low halves of the
// 64-bit lanes of `ev`, odd ones in those of `od`, so Requantize's 64-bit product is exact.
// Built per row of every tile, so from memory broadcasts only (one load uop each): the
// multiplier as int32 lanes (vpmuldq reads the low int32 of each 64-bit lane), the high-half
// form's terms precomputed in QRowParams (DeriveHighHalf); the 64-bit form's rounding term
// and shift count are made where that form runs. Computed here from the shift with scalar
// shifts and broadcasts from general registers they were about half the row's epilogue.
struct Q8RowConsts {
  __m512i offset, zero, mult;
  int32_t shift;
  bool has_zero;
  // Requantize from the product's high 32 bits (Q8RequantHigh), with this rounding term and
  // shift: QRowParams::high_shift > 0, i.e. shift >= 33.
  bool high;
  __m512i round32;
  __m512i shift32;  // in every lane: vpsravd is one uop, vpsrad by an xmm count two
  // The sums started at `offset` (the fused GEMM's tile, Q8TileOffsets): not added again.
  bool offset_in_sums = false;
};
inline Q8PackConsts Q8Pack(const QRowParams& p) {
  return Q8Pack(p.out_zero, p.qmin, p.qmax, p.out_type == QType::kI8);
}
struct Q8ResConsts {
  __m512i zero, mult, round;
  QType type;
  __m512i shift;  // in every 64-bit lane
  // shift >= 8: |(r - zr) Mr| < 255 * 2^31, so the shifted term fits int32 unsaturated.
  bool fits32;
};
inline Q8RowConsts Q8Row(const QRowParams& p) {
  return {_mm512_set1_epi32(p.offset),
          _mm512_set1_epi32(p.zero),
          _mm512_set1_epi32(p.requant.multiplier),
          p.requant.shift,
          p.zero != 0,
          p.high_shift > 0,
          _mm512_set1_epi32(p.high_round),
          _mm512_set1_epi32(p.high_shift)};
}
inline Q8OutConsts Q8Out(const QRowParams& p) { return Q8Out(p.out_zero, p.qmin, p.qmax); }
inline Q8ResConsts Q8Res(const QRowParams& p) {
  return {_mm512_set1_epi32(p.residual_zero),
          _mm512_set1_epi64(p.residual_requant.multiplier),
          _mm512_set1_epi64(int64_t{1} << (p.residual_requant.shift - 1)),
          p.residual_type,
          _mm512_set1_epi64(p.residual_requant.shift),
          p.residual_requant.shift >= 8};
}

// d + offset - zero * col_sum (wrapping int32).
inline __m512i Q8Centred(__m512i d, const Q8RowConsts& r, const int32_t* col_sum, __mmask16 m) {
  const __m512i acc = r.offset_in_sums ? d : _mm512_add_epi32(d, r.offset);
  if (!r.has_zero) return acc;
  return _mm512_sub_epi32(acc, _mm512_mullo_epi32(r.zero, _mm512_maskz_loadu_epi32(m, col_sum)));
}

// ev/od += Requantize(residual - zr, Mr), saturated to int32 (SaturatingAdd).
inline void Q8AddResidual(__m512i& ev, __m512i& od, const Q8ResConsts& res, const uint8_t* residual,
                          __mmask16 m) {
  const __m512i rv = _mm512_sub_epi32(Q8LoadCodes(residual, res.type, m), res.zero);
  const __m512i re = Q8Rq64(rv, res.mult, res.round, res.shift);
  const __m512i ro = Q8Rq64(_mm512_srli_epi64(rv, 32), res.mult, res.round, res.shift);
  const __m512i lo = _mm512_set1_epi64(INT32_MIN), hi = _mm512_set1_epi64(INT32_MAX);
  ev = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ev, re), lo), hi);
  od = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(od, ro), lo), hi);
}

// A row's requantization in the high-half form (r.high).
inline __m512i Q8RequantHigh(__m512i acc, const Q8RowConsts& r) {
  return Q8RqHigh(acc, r.mult, r.round32, r.shift32);
}

// 8-bit output, no residual, the common case and the shortest: _mm512_mul_epi32 reads each
// 64-bit lane's low int32 (the even elements; the odd ones shifted down), and Requantize's
// int32 saturation is left out: with qmin/qmax inside the 8-bit output range (the kernel's
// traits ensure it) clamp(sat32(r) + zy) == clamp(r + zy).
inline void Q8RequantCentred(__m512i acc, const Q8RowConsts& r, const Q8OutConsts& o, uint8_t* y,
                             __mmask16 m) {
  if (r.high) {
    const __m512i v = _mm512_add_epi32(Q8RequantHigh(acc, r), o.out_zero32);
    Q8StoreBytes(y, _mm512_min_epi32(_mm512_max_epi32(v, o.qmin32), o.qmax32), m);
    return;
  }
  const __m512i round = _mm512_set1_epi64(int64_t{1} << (r.shift - 1));
  const __m512i shift = _mm512_set1_epi64(r.shift);
  const __m512i ev = Q8Rq64(acc, r.mult, round, shift, false);
  const __m512i od = Q8Rq64(_mm512_srli_epi64(acc, 32), r.mult, round, shift, false);
  Q8StoreBytes(y, Q8ClampJoin(ev, od, o, true), m);
}
inline void Q8RequantVec(__m512i d, const Q8RowConsts& r, const Q8OutConsts& o,
                         const int32_t* col_sum, uint8_t* y, __mmask16 m) {
  Q8RequantCentred(Q8Centred(d, r, col_sum, m), r, o, y, m);
}

// A whole row of 32 outputs (r.high): Q8RequantHigh on both vectors, then the
// zero point and clamps on packed lanes (int8_avx512_pack.h) and one permute to undo the
// packs' per-128-bit-lane order. 23 instructions for 32 outputs instead of 26 (two
// Q8RequantVec, whose vpmovdb are 2 uops each).
// Q8RequantRow32 from the centred sums.
inline void Q8RequantRow32Centred(__m512i acc0, __m512i acc1, const Q8RowConsts& r,
                                  const Q8PackConsts& pk, uint8_t* y, int nr) {
  const __m512i v0 = Q8RequantHigh(acc0, r);
  const __m512i v1 = Q8RequantHigh(acc1, r);
  const __m512i w = Q8PackWords(v0, v1, pk);
  // 128-bit lane k holds bytes of v0[4k..4k+3] then v1[4k..4k+3] (then the same again).
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i out =
      _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, Q8PackBytes(w, w, pk)));
  if (nr >= 32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), out);
  } else {
    _mm256_mask_storeu_epi8(y, static_cast<__mmask32>((uint64_t{1} << nr) - 1), out);
  }
}
// Two rows of 32 outputs (both r.high) from their centred sums: as Q8RequantRow32Centred, but
// the byte packs, clamps and permute serve both rows (that one packs its row twice), whose 32
// bytes end up in the two 256-bit halves.
inline void Q8RequantTwoRows32Centred(__m512i a0, __m512i a1, const Q8RowConsts& ra, __m512i b0,
                                      __m512i b1, const Q8RowConsts& rb, const Q8PackConsts& pk,
                                      uint8_t* ya, uint8_t* yb, int nr) {
  const __m512i wa = Q8PackWords(Q8RequantHigh(a0, ra), Q8RequantHigh(a1, ra), pk);
  const __m512i wb = Q8PackWords(Q8RequantHigh(b0, rb), Q8RequantHigh(b1, rb), pk);
  // 128-bit lane k: bytes of a0[4k..4k+3], a1[4k..4k+3], b0[4k..4k+3], b1[4k..4k+3].
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i both = _mm512_permutexvar_epi32(order, Q8PackBytes(wa, wb, pk));
  const __m256i out_a = _mm512_castsi512_si256(both), out_b = _mm512_extracti64x4_epi64(both, 1);
  if (nr >= 32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ya), out_a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(yb), out_b);
  } else {
    const auto m = static_cast<__mmask32>((uint64_t{1} << nr) - 1);
    _mm256_mask_storeu_epi8(ya, m, out_a);
    _mm256_mask_storeu_epi8(yb, m, out_b);
  }
}

inline void Q8RequantRow32(__m512i d0, __m512i d1, const Q8RowConsts& r, const Q8PackConsts& pk,
                           const int32_t* col_sum, uint8_t* y, int nr) {
  Q8RequantRow32Centred(Q8Centred(d0, r, col_sum, 0xffff),
                        Q8Centred(d1, r, col_sum + 16, Q8Mask(nr - 16)), r, pk, y, nr);
}

// Requantize(residual - zr, Mr) in 16 int32 lanes: the products in 64-bit lanes (|r - zr| <=
// 255, so they need up to 39 bits), rounded, shifted and saturated there, then joined.
inline __m512i Q8ResidualTerm(const Q8ResConsts& res, const uint8_t* residual, __mmask16 m) {
  const __m512i rv = _mm512_sub_epi32(Q8LoadCodes(residual, res.type, m), res.zero);
  __m512i re = Q8Rq64(rv, res.mult, res.round, res.shift, false);
  __m512i ro = Q8Rq64(_mm512_srli_epi64(rv, 32), res.mult, res.round, res.shift, false);
  if (!res.fits32) {
    re = Q8Sat32(re);
    ro = Q8Sat32(ro);
  }
  return _mm512_mask_blend_epi32(0xaaaa, re, _mm512_slli_epi64(ro, 32));
}

// a + b saturated to int32 (SaturatingAdd): where the wrapped sum's sign differs from both
// operands' it overflowed, towards INT32_MIN if a < 0 else INT32_MAX.
inline __m512i Q8SaturatingAdd(__m512i a, __m512i b) {
  const __m512i sum = _mm512_add_epi32(a, b);
  // (a ^ sum) & (b ^ sum): sign set where the sum overflowed.
  const __m512i flip = _mm512_ternarylogic_epi32(a, b, sum, 0x42);
  const __mmask16 over = _mm512_movepi32_mask(flip);
  const __m512i sat = _mm512_xor_si512(_mm512_srai_epi32(a, 31), _mm512_set1_epi32(INT32_MAX));
  return _mm512_mask_mov_epi32(sum, over, sat);
}

// 8-bit output with a residual: the centred sum plus the requantized residual (saturated),
// then the output requantization as without one, all in int32 lanes but the residual's
// products (they had all run in 64-bit lanes: 3.5x the epilogue time of a tile without).
inline void Q8RequantVecResidual(__m512i d, const Q8RowConsts& r, const Q8ResConsts& res,
                                 const Q8OutConsts& o, const int32_t* col_sum,
                                 const uint8_t* residual, uint8_t* y, __mmask16 m) {
  const __m512i acc =
      Q8SaturatingAdd(Q8Centred(d, r, col_sum, m), Q8ResidualTerm(res, residual, m));
  Q8RequantCentred(acc, r, o, y, m);
}

// The 8 x 32 int32 tile of the GEMM micro-kernels: 16 zmm accumulators. Always inlined into
// each entry point with constant indices, so the array lives in registers.
struct Q8Tile {
  __m512i c[kQGemmMr][2];
};

// One reduction step of 4 over the tile: 8 broadcast int32 quads of A (one per row) times the
// 32 columns' 4-byte groups at b (two zmm), by vpdpbusd.
__attribute__((always_inline)) inline void Q8TileStep(Q8Tile& t, const int32_t* aw,
                                                      const uint8_t* b) {
  const __m512i b0 = _mm512_loadu_si512(b);
  const __m512i b1 = _mm512_loadu_si512(b + 64);
#pragma GCC unroll 8
  for (int r = 0; r < kQGemmMr; ++r) {
    const __m512i w = _mm512_set1_epi32(aw[r]);
    t.c[r][0] = _mm512_dpbusd_epi32(t.c[r][0], b0, w);
    t.c[r][1] = _mm512_dpbusd_epi32(t.c[r][1], b1, w);
  }
}

__attribute__((always_inline)) inline Q8Tile Q8TileGemm(int64_t k4, const int32_t* aw,
                                                        const uint8_t* b, int64_t b_stride,
                                                        Q8Tile t) {
  for (int64_t g = 0; g < k4; ++g, b += b_stride, aw += kQGemmMr) Q8TileStep(t, aw, b);
  return t;
}

// The fused GEMM's tile starts at each row's offset (so the epilogue need not add it); rows
// past mr at 0.
__attribute__((always_inline)) inline Q8Tile Q8TileOffsets(const QRowParams* rows, int mr) {
  Q8Tile t;
#pragma GCC unroll 8
  for (int r = 0; r < kQGemmMr; ++r) {
    t.c[r][0] = t.c[r][1] = _mm512_set1_epi32(r < mr ? rows[r].offset : 0);
  }
  return t;
}
// Q8Row for a row of such a tile.
inline Q8RowConsts Q8RowOfOffsetTile(const QRowParams& p) {
  Q8RowConsts rc = Q8Row(p);
  rc.offset_in_sums = true;
  return rc;
}

__attribute__((always_inline)) inline Q8Tile Q8TileZero() {
  Q8Tile t;
#pragma GCC unroll 8
  for (int r = 0; r < kQGemmMr; ++r) t.c[r][0] = t.c[r][1] = _mm512_setzero_si512();
  return t;
}

// Rows [0, mr) and columns [0, nr) of the tile into d (added to what d holds if accumulate).
__attribute__((always_inline)) inline void Q8TileStore(const Q8Tile& t, int32_t* d, int64_t ldd,
                                                       int mr, int nr, bool accumulate) {
  const __mmask16 m0 = Q8Mask(nr), m1 = Q8Mask(nr > 16 ? nr - 16 : 0);
  for (int r = 0; r < mr; ++r) {
    int32_t* dr = d + r * ldd;
    __m512i v0 = t.c[r][0], v1 = t.c[r][1];
    if (accumulate) {
      v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, dr));
      v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, dr + 16));
    }
    _mm512_mask_storeu_epi32(dr, m0, v0);
    _mm512_mask_storeu_epi32(dr + 16, m1, v1);
  }
}

// Edge tiles (fewer rows or columns): rows in a loop, the tile read from memory. Out of line so
// that the whole tiles' paths keep the accumulators in registers (inlined, GCC stored the tile
// to the stack after every GEMM for this loop's sake).
__attribute__((noinline)) void Q8RequantEdgeTile(const Q8Tile& t, const QRowParams* rows, int mr,
                                                 int nr, const int32_t* col_sum,
                                                 const uint8_t* residual, int64_t ldr, uint8_t* y,
                                                 int64_t ldy) {
  const __mmask16 m0 = Q8Mask(nr), m1 = Q8Mask(nr > 16 ? nr - 16 : 0);
  const Q8OutConsts o = Q8Out(rows[0]);
  const Q8PackConsts pk = Q8Pack(rows[0]);
  for (int r = 0; r < mr; ++r) {
    const Q8RowConsts rc = Q8RowOfOffsetTile(rows[r]);
    if (residual) {
      const Q8ResConsts res = Q8Res(rows[r]);
      const uint8_t* rr = residual + r * ldr;
      Q8RequantVecResidual(t.c[r][0], rc, res, o, col_sum, rr, y + r * ldy, m0);
      if (nr > 16) {
        Q8RequantVecResidual(t.c[r][1], rc, res, o, col_sum + 16, rr + 16, y + r * ldy + 16, m1);
      }
      continue;
    }
    if (rc.high && nr > 16) {
      Q8RequantRow32(t.c[r][0], t.c[r][1], rc, pk, col_sum, y + r * ldy, nr);
      continue;
    }
    Q8RequantVec(t.c[r][0], rc, o, col_sum, y + r * ldy, m0);
    if (nr > 16) Q8RequantVec(t.c[r][1], rc, o, col_sum + 16, y + r * ldy + 16, m1);
  }
}

}  // namespace

void QGemmUkernelAvx512Vnni(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                            int32_t* d, int64_t ldd, int mr, int nr, bool accumulate) {
  const Q8Tile t = Q8TileGemm(k4, reinterpret_cast<const int32_t*>(a), b, b_stride, Q8TileZero());
  Q8TileStore(t, d, ldd, mr, nr, accumulate);
}

namespace {

// The fused epilogue of a tile started at its rows' offsets (Q8TileOffsets), the output
// constants (rows[0]'s, shared by the panels) made by the caller.
__attribute__((always_inline)) inline void Q8TileRequant(const Q8Tile& t, const QRowParams* rows,
                                                         int mr, int nr, const int32_t* col_sum,
                                                         const uint8_t* residual, int64_t ldr,
                                                         uint8_t* y, int64_t ldy,
                                                         const Q8OutConsts& o,
                                                         const Q8PackConsts& pk) {
  const __mmask16 m0 = Q8Mask(nr), m1 = Q8Mask(nr > 16 ? nr - 16 : 0);
  if (residual && mr == kQGemmMr && nr > 16) {
    // The same with a residual (unrolled for the same reason).
#pragma GCC unroll 8
    for (int r = 0; r < kQGemmMr; ++r) {
      const Q8RowConsts rc = Q8RowOfOffsetTile(rows[r]);
      const Q8ResConsts res = Q8Res(rows[r]);
      const uint8_t* rr = residual + r * ldr;
      if (rc.high) {
        const __m512i acc0 =
            Q8SaturatingAdd(Q8Centred(t.c[r][0], rc, col_sum, m0), Q8ResidualTerm(res, rr, m0));
        const __m512i acc1 = Q8SaturatingAdd(Q8Centred(t.c[r][1], rc, col_sum + 16, m1),
                                             Q8ResidualTerm(res, rr + 16, m1));
        Q8RequantRow32Centred(acc0, acc1, rc, pk, y + r * ldy, nr);
      } else {
        Q8RequantVecResidual(t.c[r][0], rc, res, o, col_sum, rr, y + r * ldy, m0);
        Q8RequantVecResidual(t.c[r][1], rc, res, o, col_sum + 16, rr + 16, y + r * ldy + 16, m1);
      }
    }
    return;
  }
  if (!residual && mr == kQGemmMr && nr > 16) {
    // A full tile: the row loop unrolled, so the accumulators stay in registers (a runtime
    // row index spills the tile to the stack and reloads it).
    const auto one_row = [&](int r, const Q8RowConsts& rc) __attribute__((always_inline)) {
      if (rc.high) {
        Q8RequantRow32(t.c[r][0], t.c[r][1], rc, pk, col_sum, y + r * ldy, nr);
      } else {
        Q8RequantVec(t.c[r][0], rc, o, col_sum, y + r * ldy, m0);
        Q8RequantVec(t.c[r][1], rc, o, col_sum + 16, y + r * ldy + 16, m1);
      }
    };
#pragma GCC unroll 4
    for (int r = 0; r < kQGemmMr; r += 2) {  // rows in pairs: Q8RequantTwoRows32Centred
      const Q8RowConsts ra = Q8RowOfOffsetTile(rows[r]), rb = Q8RowOfOffsetTile(rows[r + 1]);
      if (ra.high && rb.high) {
        Q8RequantTwoRows32Centred(Q8Centred(t.c[r][0], ra, col_sum, m0),
                                  Q8Centred(t.c[r][1], ra, col_sum + 16, m1), ra,
                                  Q8Centred(t.c[r + 1][0], rb, col_sum, m0),
                                  Q8Centred(t.c[r + 1][1], rb, col_sum + 16, m1), rb, pk,
                                  y + r * ldy, y + (r + 1) * ldy, nr);
      } else {
        one_row(r, ra);
        one_row(r + 1, rb);
      }
    }
    return;
  }
  Q8RequantEdgeTile(t, rows, mr, nr, col_sum, residual, ldr, y, ldy);
}

// One panel of QGemmRequantAvx512Vnni.
__attribute__((always_inline)) inline void Q8GemmRequantPanel(
    int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, const QRowParams* rows, int mr,
    int nr, const int32_t* col_sum, const uint8_t* residual, int64_t ldr, uint8_t* y, int64_t ldy,
    const Q8OutConsts& o, const Q8PackConsts& pk) {
  const Q8Tile t =
      Q8TileGemm(k4, reinterpret_cast<const int32_t*>(a), b, b_stride, Q8TileOffsets(rows, mr));
  Q8TileRequant(t, rows, mr, nr, col_sum, residual, ldr, y, ldy, o, pk);
}

}  // namespace

void QGemmRequantAvx512Vnni(int64_t k4, const int8_t* a, int64_t panels, const uint8_t* b,
                            int64_t b_stride, const QRowParams* rows, int mr, int nr,
                            const int32_t* col_sum, const uint8_t* residual, int64_t ldr,
                            uint8_t* y, int64_t ldy) {
  const Q8OutConsts o = Q8Out(rows[0]);
  const Q8PackConsts pk = Q8Pack(rows[0]);
  for (int64_t pi = 0; pi < panels; ++pi) {
    const int64_t row = pi * kQGemmMr;
    Q8GemmRequantPanel(k4, a + pi * k4 * kQGemmMr * kQGemmKGroup, b, b_stride, rows + row,
                       pi + 1 < panels ? kQGemmMr : mr, nr, col_sum,
                       residual ? residual + row * ldr : nullptr, ldr, y + row * ldy, ldy, o, pk);
  }
}

void QGemmTapsAvx512Vnni(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                         const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr,
                         int nr) {
  // The sums stay in registers across all taps (one store at the end, not one per tap).
  Q8Tile t = Q8TileZero();
  const int32_t* aw = reinterpret_cast<const int32_t*>(a);
  for (int64_t k = 0; k < taps; ++k, aw += c4 * kQGemmMr) {
    t = Q8TileGemm(c4, aw, b + tap_off[k], b_stride, t);
  }
  Q8TileStore(t, d, ldd, mr, nr, false);
}

void QGemmTapsRequantAvx512Vnni(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                                const uint8_t* b, int64_t b_stride, const QRowParams* rows, int mr,
                                int nr, const int32_t* col_sum, const uint8_t* residual,
                                int64_t ldr, uint8_t* y, int64_t ldy) {
  Q8Tile t = Q8TileOffsets(rows, mr);
  const int32_t* aw = reinterpret_cast<const int32_t*>(a);
  for (int64_t k = 0; k < taps; ++k, aw += c4 * kQGemmMr) {
    t = Q8TileGemm(c4, aw, b + tap_off[k], b_stride, t);
  }
  Q8TileRequant(t, rows, mr, nr, col_sum, residual, ldr, y, ldy, Q8Out(rows[0]), Q8Pack(rows[0]));
}

void QRequantRowAvx512Vnni(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                           int64_t n) {
  const Q8RowConsts rc = Q8Row(p);
  const Q8OutConsts o = Q8Out(p);
  const auto* residual = static_cast<const uint8_t*>(p.residual);
  const Q8ResConsts res = residual ? Q8Res(p) : Q8ResConsts{};
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 m = Q8Mask(n - j);
    const __m512i dv = _mm512_maskz_loadu_epi32(m, d + j);
    if (p.out_type != QType::kI32) {
      uint8_t* yj = static_cast<uint8_t*>(y) + j;
      if (residual) {
        Q8RequantVecResidual(dv, rc, res, o, col_sum + j, residual + j, yj, m);
      } else {
        Q8RequantVec(dv, rc, o, col_sum + j, yj, m);
      }
      continue;
    }
    // int32 output: the centred sum (plus the residual, saturated), clamped.
    const __m512i acc = Q8Centred(dv, rc, col_sum + j, m);
    __m512i ev = _mm512_srai_epi64(_mm512_slli_epi64(acc, 32), 32);
    __m512i od = _mm512_srai_epi64(acc, 32);
    if (residual) Q8AddResidual(ev, od, res, residual + j, m);
    _mm512_mask_storeu_epi32(static_cast<int32_t*>(y) + j, m, Q8ClampJoin(ev, od, o, false));
  }
}

void QRequantRowsAvx512Vnni(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                            const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n) {
  const Q8OutConsts o = Q8Out(rows[0]);
  const Q8PackConsts pk = Q8Pack(rows[0]);
  for (int r = 0; r < mr; ++r) {
    const Q8RowConsts rc = Q8Row(rows[r]);
    const int32_t* dr = d + r * ldd;
    uint8_t* yr = y + r * ldy;
    int64_t j = 0;
    if (rc.high) {  // 32 at a time on packed lanes while more than 16 remain
      for (; j + 16 < n; j += 32) {
        const int nr = static_cast<int>(std::min<int64_t>(32, n - j));
        Q8RequantRow32(_mm512_loadu_si512(dr + j),
                       _mm512_maskz_loadu_epi32(Q8Mask(nr - 16), dr + j + 16), rc, pk, col_sum + j,
                       yr + j, nr);
      }
    }
    for (; j < n; j += 16) {
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
        _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + g * 32)));
    const __m512i x0 = _mm512_maskz_set1_epi32(0x00ff, xq[g]);
    acc0 = _mm512_dpbusd_epi32(acc0, x0, w0);
  }
  const __m512i s = _mm512_add_epi32(acc0, acc1);
  const __m256i r = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), r);
}

// 64 columns per step: byte then word unpacks give, per 128-bit lane L, the quads of columns
// 16 L + 4 k.. in vector k; a 4x4 transpose of 128-bit lanes puts columns 16 m.. in vector m.
// The tail under masks (small planes are all tail: a 14-column row is one masked step).
void QInterleave4Avx512Vnni(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2,
                            const uint8_t* r3, int64_t n, int64_t rows, int64_t src_stride,
                            uint32_t flip, uint32_t* d, int64_t dst_stride) {
  const __m512i fl = _mm512_set1_epi32(static_cast<int32_t>(flip));
  const int64_t full = n / 64 * 64;
  const __mmask64 tail = (__mmask64{1} << (n - full)) - 1;  // made once for every row
  for (int64_t r = 0; r < rows; ++r, d += dst_stride) {
    const int64_t o = r * src_stride;
    for (int64_t i = 0; i < n; i += 64) {
      const int64_t left = n - i;
      const __mmask64 m = i < full ? ~__mmask64{0} : tail;
      const __m512i a = _mm512_maskz_loadu_epi8(m, r0 + o + i);
      const __m512i b = _mm512_maskz_loadu_epi8(m, r1 + o + i);
      const __m512i c = _mm512_maskz_loadu_epi8(m, r2 + o + i);
      const __m512i e = _mm512_maskz_loadu_epi8(m, r3 + o + i);
      const __m512i ab0 = _mm512_unpacklo_epi8(a, b), ab1 = _mm512_unpackhi_epi8(a, b);
      const __m512i ce0 = _mm512_unpacklo_epi8(c, e), ce1 = _mm512_unpackhi_epi8(c, e);
      const __m512i q0 = _mm512_unpacklo_epi16(ab0, ce0), q1 = _mm512_unpackhi_epi16(ab0, ce0);
      const __m512i q2 = _mm512_unpacklo_epi16(ab1, ce1), q3 = _mm512_unpackhi_epi16(ab1, ce1);
      const __m512i t0 = _mm512_shuffle_i32x4(q0, q1, 0x44);
      const __m512i t1 = _mm512_shuffle_i32x4(q2, q3, 0x44);
      const __m512i t2 = _mm512_shuffle_i32x4(q0, q1, 0xee);
      const __m512i t3 = _mm512_shuffle_i32x4(q2, q3, 0xee);
      const __m512i v[4] = {_mm512_shuffle_i32x4(t0, t1, 0x88), _mm512_shuffle_i32x4(t0, t1, 0xdd),
                            _mm512_shuffle_i32x4(t2, t3, 0x88), _mm512_shuffle_i32x4(t2, t3, 0xdd)};
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        const int64_t cols = left - 16 * k;
        if (cols <= 0) break;
        _mm512_mask_storeu_epi32(d + i + 16 * k, Q8Mask(cols), _mm512_xor_si512(v[k], fl));
      }
    }
  }
}

#endif
}  // namespace kiln::cpu
