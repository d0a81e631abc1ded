// Vectorised epilogue activations (templates over the simd.h vectors), with the same formulas
// as kernels/activation.h's scalar definitions; transcendental ones differ by a few ulp.
#pragma once

#include "kernels/activation.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|); below |x| < 2^-4 the odd Taylor
// series to x^7 (error < 1e-9 relative there) avoids the cancellation in 1 - e.
template <typename V>
__attribute__((always_inline)) inline typename V::T Tanh(typename V::T x) {
  using T = typename V::T;
  const T one = V::Set1(1.f);
  const T ax = V::Max(x, V::Sub(V::Zero(), x));
  const T e = Exp<V>(V::Mul(ax, V::Set1(-2.f)));
  const T t = V::Div(V::Sub(one, e), V::Add(one, e));
  const T x2 = V::Mul(x, x);
  T p = V::Set1(-17.f / 315.f);
  p = V::Fma(p, x2, V::Set1(2.f / 15.f));
  p = V::Fma(p, x2, V::Set1(-1.f / 3.f));
  const T small = V::Fma(V::Mul(p, x2), x, x);
  const T big = V::SelectNeg(x, V::Sub(V::Zero(), t), t);
  // |x| < 1/16 -> series. Built from SelectNeg: (|x| - 1/16) < 0 picks `small`.
  return V::SelectNeg(V::Sub(ax, V::Set1(0.0625f)), small, big);
}

template <typename V>
__attribute__((noinline)) typename V::T ActivateAny(const ActivationParams& p, typename V::T x) {
  switch (p.kind) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return V::Max(V::Zero(), x);  // NaN -> 0, as x > 0 ? x : 0
    case Activation::kClip:
      return V::Min(V::Max(x, V::Set1(p.alpha)), V::Set1(p.beta));
    case Activation::kLeakyRelu:
      return V::SelectNeg(x, V::Mul(V::Set1(p.alpha), x), x);
    case Activation::kSigmoid:
      return Sigmoid<V>(x);
    case Activation::kHardSigmoid: {
      const typename V::T y = V::Add(V::Mul(V::Set1(p.alpha), x), V::Set1(p.beta));
      return V::Max(V::Min(y, V::Set1(1.f)), V::Zero());
    }
    case Activation::kHardSwish: {
      const typename V::T y = V::Add(V::Div(x, V::Set1(6.f)), V::Set1(0.5f));
      return V::Mul(x, V::Max(V::Min(y, V::Set1(1.f)), V::Zero()));
    }
    case Activation::kTanh:
      return Tanh<V>(x);
    case Activation::kSilu:
      return V::Mul(x, Sigmoid<V>(x));
  }
  return x;
}

// IsInlineActivation (ukernels.h) says which kinds Activate<V> applies inline; tile epilogues
// apply the others over the stored tile with ActivateArray (a call per vector would spill every
// accumulator around it).

// Calls f with the inline activation p.kind as a functor on vectors (none / relu / clip) and
// returns true; false, without calling f, for the others. The switch stays outside a
// caller's loop over vectors, which then has no test per vector.
template <typename V, typename F>
__attribute__((always_inline)) inline bool WithInlineActivation(const ActivationParams& p, F&& f) {
  using T = typename V::T;
  switch (p.kind) {
    case Activation::kNone:
      f([](T v) { return v; });
      return true;
    case Activation::kRelu:
      f([](T v) { return V::Max(V::Zero(), v); });  // NaN -> 0, as x > 0 ? x : 0
      return true;
    case Activation::kClip: {
      const T lo = V::Set1(p.alpha), hi = V::Set1(p.beta);
      f([lo, hi](T v) { return V::Min(V::Max(v, lo), hi); });
      return true;
    }
    default:
      return false;
  }
}

// The epilogues' activation: none / relu / clip inline (a predictable branch or two per
// vector), the transcendental ones out of line (their code would crowd the tile loops).
template <typename V>
inline typename V::T Activate(const ActivationParams& p, typename V::T x) {
  if (p.kind == Activation::kNone) return x;
  if (p.kind == Activation::kRelu) return V::Max(V::Zero(), x);  // NaN -> 0, as x > 0 ? x : 0
  if (p.kind == Activation::kClip) return V::Min(V::Max(x, V::Set1(p.alpha)), V::Set1(p.beta));
  return ActivateAny<V>(p, x);
}

// y = act(x) over n floats (in place when y == x). The switch sits outside the loop for the
// cheap activations so their loop is a few instructions per vector.
template <typename V, typename F>
inline void MapArray(const float* x, float* y, int64_t n, F&& f) {
  int64_t i = 0;
  // Four independent vectors per step: the long dependency chains of exp and its kin then
  // overlap within one iteration instead of relying on the out-of-order window.
  for (; i + 4 * V::N <= n; i += 4 * V::N) {
    typename V::T v[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) v[q] = V::Load(x + i + q * V::N);
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) v[q] = f(v[q]);
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) V::Store(y + i + q * V::N, v[q]);
  }
  for (; i + V::N <= n; i += V::N) V::Store(y + i, f(V::Load(x + i)));
  if (i < n) {
    const int rest = static_cast<int>(n - i);
    V::StorePartial(y + i, f(V::LoadPartial(x + i, rest)), rest);
  }
}

template <typename V>
void ActivateArray(const float* x, float* y, int64_t n, const ActivationParams& p) {
  using T = typename V::T;
  if (p.kind == Activation::kNone && x == y) return;
  if (WithInlineActivation<V>(p, [&](auto act) { MapArray<V>(x, y, n, act); })) return;
  switch (p.kind) {
    // The transcendental ones inline here (ActivateAny is a call per vector).
    case Activation::kSigmoid:
      return MapArray<V>(x, y, n, [](T v) { return Sigmoid<V>(v); });
    case Activation::kSilu:
      return MapArray<V>(x, y, n, [](T v) { return V::Mul(v, Sigmoid<V>(v)); });
    case Activation::kTanh:
      return MapArray<V>(x, y, n, [](T v) { return Tanh<V>(v); });
    default:
      return MapArray<V>(x, y, n, [&](T v) { return ActivateAny<V>(p, v); });
  }
}

template <typename V>
void ActivateArray(float* x, int64_t n, const ActivationParams& p) {
  if (p.kind != Activation::kNone) ActivateArray<V>(x, x, n, p);
}

}  // namespace
}  // namespace kiln::cpu
