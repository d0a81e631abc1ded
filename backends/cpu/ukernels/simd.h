// SIMD vector wrappers that the per-ISA kernel files instantiate their templates with
// (VecScalar everywhere, Vec256 under AVX2+FMA, Vec512 under AVX-512).
//
// Everything here has internal linkage (anonymous namespace) on purpose: each <op>_<isa>.cc
// gets its own copy compiled with its own -m flags, so the linker can never pick an AVX-512
// out-of-line copy for portable code (the classic ODR trap of per-file ISA flags). For the
// same reason the ISA files include no header with non-trivial inline functions they call.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t FloatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Portable: one float per "vector"; compilers auto-vectorise the loops around it with the
// baseline ISA only.
struct VecScalar {
  using T = float;
  static constexpr int N = 1;
  static T Zero() { return 0.f; }
  static T Set1(float x) { return x; }
  static T Load(const float* p) { return *p; }
  static void Store(float* p, T v) { *p = v; }
  static T LoadPartial(const float* p, int n) { return n > 0 ? *p : 0.f; }
  static void StorePartial(float* p, T v, int n) {
    if (n > 0) *p = v;
  }
  // A lane mask made once outside a loop (the first n lanes), for LoadMasked.
  using MaskT = bool;
  static MaskT MakeMask(int n) { return n > 0; }
  static T LoadMasked(const float* p, MaskT m) { return m ? *p : 0.f; }
  // Lane j read where bit j of `bits` is set, else 0.
  static T LoadBits(const float* p, uint32_t bits) { return (bits & 1u) ? *p : 0.f; }
  // Masked-off lanes take `fill` instead of zero.
  static T LoadMaskedOr(const float* p, MaskT m, T fill) { return m ? *p : fill; }
  static MaskT MakeRangeMask(int lo, int hi) { return lo <= 0 && hi > 0; }
  // Lane j on where on[j] != 0 (N floats).
  static MaskT MaskFromFloats(const float* on) { return on[0] != 0.f; }
  // Even and odd lanes of the 2N floats at p, the halves read under masks m0 / m1.
  static void LoadDeinterleaveMasked(const float* p, MaskT m0, MaskT m1, T* even, T* odd) {
    *even = m0 ? p[0] : 0.f;
    *odd = m1 ? p[1] : 0.f;
  }
  static MaskT MakeRangeMask2(int lo, int hi) { return lo <= 1 && hi > 1; }  // lane 1 of 2
  static void Deinterleave(T a, T b, T* even, T* odd) {
    *even = a;
    *odd = b;
  }
  // Lanes 1..N-1 of a, then lane 0 of b: the vector one element further on.
  static T ShiftInNext(T /*a*/, T b) { return b; }
  // Lane N-1 of a, then lanes 0..N-2 of b: the vector one element back.
  static T ShiftInPrev(T a, T /*b*/) { return a; }
  // m ? a : b per lane.
  static T Select(MaskT m, T a, T b) { return m ? a : b; }
  // The inverse of Deinterleave: lo = a0 b0 a1 b1 ..., hi = the second half of that sequence.
  static void Interleave(T a, T b, T* lo, T* hi) {
    *lo = a;
    *hi = b;
  }
  // Lanes [lo, hi) from p[lane], zero elsewhere; lanes outside are never read.
  static T LoadRange(const float* p, int lo, int hi) { return lo <= 0 && hi > 0 ? *p : 0.f; }
  // Lanes [lo, hi) of the 2N floats at p, split into even and odd lanes.
  static void LoadDeinterleave(const float* p, int lo, int hi, T* even, T* odd) {
    *even = lo <= 0 && hi > 0 ? p[0] : 0.f;
    *odd = lo <= 1 && hi > 1 ? p[1] : 0.f;
  }
  static T Fma(T a, T b, T c) { return a * b + c; }
  static T Add(T a, T b) { return a + b; }
  static T Sub(T a, T b) { return a - b; }
  static T Mul(T a, T b) { return a * b; }
  static T Div(T a, T b) { return a / b; }
  static T Quotient(T a, T b) { return a / b; }
  // 1 / d for finite d of magnitude in [2^-100, 2^100] (within 1 ulp in the SIMD versions,
  // an estimate and one Newton step: a fraction of a division's cost).
  static T Reciprocal(T d) { return 1.f / d; }
  // Max/Min return `a` when either operand is NaN, like the SIMD versions below.
  static T Max(T a, T b) { return b > a ? b : a; }
  static T Min(T a, T b) { return b < a ? b : a; }
  // x < 0 ? a : b
  static T SelectNeg(T x, T a, T b) { return x < 0.f ? a : b; }
  // 2^n for t = n + kExpMagic (an integer n in [-126, 127] held in t's low mantissa bits).
  static T Pow2Biased(T t) { return BitsToFloat((FloatToBits(t) + 127u) << 23); }
  static T Pow2Shift(T t) { return BitsToFloat(FloatToBits(t) << 23); }
  static float ReduceAdd(T v) { return v; }
  static float ReduceMax(T v) { return v; }
};

#if defined(__AVX2__) && defined(__FMA__)
struct Vec256 {
  using T = __m256;
  static constexpr int N = 8;
  static T Zero() { return _mm256_setzero_ps(); }
  static T Set1(float x) { return _mm256_set1_ps(x); }
  static T Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static __m256i Mask(int n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
  }
  static T LoadPartial(const float* p, int n) { return _mm256_maskload_ps(p, Mask(n)); }
  using MaskT = __m256i;
  static MaskT MakeMask(int n) { return Mask(n); }
  static T LoadMasked(const float* p, MaskT m) { return _mm256_maskload_ps(p, m); }
  static T LoadBits(const float* p, uint32_t bits) {
    const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i on = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), lane);
    return _mm256_maskload_ps(p, _mm256_cmpeq_epi32(on, lane));
  }
  static T LoadMaskedOr(const float* p, MaskT m, T fill) {
    return _mm256_blendv_ps(fill, _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
  }
  static MaskT MakeRangeMask(int lo, int hi) { return RangeMask(lo, hi); }
  static MaskT MakeRangeMask2(int lo, int hi) { return RangeMask(lo - N, hi - N); }
  static MaskT MaskFromFloats(const float* on) {
    return _mm256_castps_si256(
        _mm256_cmp_ps(_mm256_loadu_ps(on), _mm256_setzero_ps(), _CMP_NEQ_OQ));
  }
  static void Deinterleave(T a, T b, T* even, T* odd) {
    // [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 b0 b2 b4 b6]
    const T e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    const T o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    *even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
    *odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  static void LoadDeinterleaveMasked(const float* p, MaskT m0, MaskT m1, T* even, T* odd) {
    Deinterleave(_mm256_maskload_ps(p, m0), _mm256_maskload_ps(p + N, m1), even, odd);
  }
  static T ShiftInNext(T a, T b) {
    // [a4..a7 | b0..b3], then per 128-bit lane (t : a) >> 4 bytes: a1 a2 a3 a4 | a5 a6 a7 b0.
    const __m256i t = _mm256_castps_si256(_mm256_permute2f128_ps(a, b, 0x21));
    return _mm256_castsi256_ps(_mm256_alignr_epi8(t, _mm256_castps_si256(a), 4));
  }
  static T ShiftInPrev(T a, T b) {
    // [a4..a7 | b0..b3], then per 128-bit lane (b : t) >> 12 bytes: a7 b0 b1 b2 | b3 b4 b5 b6.
    const __m256i t = _mm256_castps_si256(_mm256_permute2f128_ps(a, b, 0x21));
    return _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(b), t, 12));
  }
  static T Select(MaskT m, T a, T b) { return _mm256_blendv_ps(b, a, _mm256_castsi256_ps(m)); }
  static void Interleave(T a, T b, T* lo, T* hi) {
    const T l = _mm256_unpacklo_ps(a, b);  // a0 b0 a1 b1 | a4 b4 a5 b5
    const T h = _mm256_unpackhi_ps(a, b);  // a2 b2 a3 b3 | a6 b6 a7 b7
    *lo = _mm256_permute2f128_ps(l, h, 0x20);
    *hi = _mm256_permute2f128_ps(l, h, 0x31);
  }
  // The first n lanes through 128-, 64- and 32-bit stores: a vmaskmovps store is microcoded on
  // AMD Zen (about 25 cycles on Zen 3 against one for a plain store), and partial vectors end
  // every row of 7x7, 14x14 and odd-sized planes.
  static void StorePartial(float* p, T v, int n) {
    if (n >= N) {
      _mm256_storeu_ps(p, v);
      return;
    }
    if (n <= 0) return;
    __m128 h = _mm256_castps256_ps128(v);
    if (n & 4) {
      _mm_storeu_ps(p, h);
      p += 4;
      h = _mm256_extractf128_ps(v, 1);
    }
    if (n & 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), h);
      p += 2;
      h = _mm_movehl_ps(h, h);
    }
    if (n & 1) _mm_store_ss(p, h);
  }
  static __m256i RangeMask(int lo, int hi) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(lo), idx),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), idx));
  }
  static T LoadRange(const float* p, int lo, int hi) {
    if (lo <= 0 && hi >= N) return _mm256_loadu_ps(p);
    return _mm256_maskload_ps(p, RangeMask(lo, hi));
  }
  static void LoadDeinterleave(const float* p, int lo, int hi, T* even, T* odd) {
    Deinterleave(LoadRange(p, lo, hi), LoadRange(p + N, lo - N, hi - N), even, odd);
  }
  static T Fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm256_add_ps(a, b); }
  static T Sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T Mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T Div(T a, T b) { return _mm256_div_ps(a, b); }
  // a / b where a rounding or two is fine: the division itself (Zen 3: SiLU over 4096 floats
  // 1.14-1.17x faster than with the reciprocal estimate and a Newton step).
  static T Quotient(T a, T b) { return _mm256_div_ps(a, b); }
  static T Reciprocal(T d) {
    const T r = _mm256_rcp_ps(d);  // 12 bits; the Newton step r (2 - d r) doubles them
    return _mm256_mul_ps(r, _mm256_fnmadd_ps(d, r, _mm256_set1_ps(2.f)));
  }
  // maxps returns its second operand when either is NaN: Max/Min return `a` then.
  static T Max(T a, T b) { return _mm256_max_ps(b, a); }
  static T Min(T a, T b) { return _mm256_min_ps(b, a); }
  static T SelectNeg(T x, T a, T b) { return _mm256_blendv_ps(b, a, x); }
  static T Pow2Biased(T t) {
    const __m256i i = _mm256_add_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(i, 23));
  }
  // 2^n from t whose low mantissa bits already hold n + 127.
  static T Pow2Shift(T t) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23));
  }
  static float ReduceAdd(T v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static float ReduceMax(T v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};
#endif

#if defined(__AVX512F__)
struct Vec512 {
  using T = __m512;
  static constexpr int N = 16;
  static T Zero() { return _mm512_setzero_ps(); }
  static T Set1(float x) { return _mm512_set1_ps(x); }
  static T Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static __mmask16 Mask(int n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff)
                   : static_cast<__mmask16>((1u << (n < 0 ? 0 : n)) - 1u);
  }
  static T LoadPartial(const float* p, int n) { return _mm512_maskz_loadu_ps(Mask(n), p); }
  using MaskT = __mmask16;
  static MaskT MakeMask(int n) { return Mask(n); }
  static T LoadMasked(const float* p, MaskT m) { return _mm512_maskz_loadu_ps(m, p); }
  static T LoadBits(const float* p, uint32_t bits) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>(bits), p);
  }
  static T LoadMaskedOr(const float* p, MaskT m, T fill) {
    return _mm512_mask_loadu_ps(fill, m, p);
  }
  static MaskT MakeRangeMask(int lo, int hi) { return RangeMask(lo, hi); }
  static MaskT MakeRangeMask2(int lo, int hi) { return RangeMask(lo - N, hi - N); }
  static MaskT MaskFromFloats(const float* on) {
    return _mm512_cmp_ps_mask(_mm512_loadu_ps(on), _mm512_setzero_ps(), _CMP_NEQ_OQ);
  }
  static void Deinterleave(T a, T b, T* even, T* odd) {
    const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    *even = _mm512_permutex2var_ps(a, ie, b);
    *odd = _mm512_permutex2var_ps(a, io, b);
  }
  static void LoadDeinterleaveMasked(const float* p, MaskT m0, MaskT m1, T* even, T* odd) {
    Deinterleave(_mm512_maskz_loadu_ps(m0, p), _mm512_maskz_loadu_ps(m1, p + N), even, odd);
  }
  static T ShiftInNext(T a, T b) {
    return _mm512_castsi512_ps(
        _mm512_alignr_epi32(_mm512_castps_si512(b), _mm512_castps_si512(a), 1));
  }
  static T ShiftInPrev(T a, T b) {
    return _mm512_castsi512_ps(
        _mm512_alignr_epi32(_mm512_castps_si512(b), _mm512_castps_si512(a), 15));
  }
  static T Select(MaskT m, T a, T b) { return _mm512_mask_blend_ps(m, b, a); }
  static void Interleave(T a, T b, T* lo, T* hi) {
    const __m512i il = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i ih =
        _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    *lo = _mm512_permutex2var_ps(a, il, b);
    *hi = _mm512_permutex2var_ps(a, ih, b);
  }
  static void StorePartial(float* p, T v, int n) { _mm512_mask_storeu_ps(p, Mask(n), v); }
  static __mmask16 RangeMask(int lo, int hi) {
    return static_cast<__mmask16>(Mask(hi) & ~static_cast<unsigned>(Mask(lo)));
  }
  static T LoadRange(const float* p, int lo, int hi) {
    if (lo <= 0 && hi >= N) return _mm512_loadu_ps(p);
    return _mm512_maskz_loadu_ps(RangeMask(lo, hi), p);
  }
  static void LoadDeinterleave(const float* p, int lo, int hi, T* even, T* odd) {
    Deinterleave(LoadRange(p, lo, hi), LoadRange(p + N, lo - N, hi - N), even, odd);
  }
  static T Fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm512_add_ps(a, b); }
  static T Sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T Mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T Div(T a, T b) { return _mm512_div_ps(a, b); }
  // a / b where a rounding or two is fine: the reciprocal estimate and a Newton step (a zmm
  // division is slow on the AVX-512 parts measured before, Cascade Lake).
  static T Quotient(T a, T b) { return _mm512_mul_ps(a, Reciprocal(b)); }
  static T Reciprocal(T d) {
    const T r = _mm512_rcp14_ps(d);  // 14 bits; one Newton step r + r (1 - d r)
    return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.f)), r);
  }
  static T Max(T a, T b) { return _mm512_max_ps(b, a); }
  static T Min(T a, T b) { return _mm512_min_ps(b, a); }
  static T SelectNeg(T x, T a, T b) {
    const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(neg, b, a);
  }
  static T Pow2Biased(T t) {
    const __m512i i = _mm512_add_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(i, 23));
  }
  static T Pow2Shift(T t) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(t), 23));
  }
  static float ReduceAdd(T v) { return _mm512_reduce_add_ps(v); }
  static float ReduceMax(T v) { return _mm512_reduce_max_ps(v); }
};
#endif

// exp(x) to ~1-2 ulp over the float range (Cody-Waite reduction by ln 2, degree-6 minimax
// polynomial as in Cephes expf); inputs are clamped so 2^n stays a normal number, so results
// flush to 0 below about -87.3 and saturate near FLT_MAX above 88.7.
inline constexpr float kExpMagic = 12582912.f;  // 1.5 * 2^23

template <typename V>
__attribute__((always_inline)) inline typename V::T Exp(typename V::T x) {
  using T = typename V::T;
  x = V::Min(x, V::Set1(88.3762626647949f));
  x = V::Max(x, V::Set1(-87.3365447504019f));
  // n = round(x / ln 2) by the 1.5 * 2^23 bias (adding it rounds to an integer, and t's low
  // mantissa bits are n): no round or convert instructions, which run on one port only.
  const T t = V::Fma(x, V::Set1(1.44269504088896341f), V::Set1(kExpMagic));
  const T n = V::Sub(t, V::Set1(kExpMagic));
  T r = V::Fma(n, V::Set1(-0.693359375f), x);
  r = V::Fma(n, V::Set1(2.12194440e-4f), r);
  T p = V::Set1(1.9875691500e-4f);
  p = V::Fma(p, r, V::Set1(1.3981999507e-3f));
  p = V::Fma(p, r, V::Set1(8.3334519073e-3f));
  p = V::Fma(p, r, V::Set1(4.1665795894e-2f));
  p = V::Fma(p, r, V::Set1(1.6666665459e-1f));
  p = V::Fma(p, r, V::Set1(5.0000001201e-1f));
  const T r2 = V::Mul(r, r);
  p = V::Fma(p, r2, V::Add(r, V::Set1(1.f)));
  return V::Mul(p, V::Pow2Biased(t));
}

// 1 / (1 + exp(-x)) as e / (1 + e) with e = exp(-|x|) in (0, 1], then 1 - that for x >= 0:
// nothing to overflow, one reduction constant (|n| <= 126), and a polynomial one degree lower
// than Exp's, as the sigmoid needs no more: degree 5, fitted here for the least relative error
// of 1 + r p(r) on [-ln 2 / 2, ln 2 / 2] (9e-8). -|x| is clamped where 2^n stays normal, so
// the ends come out as 1.2e-38 and 1. 17 operations a vector where 1 / (1 + Exp(-x)) took 22:
// SiLU over 4096 floats 1.22x faster (Zen 3, AVX2, old and new alternating), max error against
// double over [-100, 100] 9e-8 absolute and 3.4e-7 relative (it was 1.8e-7 and 2.3e-7).
template <typename V>
__attribute__((always_inline)) inline typename V::T Sigmoid(typename V::T x) {
  using T = typename V::T;
  T z = V::Min(x, V::Sub(V::Zero(), x));  // -|x| (NaN stays NaN: Min returns x then)
  z = V::Max(z, V::Set1(-87.3365447504019f));
  // t's low mantissa bits are n + 127 (the magic number carries the exponent bias).
  constexpr float kMagic = kExpMagic + 127.f;
  const T t = V::Fma(z, V::Set1(1.44269504088896341f), V::Set1(kMagic));
  const T n = V::Sub(t, V::Set1(kMagic));
  const T r = V::Fma(n, V::Set1(-0.693147180559945f), z);  // one constant: |n| <= 126
  T p = V::Set1(8.290211670100689e-3f);
  p = V::Fma(p, r, V::Set1(4.1897717863321304e-2f));
  p = V::Fma(p, r, V::Set1(1.666763573884964e-1f));
  p = V::Fma(p, r, V::Set1(4.999915063381195e-1f));
  p = V::Fma(p, r, V::Set1(9.999997019767761e-1f));
  const T s = V::Pow2Shift(t);
  const T e = V::Fma(V::Mul(r, s), p, s);  // 2^n (1 + r p(r))
  const T f = V::Quotient(e, V::Add(V::Set1(1.f), e));
  return V::SelectNeg(x, f, V::Sub(V::Set1(1.f), f));
}

}  // namespace
}  // namespace kiln::cpu
