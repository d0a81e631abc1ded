// AVX2 int8 micro-kernels (also what AVX-512 CPUs without VNNI run). AVX2 has no exact 8-bit
// dot product (vpmaddubsw saturates its int16 pair sums), so the GEMM widens: activation bytes
// split into even/odd int16 lanes, weight bytes sign-extended likewise, vpmaddwd (exact int32
// pair sums). 8 rows x 16 columns per call. The epilogue runs in vectors where the
// requantization's shift is 33 or more (the usual case: from the product's high 32 bits, no
// 64-bit arithmetic shift needed, which AVX2 lacks), the portable one elsewhere.
#include <algorithm>
#include <cstring>

#include "backends/cpu/ukernels/int8_impl.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX2__)

namespace {

// The 8 x 16 int32 tile of a QGemmUkernelFn call (row r, columns 8h..8h+7 in c[r][h]):
// activation bytes split into even/odd int16 lanes, each row's four weight bytes sign-extended
// likewise, vpmaddwd (exact int32 pair sums). Two passes of 4 rows x 16 columns: a row's
// sign-extended weights serve both column vectors (3 of the 8 vector uops per row and step
// went to sign-extending them with 8 columns), and 8 accumulators, 4 widened B vectors and 3
// weight temporaries fit the 16 registers (the tile alone, in L1: 1.15-1.26x against two 8 x 8
// calls). The accumulators are named locals: in an array GCC kept them in memory.
struct Q8Tile {
  __m256i c[kQGemmMr][2];
};

constexpr int64_t kNoOffset = 0;

// The int16 pairs vpmaddwd multiplies, from a vector of byte quads: bytes 0 and 2 of each
// dword in `even`, bytes 1 and 3 in `odd`, sign-extended (weights) or zero-extended (codes).
inline void Q8SignedPairs(__m256i v, __m256i& even, __m256i& odd) {
  even = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 8);
  odd = _mm256_srai_epi16(v, 8);
}
inline void Q8UnsignedPairs(__m256i v, __m256i& even, __m256i& odd) {
  even = _mm256_and_si256(v, _mm256_set1_epi16(0x00ff));
  odd = _mm256_srli_epi16(v, 8);
}

// One quad group's four products per int32 lane, from its int16 pairs (Q8UnsignedPairs of the
// codes, Q8SignedPairs of the weights): two vpmaddwd, exact.
inline __m256i Q8QuadDot(__m256i b02, __m256i b13, __m256i w02, __m256i w13) {
  return _mm256_add_epi32(_mm256_madd_epi16(b02, w02), _mm256_madd_epi16(b13, w13));
}

// Rows [R0, R0 + ROWS) over `taps` blocks of k4 groups (QGemmTapsFn; one tap at offset 0 for
// QGemmUkernelFn), the sums in registers across the taps: 4 rows x both column vectors (WIDE),
// or all 8 rows x the first, for a tile of at most 8 columns (a plane's last: 7x7's 49 = 3 x
// 16 + 1), where one B vector is widened per step and the second column vector is zero (about
// 0.6 of the instructions of two wide passes, which widen and multiply two B vectors twice).
template <int R0, int ROWS, bool WIDE>
__attribute__((always_inline)) inline void Q8GemmRows(int64_t k4, int64_t taps,
                                                      const int64_t* tap_off, const int8_t* a,
                                                      const uint8_t* b, int64_t b_stride,
                                                      Q8Tile* t) {
  static_assert((WIDE && ROWS == 4) || (!WIDE && R0 == 0 && ROWS == kQGemmMr),
                "8 accumulators: 4 rows x 2 vectors or 8 rows x 1");
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0,
          c7 = c0;
  const int32_t* aw = reinterpret_cast<const int32_t*>(a) + R0;  // taps' blocks in a row
  for (int64_t tap = 0; tap < taps; ++tap) {
    const uint8_t* bt = b + tap_off[tap];
    for (int64_t g = 0; g < k4; ++g) {
      // Per column: (b0, b2) and (b1, b3) as int16 pairs.
      __m256i b02, b13, x02, x13;
      Q8UnsignedPairs(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bt)), b02, b13);
      if constexpr (WIDE) {
        Q8UnsignedPairs(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bt + 32)), x02, x13);
      }
      bt += b_stride;
      // Row r's sums: c (first column vector) and, WIDE, e (the second). Named locals: in an
      // array GCC kept the accumulators in memory.
#define KILN_Q8_ROW(r, c, e)                                                    \
  {                                                                             \
    __m256i w02, w13;                                                           \
    Q8SignedPairs(_mm256_set1_epi32(aw[r]), w02, w13);                          \
    c = _mm256_add_epi32(c, Q8QuadDot(b02, b13, w02, w13));                     \
    if constexpr (WIDE) e = _mm256_add_epi32(e, Q8QuadDot(x02, x13, w02, w13)); \
  }
      if constexpr (WIDE) {
        KILN_Q8_ROW(0, c0, c4)
        KILN_Q8_ROW(1, c1, c5)
        KILN_Q8_ROW(2, c2, c6)
        KILN_Q8_ROW(3, c3, c7)
      } else {
        KILN_Q8_ROW(0, c0, c0)
        KILN_Q8_ROW(1, c1, c1)
        KILN_Q8_ROW(2, c2, c2)
        KILN_Q8_ROW(3, c3, c3)
        KILN_Q8_ROW(4, c4, c4)
        KILN_Q8_ROW(5, c5, c5)
        KILN_Q8_ROW(6, c6, c6)
        KILN_Q8_ROW(7, c7, c7)
      }
#undef KILN_Q8_ROW
      aw += kQGemmMr;
    }
  }
  if constexpr (WIDE) {
    t->c[R0][0] = c0, t->c[R0 + 1][0] = c1, t->c[R0 + 2][0] = c2, t->c[R0 + 3][0] = c3;
    t->c[R0][1] = c4, t->c[R0 + 1][1] = c5, t->c[R0 + 2][1] = c6, t->c[R0 + 3][1] = c7;
  } else {
    t->c[0][0] = c0, t->c[1][0] = c1, t->c[2][0] = c2, t->c[3][0] = c3;
    t->c[4][0] = c4, t->c[5][0] = c5, t->c[6][0] = c6, t->c[7][0] = c7;
    for (int r = 0; r < kQGemmMr; ++r) t->c[r][1] = _mm256_setzero_si256();
  }
}

// The whole tile; rows past mr are skipped where a pass holds none of them, and tiles of at
// most 8 columns take the one-pass narrow form.
__attribute__((always_inline)) inline void Q8GemmTile(int64_t k4, int64_t taps,
                                                      const int64_t* tap_off, const int8_t* a,
                                                      const uint8_t* b, int64_t b_stride, int mr,
                                                      int nr, Q8Tile* t) {
  if (nr <= 8 && mr > 4) {
    Q8GemmRows<0, kQGemmMr, false>(k4, taps, tap_off, a, b, b_stride, t);
    return;
  }
  Q8GemmRows<0, 4, true>(k4, taps, tap_off, a, b, b_stride, t);
  if (mr > 4) Q8GemmRows<4, 4, true>(k4, taps, tap_off, a, b, b_stride, t);
}

// Requantize (docs/quantization.md) of 8 int32 lanes when its shift s is in [33, 63]
// (QRowParams::high_shift > 0): from the product's high 32 bits H, (H + 2^(s-33)) >> (s - 32)
// exactly (as the VNNI epilogue's Q8RqHigh); vpmuldq on the even lanes and on the odd ones
// shifted down, the high halves blended back into 8 int32 lanes.
inline __m256i Q8RqHigh(__m256i x, __m256i mult, __m256i round32, __m256i shift32) {
  const __m256i ev = _mm256_mul_epi32(x, mult);
  const __m256i od = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), mult);
  const __m256i hi = _mm256_blend_epi32(_mm256_srli_epi64(ev, 32), od, 0xaa);
  return _mm256_srav_epi32(_mm256_add_epi32(hi, round32), shift32);
}

// a + b saturated to int32 (Q8Clamp64 of the 64-bit sum): where both have one sign and the
// wrapped sum the other, the bound of that sign.
inline __m256i Q8SaturatingAdd(__m256i a, __m256i b) {
  const __m256i sum = _mm256_add_epi32(a, b);
  const __m256i overflow = _mm256_and_si256(_mm256_xor_si256(a, sum), _mm256_xor_si256(b, sum));
  const __m256i bound =
      _mm256_xor_si256(_mm256_srai_epi32(a, 31), _mm256_set1_epi32(INT32_MAX));  // a < 0: MIN
  return _mm256_blendv_epi8(sum, bound, _mm256_srai_epi32(overflow, 31));
}

// 8 codes of type t at p (n of them) as int32.
inline __m256i Q8LoadCodes(const void* p, QType t, int n) {
  __m128i v;
  if (n == 8) {
    v = _mm_loadl_epi64(static_cast<const __m128i*>(p));
  } else {
    alignas(16) uint8_t raw[16] = {};
    for (int i = 0; i < n; ++i) raw[i] = static_cast<const uint8_t*>(p)[i];
    v = _mm_load_si128(reinterpret_cast<const __m128i*>(raw));
  }
  return t == QType::kU8 ? _mm256_cvtepu8_epi32(v) : _mm256_cvtepi8_epi32(v);
}

// The first n of 8 int32 lanes.
inline __m256i Q8FirstLanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// n (<= 8) int32 lanes whose values fit the 8-bit output type stored as bytes at y: the
// saturating packs keep such values; dwords 0 and 4 of the packed vector hold the 8 bytes.
inline void Q8StoreBytes(__m256i v, bool is_unsigned, uint8_t* y, int n) {
  const __m256i w = _mm256_packs_epi32(v, v);
  const __m256i bytes = is_unsigned ? _mm256_packus_epi16(w, w) : _mm256_packs_epi16(w, w);
  const __m128i out = _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0)));
  if (n == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y), out);
  } else {
    alignas(16) uint8_t bytes8[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(bytes8), out);
    for (int i = 0; i < n; ++i) y[i] = bytes8[i];
  }
}

// Requantize (docs/quantization.md) of 8 int32 lanes x with |x| <= 510 (residual codes less
// a zero point within 8 bits) and a shift s in [kQ8LowShiftMin, 32]: AVX2 has no 64-bit
// arithmetic shift, so the 64-bit products (vpmuldq, even and odd lanes) are biased by 2^62
// with the rounding term, shifted logically and the bias's quotient 2^(62 - s) taken off in
// the low 32 bits (floor division commutes with adding a multiple of 2^s). |x * multiplier|
// < 2^40, so the quotient fits int32 from s = 10 on: Requantize's saturation cannot act.
constexpr int32_t kQ8LowShiftMin = 10;
inline __m256i Q8RqLow(__m256i x, __m256i mult, __m256i round64, __m128i count, __m256i bias) {
  const __m256i ev = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, mult), round64), count);
  const __m256i od = _mm256_srl_epi64(
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), mult), round64), count);
  return _mm256_sub_epi32(_mm256_blend_epi32(ev, _mm256_slli_epi64(od, 32), 0xaa), bias);
}

// Whether a row's epilogue runs in vectors here: the high-half requantization for the output,
// 8-bit output, and for the residual either form (Q8RqHigh, or Q8RqLow where the codes' zero
// point fits 8 bits: a residual's scale is usually far above the accumulator's, so its shift
// is below 33); otherwise the portable epilogue (exact either way).
inline bool Q8VectorRow(const QRowParams& p, bool residual) {
  const int32_t rs = p.residual_requant.shift;
  const bool res_vector =
      (rs >= 33 && rs <= 63) ||
      (rs >= kQ8LowShiftMin && rs <= 32 && p.residual_zero >= -255 && p.residual_zero <= 255);
  return p.high_shift > 0 && p.out_type != QType::kI32 && (!residual || res_vector);
}

// A Q8VectorRow row's epilogue constants in vectors, made once per row: rebuilt per vector
// they were reloaded from QRowParams after every byte store (a uint8_t store may alias them).
struct Q8RowConsts {
  __m256i offset, zero, mult, round32, shift32, out_zero, qmin, qmax;
  __m256i res_zero, res_mult, res_round32, res_shift32;  // with a residual only
  __m256i res_round64, res_bias;                         // Q8RqLow's (res_high false)
  __m128i res_count;
  bool has_zero, out_unsigned, res_high;
  QType res_type;
};
inline Q8RowConsts Q8Row(const QRowParams& p, bool residual) {
  Q8RowConsts k;
  k.offset = _mm256_set1_epi32(p.offset);
  k.zero = _mm256_set1_epi32(p.zero);
  k.mult = _mm256_set1_epi32(p.requant.multiplier);
  k.round32 = _mm256_set1_epi32(p.high_round);
  k.shift32 = _mm256_set1_epi32(p.high_shift);
  k.out_zero = _mm256_set1_epi32(p.out_zero);
  k.qmin = _mm256_set1_epi32(p.qmin);
  k.qmax = _mm256_set1_epi32(p.qmax);
  k.has_zero = p.zero != 0;
  k.out_unsigned = p.out_type == QType::kU8;
  k.res_type = p.residual_type;
  k.res_zero = k.res_mult = k.res_round32 = k.res_shift32 = _mm256_setzero_si256();
  k.res_round64 = k.res_bias = _mm256_setzero_si256();
  k.res_count = _mm_setzero_si128();
  k.res_high = true;
  if (residual) {  // shift in [33, 63] or [kQ8LowShiftMin, 32] (Q8VectorRow)
    const int32_t rs = p.residual_requant.shift;
    k.res_zero = _mm256_set1_epi32(p.residual_zero);
    k.res_mult = _mm256_set1_epi32(p.residual_requant.multiplier);
    k.res_high = rs >= 33;
    if (k.res_high) {
      k.res_round32 = _mm256_set1_epi32(int32_t{1} << (rs - 33));
      k.res_shift32 = _mm256_set1_epi32(rs - 32);
    } else {
      k.res_round64 = _mm256_set1_epi64x((int64_t{1} << (rs - 1)) + (int64_t{1} << 62));
      k.res_bias = _mm256_set1_epi32(
          static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(1) << (62 - rs))));
      k.res_count = _mm_cvtsi32_si128(rs);
    }
  }
  return k;
}

// The epilogue of 8 sums d of columns [j, j + n) of a Q8VectorRow row into y + j, with the
// residual codes `residual` (its columns from j on) when not null.
inline void Q8EpilogueVec(const Q8RowConsts& k, const void* residual, __m256i d,
                          const int32_t* col_sum, uint8_t* y, int64_t j, int n) {
  __m256i acc = _mm256_add_epi32(d, k.offset);
  if (k.has_zero) {
    const __m256i cs = n == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_sum + j))
                              : _mm256_maskload_epi32(col_sum + j, Q8FirstLanes(n));
    acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(k.zero, cs));
  }
  if (residual) {
    const __m256i rv = _mm256_sub_epi32(
        Q8LoadCodes(static_cast<const uint8_t*>(residual) + j, k.res_type, n), k.res_zero);
    acc = Q8SaturatingAdd(
        acc, k.res_high ? Q8RqHigh(rv, k.res_mult, k.res_round32, k.res_shift32)
                        : Q8RqLow(rv, k.res_mult, k.res_round64, k.res_count, k.res_bias));
  }
  // Requantize's int32 saturation is left out: |H| <= 2^30 after the shift, and the clamp to
  // [qmin, qmax] inside the 8-bit range follows.
  __m256i v = _mm256_add_epi32(Q8RqHigh(acc, k.mult, k.round32, k.shift32), k.out_zero);
  v = _mm256_min_epi32(_mm256_max_epi32(v, k.qmin), k.qmax);
  Q8StoreBytes(v, k.out_unsigned, y + j, n);
}

// The tile's rows [0, mr), columns [0, nr) into d (added to d's sums where `accumulate`).
inline void Q8TileStore(const Q8Tile& t, int32_t* d, int64_t ldd, int mr, int nr, bool accumulate) {
  if (nr == 2 * 8) {
    for (int r = 0; r < mr; ++r) {
      for (int h = 0; h < 2; ++h) {
        auto* dst = reinterpret_cast<__m256i*>(d + r * ldd + h * 8);
        _mm256_storeu_si256(
            dst, accumulate ? _mm256_add_epi32(_mm256_loadu_si256(dst), t.c[r][h]) : t.c[r][h]);
      }
    }
    return;
  }
  alignas(32) int32_t tile[kQGemmMr][16];
  for (int r = 0; r < mr; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r]), t.c[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r] + 8), t.c[r][1]);
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) {
      int32_t* dst = d + r * ldd + j;
      *dst = accumulate ? static_cast<int32_t>(static_cast<uint32_t>(*dst) +
                                               static_cast<uint32_t>(tile[r][j]))
                        : tile[r][j];
    }
  }
}

}  // namespace

void QGemmUkernelAvx2(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, int32_t* d,
                      int64_t ldd, int mr, int nr, bool accumulate) {
  Q8Tile t;
  Q8GemmTile(k4, 1, &kNoOffset, a, b, b_stride, mr, nr, &t);
  Q8TileStore(t, d, ldd, mr, nr, accumulate);
}

// Every tap's GEMM into one register tile, stored once (one accumulating call per tap had
// stored and reloaded the 8 x 8 sums at every tap).
void QGemmTapsAvx2(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                   const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr, int nr) {
  Q8Tile t;
  Q8GemmTile(c4, taps, tap_off, a, b, b_stride, mr, nr, &t);
  Q8TileStore(t, d, ldd, mr, nr, false);
}

// The GEMM tile and its epilogue from registers: rows whose requantization takes the vector
// form never store their sums (mobilenetv2 int8 spent 29 % of its time in the portable
// epilogue of this call and 17 % in the GEMM).
namespace {
void Q8GemmRequantPanelAvx2(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                            const QRowParams* rows, int mr, int nr, const int32_t* col_sum,
                            const uint8_t* residual, int64_t ldr, uint8_t* y, int64_t ldy) {
  Q8Tile t;
  Q8GemmTile(k4, 1, &kNoOffset, a, b, b_stride, mr, nr, &t);
  for (int r = 0; r < mr; ++r) {
    const uint8_t* res = residual ? residual + r * ldr : nullptr;
    if (Q8VectorRow(rows[r], res != nullptr)) {
      const Q8RowConsts k = Q8Row(rows[r], res != nullptr);
      Q8EpilogueVec(k, res, t.c[r][0], col_sum, y + r * ldy, 0, nr < 8 ? nr : 8);
      if (nr > 8) Q8EpilogueVec(k, res, t.c[r][1], col_sum, y + r * ldy, 8, nr - 8);
    } else {
      alignas(32) int32_t d[16];
      _mm256_store_si256(reinterpret_cast<__m256i*>(d), t.c[r][0]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + 8), t.c[r][1]);
      QRowParams p = rows[r];
      p.residual = res;
      Q8RequantRowPortable(p, d, col_sum, y + r * ldy, 0, nr);
    }
  }
}
}  // namespace

void QGemmRequantAvx2(int64_t k4, const int8_t* a, int64_t panels, const uint8_t* b,
                      int64_t b_stride, const QRowParams* rows, int mr, int nr,
                      const int32_t* col_sum, const uint8_t* residual, int64_t ldr, uint8_t* y,
                      int64_t ldy) {
  for (int64_t pi = 0; pi < panels; ++pi) {
    const int64_t row = pi * kQGemmMr;
    Q8GemmRequantPanelAvx2(k4, a + pi * k4 * kQGemmMr * kQGemmKGroup, b, b_stride, rows + row,
                           pi + 1 < panels ? kQGemmMr : mr, nr, col_sum,
                           residual ? residual + row * ldr : nullptr, ldr, y + row * ldy, ldy);
  }
}

// One weight group (8 rows x 4 bytes, one ymm) is row r's quad in int32 lane r: its bytes 0, 2
// and 1, 3 sign-extended as int16 pairs against the activation quad's, zero-extended; two
// vpmaddwd give each row the group's four products (exact). Two groups per step in two
// chains. The portable loop had made the FC layers of int8 models 3.7 % of mobilenetv2.
void QGemvAvx2(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d) {
  const auto* xq = reinterpret_cast<const int32_t*>(x);
  __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0;
  const auto group = [&](int64_t g, __m256i & acc) __attribute__((always_inline)) {
    __m256i w02, w13, x02, x13;
    Q8SignedPairs(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + g * 32)), w02, w13);
    Q8UnsignedPairs(_mm256_set1_epi32(xq[g]), x02, x13);
    acc = _mm256_add_epi32(acc, Q8QuadDot(x02, x13, w02, w13));
  };
  int64_t g = 0;
  for (; g + 2 <= k4; g += 2) {
    group(g, acc0);
    group(g + 1, acc1);
  }
  if (g < k4) group(g, acc0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_add_epi32(acc0, acc1));
}

namespace {

// Quads of 32 columns (byte then word unpacks within the 128-bit lanes, then the lanes put in
// column order) XOR flip, `cols` (<= 32) of them stored at d.
inline void Q8Interleave32(__m256i a, __m256i b, __m256i c, __m256i e, __m256i fl, uint32_t* d,
                           int64_t cols) {
  const __m256i ab0 = _mm256_unpacklo_epi8(a, b), ab1 = _mm256_unpackhi_epi8(a, b);
  const __m256i ce0 = _mm256_unpacklo_epi8(c, e), ce1 = _mm256_unpackhi_epi8(c, e);
  // Lane 0 / lane 1: columns 0-3 / 16-19, 4-7 / 20-23, 8-11 / 24-27, 12-15 / 28-31.
  const __m256i q0 = _mm256_unpacklo_epi16(ab0, ce0), q1 = _mm256_unpackhi_epi16(ab0, ce0);
  const __m256i q2 = _mm256_unpacklo_epi16(ab1, ce1), q3 = _mm256_unpackhi_epi16(ab1, ce1);
  const __m256i v[4] = {
      _mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q2, q3, 0x20),
      _mm256_permute2x128_si256(q0, q1, 0x31), _mm256_permute2x128_si256(q2, q3, 0x31)};
  if (cols == 32) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 8 * k), _mm256_xor_si256(v[k], fl));
    }
    return;
  }
  alignas(32) uint32_t quads[32];
  for (int k = 0; k < 4; ++k) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(quads + 8 * k), _mm256_xor_si256(v[k], fl));
  }
  std::memcpy(d, quads, static_cast<size_t>(cols) * 4);
}

inline __m256i Q8LoadTail(const uint8_t* p, int64_t n) {
  alignas(32) uint8_t part[32] = {};
  std::memcpy(part, p, static_cast<size_t>(n));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(part));
}

}  // namespace

// 32 columns per step; a row's last partial step through zero-padded copies (the 28- and
// 14-wide rows of padded 3x3 layers are all tail). The portable (SSE2) interleave had been 6 %
// of mobilenetv2 int8, and without an interleave4 the pointwise layers could not interleave
// their columns inside the GEMM's parallel section (QConvCpu::columns_per_share_).
void QInterleave4Avx2(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const uint8_t* r3,
                      int64_t n, int64_t rows, int64_t src_stride, uint32_t flip, uint32_t* d,
                      int64_t dst_stride) {
  const __m256i fl = _mm256_set1_epi32(static_cast<int32_t>(flip));
  for (int64_t r = 0; r < rows; ++r, d += dst_stride) {
    const int64_t o = r * src_stride;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const auto load = [&](const uint8_t* p) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + o + i));
      };
      Q8Interleave32(load(r0), load(r1), load(r2), load(r3), fl, d + i, 32);
    }
    if (i < n) {
      const int64_t left = n - i;
      Q8Interleave32(Q8LoadTail(r0 + o + i, left), Q8LoadTail(r1 + o + i, left),
                     Q8LoadTail(r2 + o + i, left), Q8LoadTail(r3 + o + i, left), fl, d + i, left);
    }
  }
}

// QAdd in int32 lanes but the products (Q8AddHighForm), 8 lanes at a time; the rescaled
// inputs' sum wraps like the reference's (WrappingAdd). Other shifts, and the last n % 8
// elements, run portably (the portable loop had made the zoo mobilenetv2-12-int8's adds 11 %
// of its time).
void QAddAvx2(const QAddParams& p, const void* a, const void* b, void* y, int64_t n) {
  int64_t i = 0;
  if (Q8AddHighApplies(p)) {
    const Q8AddHighForm f = Q8AddHigh(p);
    const __m256i za = _mm256_set1_epi32(p.a_zero), zb = _mm256_set1_epi32(p.b_zero);
    const __m256i pa = _mm256_set1_epi32(f.lshift_a), pb = _mm256_set1_epi32(f.lshift_b);
    const __m256i ma = _mm256_set1_epi32(p.ra.multiplier), mb = _mm256_set1_epi32(p.rb.multiplier);
    const __m256i mo = _mm256_set1_epi32(p.ro.multiplier);
    const __m256i rda = _mm256_set1_epi32(f.round_a), rdb = _mm256_set1_epi32(f.round_b);
    const __m256i rdo = _mm256_set1_epi32(f.round_o);
    const __m256i sa = _mm256_set1_epi32(f.rshift_a), sb = _mm256_set1_epi32(f.rshift_b);
    const __m256i so = _mm256_set1_epi32(f.rshift_o);
    const __m256i zo = _mm256_set1_epi32(p.out_zero);
    const __m256i lo = _mm256_set1_epi32(p.qmin), hi = _mm256_set1_epi32(p.qmax);
    const auto* a8 = static_cast<const uint8_t*>(a);
    const auto* b8 = static_cast<const uint8_t*>(b);
    auto* y8 = static_cast<uint8_t*>(y);
    for (; i + 8 <= n; i += 8) {
      const __m256i av =
          _mm256_sllv_epi32(_mm256_sub_epi32(Q8LoadCodes(a8 + i, p.a_type, 8), za), pa);
      const __m256i bv =
          _mm256_sllv_epi32(_mm256_sub_epi32(Q8LoadCodes(b8 + i, p.b_type, 8), zb), pb);
      const __m256i sum = _mm256_add_epi32(Q8RqHigh(av, ma, rda, sa), Q8RqHigh(bv, mb, rdb, sb));
      const __m256i v = _mm256_add_epi32(Q8RqHigh(sum, mo, rdo, so), zo);
      Q8StoreBytes(_mm256_min_epi32(_mm256_max_epi32(v, lo), hi), p.out_type == QType::kU8, y8 + i,
                   8);
    }
  }
  Q8AddPortable(p, a, b, y, i, n);
}

void QRequantRowAvx2(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                     int64_t n) {
  if (!Q8VectorRow(p, p.residual != nullptr)) {
    Q8RequantRowPortable(p, d, col_sum, y, 0, n);
    return;
  }
  const Q8RowConsts k = Q8Row(p, p.residual != nullptr);
  auto* out = static_cast<uint8_t*>(y);
  for (int64_t j = 0; j < n; j += 8) {
    const int cnt = static_cast<int>(n - j < 8 ? n - j : 8);
    const __m256i dv = cnt == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + j))
                                : _mm256_maskload_epi32(d + j, Q8FirstLanes(cnt));
    Q8EpilogueVec(k, p.residual, dv, col_sum, out, j, cnt);
  }
}

void QRequantRowsAvx2(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                      const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n) {
  for (int r = 0; r < mr; ++r) QRequantRowAvx2(rows[r], d + r * ldd, col_sum, y + r * ldy, n);
}

// QuantizeLinear (the reference's arithmetic): x / scale in float, rounded half to even
// (vroundps: the double path's result, the quotient being a float), + zero, clamped; NaN
// quantizes to 0.
void QuantizeF32Avx2(const float* x, int64_t n, float scale, int32_t zero, QType out, void* y) {
  const __m256 sv = _mm256_set1_ps(scale), zv = _mm256_set1_ps(static_cast<float>(zero));
  const __m256 lo = _mm256_set1_ps(out == QType::kU8 ? 0.f : -128.f);
  const __m256 hi = _mm256_set1_ps(out == QType::kU8 ? 255.f : 127.f);
  auto* dst = static_cast<uint8_t*>(y);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_div_ps(_mm256_loadu_ps(x + i), sv);
    const __m256 t = _mm256_round_ps(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 v = _mm256_and_ps(_mm256_add_ps(t, zv), _mm256_cmp_ps(d, d, _CMP_ORD_Q));
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    Q8StoreBytes(_mm256_cvttps_epi32(v), out == QType::kU8, dst + i, 8);
  }
  Q8QuantizePortable(x, i, n, scale, zero, out, y);
}

// Taps in pairs: the two taps' 16 inputs interleaved as int16 pairs (unpacklo / unpackhi,
// per 128-bit lane) and one vpmaddwd with the broadcast weight pair per 8 outputs (exact:
// centred inputs and weights fit int16, a pair's sum int32); 16 outputs per step. The single
// tap per step widened to int32 and multiplied with vpmulld had been 30 % of mobilenetv2
// int8's time.
void QDwAccumulateAvx2(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc) {
  const int64_t taps = p.kernel_h * p.kernel_w;
  int64_t tap_off[kQDwMaxTaps];
  if (!Q8DwTapOffsets(p, tap_off)) {
    Q8DwPortable(p, x, w, acc, 0);
    return;
  }
  // An odd last tap pairs with itself under a zero weight.
  const int64_t pairs = (taps + 1) / 2;
  int64_t off[kQDwMaxTaps + 1];
  for (int64_t t = 0; t < taps; ++t) off[t] = tap_off[t];
  off[taps] = tap_off[taps - 1];
  int32_t wp[(kQDwMaxTaps + 1) / 2];
  for (int64_t q = 0; q < pairs; ++q) {
    const int32_t w1 = 2 * q + 1 < taps ? w[2 * q + 1] : 0;
    wp[q] = static_cast<int32_t>((static_cast<uint32_t>(w[2 * q]) & 0xffffu) |
                                 (static_cast<uint32_t>(w1) << 16));
  }
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    int32_t* arow = acc + oy * p.out_w;
    const int16_t* xrow = x + oy * p.stride_h * p.row;
    // Rows are readable to a multiple of 32 outputs: the last block reads whole vectors and
    // stores only its outputs.
    for (int64_t ox = 0; ox < p.out_w; ox += 16) {
      __m256i lo = _mm256_setzero_si256(), hi = lo;
      for (int64_t q = 0; q < pairs; ++q) {
        const __m256i a =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xrow + off[2 * q] + ox));
        const __m256i b =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xrow + off[2 * q + 1] + ox));
        const __m256i wv = _mm256_set1_epi32(wp[q]);
        lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wv));
        hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wv));
      }
      // lo holds outputs 0-3 | 8-11, hi 4-7 | 12-15.
      const __m256i first = _mm256_permute2x128_si256(lo, hi, 0x20);
      const __m256i second = _mm256_permute2x128_si256(lo, hi, 0x31);
      if (ox + 16 <= p.out_w) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(arow + ox), first);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(arow + ox + 8), second);
      } else {
        alignas(32) int32_t tail[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tail), first);
        _mm256_store_si256(reinterpret_cast<__m256i*>(tail + 8), second);
        for (int64_t i = 0; i < p.out_w - ox; ++i) arow[ox + i] = tail[i];
      }
    }
  }
}

namespace {

// Codes [i, i + 16) of a row centred into e + i.
inline void Q8Centre16(const uint8_t* s, int64_t i, bool is_signed, __m256i zv, int16_t* e) {
  const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
  const __m256i v = is_signed ? _mm256_cvtepi8_epi16(raw) : _mm256_cvtepu8_epi16(raw);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(e + i), _mm256_sub_epi16(v, zv));
}

// Codes [i, i + 32) (i even) split into e + i / 2 (even codes) and o + i / 2 (odd ones): word k
// holds codes 2k (low byte) and 2k + 1 (high byte), so both come out in order by word shifts.
inline void Q8CentreSplit32(const uint8_t* s, int64_t i, bool is_signed, __m256i zv, int16_t* e,
                            int16_t* o) {
  const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
  const __m256i ev = is_signed ? _mm256_srai_epi16(_mm256_slli_epi16(raw, 8), 8)
                               : _mm256_and_si256(raw, _mm256_set1_epi16(0x00ff));
  const __m256i od = is_signed ? _mm256_srai_epi16(raw, 8) : _mm256_srli_epi16(raw, 8);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(e + i / 2), _mm256_sub_epi16(ev, zv));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i / 2), _mm256_sub_epi16(od, zv));
}

// The same for 8 codes, and 16 split into 8 + 8 (rows of 8-31 codes: 14x14 and 28x28 planes).
inline void Q8Centre8(const uint8_t* s, int64_t i, bool is_signed, __m128i zv, int16_t* e) {
  const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i));
  const __m128i v = is_signed ? _mm_cvtepi8_epi16(raw) : _mm_cvtepu8_epi16(raw);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(e + i), _mm_sub_epi16(v, zv));
}
inline void Q8CentreSplit16(const uint8_t* s, int64_t i, bool is_signed, __m128i zv, int16_t* e,
                            int16_t* o) {
  const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
  const __m128i ev = is_signed ? _mm_srai_epi16(_mm_slli_epi16(raw, 8), 8)
                               : _mm_and_si128(raw, _mm_set1_epi16(0x00ff));
  const __m128i od = is_signed ? _mm_srai_epi16(raw, 8) : _mm_srli_epi16(raw, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(e + i / 2), _mm_sub_epi16(ev, zv));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i / 2), _mm_sub_epi16(od, zv));
}

}  // namespace

// 16 codes at a time widened to int16 and centred (32 for stride-2 phases; rows shorter than
// that by halves). A row's last
// vector overlaps the one before (the same values written again) instead of a scalar tail:
// with 14-, 28- and 56-wide planes the tails had left centring 10 % of mobilenetv2 int8.
void QCentreAvx2(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride, bool is_signed,
                 int32_t zero, int16_t* even, int16_t* odd, int64_t dst_stride) {
  const __m256i zv = _mm256_set1_epi16(static_cast<int16_t>(zero));
  const __m128i zh = _mm256_castsi256_si128(zv);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * src_stride;
    int16_t* e = even + r * dst_stride;
    int16_t* o = odd ? odd + r * dst_stride : nullptr;
    int64_t done = 0;  // codes [0, done) written
    if (!o && n >= 16) {
      for (int64_t i = 0; i + 16 <= n; i += 16) Q8Centre16(s, i, is_signed, zv, e);
      Q8Centre16(s, n - 16, is_signed, zv, e);
      done = n;
    } else if (!o && n >= 8) {
      Q8Centre8(s, 0, is_signed, zh, e);
      Q8Centre8(s, n - 8, is_signed, zh, e);
      done = n;
    } else if (o && n >= 32) {
      for (int64_t i = 0; i + 32 <= n; i += 32) Q8CentreSplit32(s, i, is_signed, zv, e, o);
      const int64_t last = (n - 32) & ~int64_t{1};  // even: the phases stay aligned
      Q8CentreSplit32(s, last, is_signed, zv, e, o);
      done = last + 32;
    } else if (o && n >= 16) {
      Q8CentreSplit16(s, 0, is_signed, zh, e, o);
      const int64_t last = (n - 16) & ~int64_t{1};
      Q8CentreSplit16(s, last, is_signed, zh, e, o);
      done = last + 16;
    }
    Q8CentrePortable(s, done, n, is_signed, zero, e, o);
  }
}

#endif
}  // namespace kiln::cpu
