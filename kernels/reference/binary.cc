// Reference arithmetic kernels (Add, Sub, Mul, Div, PRelu) over numpy broadcasting.
#include "kernels/reference/binary.h"

#include <string>
#include <type_traits>

#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

// Integer add/sub/mul go through uint64 so overflow wraps instead of being UB.
template <typename C>
C Wrap(uint64_t v) {
  return static_cast<C>(v);
}

struct AddOp {
  template <typename C>
  static C Apply(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      return Wrap<C>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    } else {
      return a + b;
    }
  }
};
struct SubOp {
  template <typename C>
  static C Apply(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      return Wrap<C>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    } else {
      return a - b;
    }
  }
};
struct MulOp {
  template <typename C>
  static C Apply(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      return Wrap<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    } else {
      return a * b;
    }
  }
};
struct DivOp {
  template <typename C>
  static C Apply(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
      if (b == C(0)) return C(0);
      if constexpr (std::is_signed_v<C>) {
        if (b == C(-1)) return Wrap<C>(0 - static_cast<uint64_t>(a));  // MIN / -1 wraps
      }
      return static_cast<C>(a / b);
    } else {
      return a / b;
    }
  }
};
struct PReluOp {
  template <typename C>
  static C Apply(C x, C slope) {
    return x < C(0) ? MulOp::Apply(x, slope) : x;
  }
};

template <typename T, typename Op>
void Apply(const BroadcastPlan& plan, const T* a, const T* b, T* out) {
  BroadcastBinary(plan, a, b, out, [](T x, T y) {
    return Elem<T>::Store(Op::Apply(Elem<T>::Load(x), Elem<T>::Load(y)));
  });
}

}  // namespace

Expected<BroadcastPlan> MakeNodeBroadcastPlan(const KernelContext& ctx) {
  std::vector<Shape> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) ins.push_back(ctx.input(i).shape);
  return MakeBroadcastPlan(ctx.output(0).shape, ins);
}

template <typename T>
Status BinaryKernel<T>::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(plan_, MakeNodeBroadcastPlan(ctx));
  switch (ctx.node().op) {
    case OpType::kAdd:
      fn_ = Apply<T, AddOp>;
      break;
    case OpType::kSub:
      fn_ = Apply<T, SubOp>;
      break;
    case OpType::kMul:
      fn_ = Apply<T, MulOp>;
      break;
    case OpType::kDiv:
      fn_ = Apply<T, DivOp>;
      break;
    case OpType::kPRelu:
      fn_ = Apply<T, PReluOp>;
      break;
    default:
      return Unsupported("BinaryKernel cannot run " + std::string(OpTypeName(ctx.node().op)));
  }
  return Status::Ok();
}

template <typename T>
Status BinaryKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                            void*) {
  fn_(plan_, inputs[0].as<const T>(), inputs[1].as<const T>(), outputs[0].as<T>());
  return Status::Ok();
}

template class BinaryKernel<float>;
template class BinaryKernel<Float16>;
template class BinaryKernel<int8_t>;
template class BinaryKernel<uint8_t>;
template class BinaryKernel<int32_t>;
template class BinaryKernel<int64_t>;

}  // namespace kiln
