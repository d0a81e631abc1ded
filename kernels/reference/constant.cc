// Reference Constant (value / value_float(s) / value_int(s)) and ConstantOfShape (fill with
// the one-element `value` tensor, default f32 0).
#include "kernels/reference/constant.h"

#include <cstring>
#include <string>

namespace kiln {
namespace {

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

Status ConstantKernel::Prepare(const KernelContext& ctx) {
  const Attributes& a = ctx.attrs();
  if (const TensorAttr* t = a.GetTensor("value")) {
    bytes_.assign(t->bytes.data(), t->bytes.data() + t->bytes.size());
  } else if (a.Has("value_float")) {
    bytes_ = BytesOf(std::vector<float>{a.GetFloat("value_float", 0.0f)});
  } else if (a.Has("value_floats")) {
    bytes_ = BytesOf(a.GetFloats("value_floats"));
  } else if (a.Has("value_int")) {
    bytes_ = BytesOf(std::vector<int64_t>{a.GetInt("value_int", 0)});
  } else if (a.Has("value_ints")) {
    bytes_ = BytesOf(a.GetInts("value_ints"));
  } else {
    return Unsupported("Constant needs one of value, value_float(s), value_int(s)");
  }
  if (bytes_.size() != ctx.output(0).byte_size()) {
    return InvalidArgument("constant holds " + std::to_string(bytes_.size()) + " bytes, output " +
                           ShapeToString(ctx.output(0).shape) + " needs " +
                           std::to_string(ctx.output(0).byte_size()));
  }
  return Status::Ok();
}

Status ConstantKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                           void* scratch) {
  if (!bytes_.empty()) std::memcpy(outputs[0].data, bytes_.data(), bytes_.size());
  return Status::Ok();
}

Status ConstantOfShapeKernel::Prepare(const KernelContext& ctx) {
  const Value& out = ctx.output(0);
  if (const TensorAttr* t = ctx.attrs().GetTensor("value")) {
    if (t->dtype != out.dtype || t->bytes.size() != DTypeSize(out.dtype)) {
      return InvalidArgument("attribute 'value' must hold one " +
                             std::string(DTypeName(out.dtype)) + " element");
    }
    value_.assign(t->bytes.data(), t->bytes.data() + t->bytes.size());
  } else {
    value_.assign(DTypeSize(out.dtype), 0);  // zero bytes are 0 in every IR dtype
    if (value_.empty()) return InvalidArgument("output has no dtype");
  }
  count_ = out.num_elements();
  return Status::Ok();
}

Status ConstantOfShapeKernel::Run(std::span<const TensorView> inputs,
                                  std::span<const TensorView> outputs, void* scratch) {
  auto* dst = static_cast<uint8_t*>(outputs[0].data);
  const size_t n = value_.size();
  for (int64_t i = 0; i < count_; ++i, dst += n) std::memcpy(dst, value_.data(), n);
  return Status::Ok();
}

}  // namespace kiln
