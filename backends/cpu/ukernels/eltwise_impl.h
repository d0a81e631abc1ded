// Elementwise kernels (activation, binary arithmetic with scalar broadcast, per-channel affine,
// softmax rows), written once over the simd.h vectors and instantiated per ISA
// (eltwise_<isa>.cc). Binary ops and the affine map are single IEEE operations per element, so
// they give the reference kernels' bits; softmax and the transcendental activations agree to
// a few ulp.
#pragma once

#include <cfloat>

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

template <typename V, typename F>
inline void BinaryLoop(const float* a, bool a_scalar, const float* b, bool b_scalar, float* y,
                       int64_t n, F&& f) {
  using T = typename V::T;
  constexpr int N = V::N;
  const T as = V::Set1(a[0]), bs = V::Set1(b[0]);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    V::Store(y + i, f(a_scalar ? as : V::Load(a + i), b_scalar ? bs : V::Load(b + i)));
  }
  if (i < n) {
    const int r = static_cast<int>(n - i);
    V::StorePartial(
        y + i,
        f(a_scalar ? as : V::LoadPartial(a + i, r), b_scalar ? bs : V::LoadPartial(b + i, r)), r);
  }
}

template <typename V>
void Binary(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* y,
            int64_t n) {
  using T = typename V::T;
  switch (op) {
    case BinaryOp::kAdd:
      return BinaryLoop<V>(a, a_scalar, b, b_scalar, y, n, [](T u, T v) { return V::Add(u, v); });
    case BinaryOp::kSub:
      return BinaryLoop<V>(a, a_scalar, b, b_scalar, y, n, [](T u, T v) { return V::Sub(u, v); });
    case BinaryOp::kMul:
      return BinaryLoop<V>(a, a_scalar, b, b_scalar, y, n, [](T u, T v) { return V::Mul(u, v); });
    case BinaryOp::kDiv:
      return BinaryLoop<V>(a, a_scalar, b, b_scalar, y, n, [](T u, T v) { return V::Div(u, v); });
  }
}

// Multiply then add (two roundings, not an FMA), like the scalar expression x * s + t.
template <typename V>
void Affine(const float* x, float scale, float shift, float* y, int64_t n) {
  using T = typename V::T;
  const T s = V::Set1(scale), t = V::Set1(shift);
  MapArray<V>(x, y, n, [&](T v) { return V::Add(V::Mul(v, s), t); });
}

template <typename V>
void SoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool log) {
  using T = typename V::T;
  constexpr int N = V::N;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    T mx = V::Set1(-FLT_MAX);
    int64_t i = 0;
    for (; i + N <= n; i += N) mx = V::Max(mx, V::Load(xr + i));
    float m = V::ReduceMax(mx);
    for (; i < n; ++i) m = xr[i] > m ? xr[i] : m;
    const T mv = V::Set1(m);
    // exp(x - max) into y, summed on the way.
    T sum = V::Zero();
    for (i = 0; i + N <= n; i += N) {
      const T e = Exp<V>(V::Sub(V::Load(xr + i), mv));
      if (!log) V::Store(yr + i, e);
      sum = V::Add(sum, e);
    }
    if (i < n) {
      // Lanes past the row read as -FLT_MAX, whose exp is 0: they add nothing to the sum.
      const int rest = static_cast<int>(n - i);
      const T e = Exp<V>(V::Sub(V::LoadMaskedOr(xr + i, V::MakeMask(rest), V::Set1(-FLT_MAX)), mv));
      if (!log) V::StorePartial(yr + i, e, rest);
      sum = V::Add(sum, e);
    }
    const float total = V::ReduceAdd(sum);
    if (log) {
      // y = x - max - log(sum); libm's logf (an out-of-line call, safe in an ISA file).
      const T sub = V::Set1(m + __builtin_logf(total));
      MapArray<V>(xr, yr, n, [&](T v) { return V::Sub(v, sub); });
    } else {
      const T inv = V::Set1(1.f / total);
      MapArray<V>(yr, yr, n, [&](T v) { return V::Mul(v, inv); });
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
