// Reference unary kernels: one functor per op, applied by a loop instantiated per (T, op).
#include "kernels/reference/unary.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

// Functors over the compute type C (float for f32/f16, the integer type for ints).
struct ReluOp {
  template <typename C>
  static C Apply(C x, const UnaryParams&) {
    return x > C(0) ? x : C(0);
  }
};
struct LeakyReluOp {
  static float Apply(float x, const UnaryParams& p) { return x < 0.f ? p.alpha * x : x; }
};
struct SigmoidOp {
  // Split by sign so exp() never overflows.
  static float Apply(float x, const UnaryParams&) {
    if (x >= 0.f) return 1.f / (1.f + std::exp(-x));
    const float e = std::exp(x);
    return e / (1.f + e);
  }
};
struct TanhOp {
  static float Apply(float x, const UnaryParams&) { return std::tanh(x); }
};
struct HardSigmoidOp {
  static float Apply(float x, const UnaryParams& p) {
    return std::fmax(0.f, std::fmin(1.f, p.alpha * x + p.beta));
  }
};
struct HardSwishOp {
  static float Apply(float x, const UnaryParams&) {
    return x * std::fmax(0.f, std::fmin(1.f, x / 6.f + 0.5f));
  }
};
struct EluOp {
  static float Apply(float x, const UnaryParams& p) {
    return x < 0.f ? p.alpha * std::expm1(x) : x;
  }
};
struct SeluOp {
  static float Apply(float x, const UnaryParams& p) {
    return x <= 0.f ? p.gamma * p.alpha * std::expm1(x) : p.gamma * x;
  }
};
struct SoftplusOp {
  // log(1 + e^x) without overflow for large x.
  static float Apply(float x, const UnaryParams&) {
    return x > 0.f ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct ErfOp {
  static float Apply(float x, const UnaryParams&) { return std::erf(x); }
};
struct GeluOp {  // Gelu-20: x * Phi(x); `approximate` "tanh" uses the tanh formula
  static float Apply(float x, const UnaryParams& p) {
    if (p.alpha != 0.f) {
      const double u = 0.7978845608028654 * (x + 0.044715 * double{x} * x * x);  // sqrt(2/pi)
      return static_cast<float>(0.5 * x * (1.0 + std::tanh(u)));
    }
    return static_cast<float>(0.5 * x * (1.0 + std::erf(x * 0.7071067811865476)));
  }
};
struct ExpOp {
  static float Apply(float x, const UnaryParams&) { return std::exp(x); }
};
struct LogOp {
  static float Apply(float x, const UnaryParams&) { return std::log(x); }
};
struct SqrtOp {
  static float Apply(float x, const UnaryParams&) { return std::sqrt(x); }
};
struct ReciprocalOp {
  static float Apply(float x, const UnaryParams&) { return 1.f / x; }
};
struct FloorOp {
  static float Apply(float x, const UnaryParams&) { return std::floor(x); }
};
struct CeilOp {
  static float Apply(float x, const UnaryParams&) { return std::ceil(x); }
};
struct AbsOp {
  template <typename C>
  static C Apply(C x, const UnaryParams&) {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      return x < C(0) ? static_cast<C>(-x) : x;  // INT_MIN wraps, as in numpy
    }
  }
};
struct NegOp {
  template <typename C>
  static C Apply(C x, const UnaryParams&) {
    return static_cast<C>(-x);
  }
};
struct SignOp {
  template <typename C>
  static C Apply(C x, const UnaryParams&) {
    return x > C(0) ? C(1) : (x < C(0) ? static_cast<C>(-1) : C(0));
  }
};

template <typename T, typename Op>
void ApplyUnary(const T* in, T* out, int64_t n, const UnaryParams& p) {
  for (int64_t i = 0; i < n; ++i) out[i] = Elem<T>::Store(Op::Apply(Elem<T>::Load(in[i]), p));
}

}  // namespace

template <typename T>
Status UnaryKernel<T>::Prepare(const KernelContext& ctx) {
  const Attributes& a = ctx.attrs();
  const OpType op = ctx.node().op;
  // Ops valid for every numeric type.
  switch (op) {
    case OpType::kRelu:
      fn_ = ApplyUnary<T, ReluOp>;
      return Status::Ok();
    case OpType::kAbs:
      fn_ = ApplyUnary<T, AbsOp>;
      return Status::Ok();
    case OpType::kNeg:
      fn_ = ApplyUnary<T, NegOp>;
      return Status::Ok();
    case OpType::kSign:
      fn_ = ApplyUnary<T, SignOp>;
      return Status::Ok();
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<typename Elem<T>::Compute>) {
    switch (op) {
      case OpType::kLeakyRelu:
        params_.alpha = a.GetFloat("alpha", 0.01f);
        fn_ = ApplyUnary<T, LeakyReluOp>;
        return Status::Ok();
      case OpType::kHardSigmoid:
        params_.alpha = a.GetFloat("alpha", 0.2f);
        params_.beta = a.GetFloat("beta", 0.5f);
        fn_ = ApplyUnary<T, HardSigmoidOp>;
        return Status::Ok();
      case OpType::kElu:
        params_.alpha = a.GetFloat("alpha", 1.f);
        fn_ = ApplyUnary<T, EluOp>;
        return Status::Ok();
      case OpType::kSelu:
        params_.alpha = a.GetFloat("alpha", 1.67326319217681884765625f);
        params_.gamma = a.GetFloat("gamma", 1.05070102214813232421875f);
        fn_ = ApplyUnary<T, SeluOp>;
        return Status::Ok();
      case OpType::kSigmoid:
        fn_ = ApplyUnary<T, SigmoidOp>;
        return Status::Ok();
      case OpType::kTanh:
        fn_ = ApplyUnary<T, TanhOp>;
        return Status::Ok();
      case OpType::kHardSwish:
        fn_ = ApplyUnary<T, HardSwishOp>;
        return Status::Ok();
      case OpType::kSoftplus:
        fn_ = ApplyUnary<T, SoftplusOp>;
        return Status::Ok();
      case OpType::kErf:
        fn_ = ApplyUnary<T, ErfOp>;
        return Status::Ok();
      case OpType::kGelu: {
        const std::string approx = a.GetString("approximate", "none");
        if (approx != "none" && approx != "tanh") {
          return InvalidArgument("Gelu approximate '" + approx + "' is not none or tanh");
        }
        params_.alpha = approx == "tanh" ? 1.f : 0.f;
        fn_ = ApplyUnary<T, GeluOp>;
        return Status::Ok();
      }
      case OpType::kExp:
        fn_ = ApplyUnary<T, ExpOp>;
        return Status::Ok();
      case OpType::kLog:
        fn_ = ApplyUnary<T, LogOp>;
        return Status::Ok();
      case OpType::kSqrt:
        fn_ = ApplyUnary<T, SqrtOp>;
        return Status::Ok();
      case OpType::kReciprocal:
        fn_ = ApplyUnary<T, ReciprocalOp>;
        return Status::Ok();
      case OpType::kFloor:
        fn_ = ApplyUnary<T, FloorOp>;
        return Status::Ok();
      case OpType::kCeil:
        fn_ = ApplyUnary<T, CeilOp>;
        return Status::Ok();
      default:
        break;
    }
  }
  return Unsupported("no reference unary kernel for " + std::string(OpTypeName(op)) + " on " +
                     std::string(DTypeName(ctx.input(0).dtype)));
}

template <typename T>
Status UnaryKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                           void*) {
  fn_(inputs[0].as<const T>(), outputs[0].as<T>(), outputs[0].num_elements(), params_);
  return Status::Ok();
}

template class UnaryKernel<float>;
template class UnaryKernel<Float16>;
template class UnaryKernel<int8_t>;
template class UnaryKernel<int32_t>;
template class UnaryKernel<int64_t>;

}  // namespace kiln
