// AVX-512 VNNI int8 elementwise micro-kernels: QAdd, the multiplication by a scalar and the
// quantization of floats.
#include "backends/cpu/kernels/int8_avx512_pack.h"
#include "backends/cpu/ukernels/avx512/int8_shared_avx512vnni.h"
#include "backends/cpu/ukernels/int8_impl.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
void QMulScalarAvx512Vnni(const QMulParams& p, const uint8_t* a, int32_t b, uint8_t* y, int64_t n) {
  // Per 64 codes: four vectors of centred products, each requantized (Q8Requant16Lanes), then
  // the packed tail (zero point, saturations, clamp) and one permute into code order.
  const __m512i zero = _mm512_set1_epi32(p.a_zero), scale = _mm512_set1_epi32(b);
  const Q8Requant16 rq = Q8MakeRequant16(p.requant);
  const Q8PackConsts pk = Q8Pack(p.out_zero, p.qmin, p.qmax, p.out_type == QType::kI8);
  const bool is_signed = p.a_type == QType::kI8;
  const auto product = [&](__m128i codes) {
    const __m512i c = is_signed ? _mm512_cvtepi8_epi32(codes) : _mm512_cvtepu8_epi32(codes);
    return Q8Requant16Lanes(_mm512_mullo_epi32(_mm512_sub_epi32(c, zero), scale), rq);
  };
  // Q8PackFour's lane k dword j holds codes 16 j + 4 k .. + 3.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t left = n - i;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    const __m512i x = _mm512_maskz_loadu_epi8(m, a + i);
    const __m512i out =
        _mm512_permutexvar_epi32(order, Q8PackFour(product(_mm512_extracti32x4_epi32(x, 0)),
                                                   product(_mm512_extracti32x4_epi32(x, 1)),
                                                   product(_mm512_extracti32x4_epi32(x, 2)),
                                                   product(_mm512_extracti32x4_epi32(x, 3)), pk));
    if (left >= 64) {
      _mm512_storeu_si512(y + i, out);
    } else {
      _mm512_mask_storeu_epi8(y + i, m, out);
    }
  }
}

namespace {

// QAdd in int32 lanes but the products (Q8AddHighForm); the rescaled inputs' sum wraps like
// the reference's (WrappingAdd); the output's Requantize needs no saturation before the zero
// point and clamp.
void QAddHigh(const QAddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n) {
  const Q8AddHighForm f = Q8AddHigh(p);
  const __m512i za = _mm512_set1_epi32(p.a_zero), zb = _mm512_set1_epi32(p.b_zero);
  const __m512i pa = _mm512_set1_epi32(f.lshift_a), pb = _mm512_set1_epi32(f.lshift_b);
  const __m512i ma = _mm512_set1_epi32(p.ra.multiplier), mb = _mm512_set1_epi32(p.rb.multiplier);
  const __m512i mo = _mm512_set1_epi32(p.ro.multiplier);
  const __m512i rda = _mm512_set1_epi32(f.round_a), rdb = _mm512_set1_epi32(f.round_b);
  const __m512i rdo = _mm512_set1_epi32(f.round_o);
  const __m512i sa = _mm512_set1_epi32(f.rshift_a), sb = _mm512_set1_epi32(f.rshift_b);
  const __m512i so = _mm512_set1_epi32(f.rshift_o);
  const __m512i zo = _mm512_set1_epi32(p.out_zero);
  const __m512i lo = _mm512_set1_epi32(p.qmin), hi = _mm512_set1_epi32(p.qmax);
  for (int64_t i = 0; i + 16 <= n; i += 16) {
    const __mmask16 m = 0xffff;
    const __m512i av = _mm512_sllv_epi32(_mm512_sub_epi32(Q8LoadCodes(a + i, p.a_type, m), za), pa);
    const __m512i bv = _mm512_sllv_epi32(_mm512_sub_epi32(Q8LoadCodes(b + i, p.b_type, m), zb), pb);
    const __m512i sum = _mm512_add_epi32(Q8RqHigh(av, ma, rda, sa), Q8RqHigh(bv, mb, rdb, sb));
    const __m512i v = _mm512_add_epi32(Q8RqHigh(sum, mo, rdo, so), zo);
    Q8StoreBytes(y + i, _mm512_min_epi32(_mm512_max_epi32(v, lo), hi), m);
  }
}

}  // namespace

void QAddAvx512Vnni(const QAddParams& p, const void* a, const void* b, void* y, int64_t n) {
  if (Q8AddHighApplies(p)) {
    QAddHigh(p, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
             static_cast<uint8_t*>(y), n);
    Q8AddPortable(p, a, b, y, n - n % 16, n);
    return;
  }
  const __m512i za = _mm512_set1_epi32(p.a_zero), zb = _mm512_set1_epi32(p.b_zero);
  const __m512i ma = _mm512_set1_epi64(p.ra.multiplier), mb = _mm512_set1_epi64(p.rb.multiplier);
  const __m512i mo = _mm512_set1_epi64(p.ro.multiplier);
  const __m512i rda = _mm512_set1_epi64(int64_t{1} << (p.ra.shift - 1));
  const __m512i rdb = _mm512_set1_epi64(int64_t{1} << (p.rb.shift - 1));
  const __m512i rdo = _mm512_set1_epi64(int64_t{1} << (p.ro.shift - 1));
  const __m512i sa = _mm512_set1_epi64(p.ra.shift), sb = _mm512_set1_epi64(p.rb.shift);
  const __m512i so = _mm512_set1_epi64(p.ro.shift);
  const Q8OutConsts o = Q8Out(p.out_zero, p.qmin, p.qmax);
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
    const __m512i ev = Q8Rq64(se, mo, rdo, so, false);
    const __m512i od = Q8Rq64(sodd, mo, rdo, so, false);
    const __m512i v = Q8ClampJoin(ev, od, o, true);
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
