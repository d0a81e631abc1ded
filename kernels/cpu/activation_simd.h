// Vectorised epilogue activations (templates over the simd.h vectors), with the same formulas
// as kernels/activation.h's scalar definitions; transcendental ones differ by a few ulp.
#pragma once

#include "kernels/activation.h"
#include "kernels/cpu/simd.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|); below |x| < 2^-4 the odd Taylor
// series to x^7 (error < 1e-9 relative there) avoids the cancellation in 1 - e.
template <typename V>
typename V::T Tanh(typename V::T x) {
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
typename V::T Activate(const ActivationParams& p, typename V::T x) {
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

template <typename V>
void ActivateArray(float* x, int64_t n, const ActivationParams& p) {
  if (p.kind == Activation::kNone) return;
  int64_t i = 0;
  for (; i + V::N <= n; i += V::N) V::Store(x + i, Activate<V>(p, V::Load(x + i)));
  if (i < n) {
    const int rest = static_cast<int>(n - i);
    V::StorePartial(x + i, Activate<V>(p, V::LoadPartial(x + i, rest)), rest);
  }
}

}  // namespace
}  // namespace kiln::cpu
