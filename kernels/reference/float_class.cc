// Reference IsNaN / IsInf: out[i] = isnan(x[i]), or x[i] is an infinity of a detected sign.
#include "kernels/reference/float_class.h"

#include <cmath>
#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
Status FloatClassKernel<T>::Prepare(const KernelContext& ctx) {
  switch (ctx.node().op) {
    case OpType::kIsNaN:
      is_nan_ = true;
      break;
    case OpType::kIsInf:
      is_nan_ = false;
      // The schema has checked both are 0 or 1.
      detect_positive_ = ctx.attrs().GetInt("detect_positive", 1) != 0;
      detect_negative_ = ctx.attrs().GetInt("detect_negative", 1) != 0;
      break;
    default:
      return Unsupported("FloatClassKernel cannot run " + std::string(OpTypeName(ctx.node().op)));
  }
  return Status::Ok();
}

template <typename T>
Status FloatClassKernel<T>::Run(std::span<const TensorView> inputs,
                                std::span<const TensorView> outputs, void*) {
  const T* x = inputs[0].as<const T>();
  BoolByte* out = outputs[0].as<BoolByte>();
  const int64_t n = inputs[0].num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const float v = Elem<T>::Load(x[i]);
    bool hit;
    if (is_nan_) {
      hit = std::isnan(v);
    } else {
      hit = std::isinf(v) && (v > 0 ? detect_positive_ : detect_negative_);
    }
    out[i] = Elem<BoolByte>::Store(hit);
  }
  return Status::Ok();
}

template class FloatClassKernel<float>;
template class FloatClassKernel<Float16>;

}  // namespace kiln
