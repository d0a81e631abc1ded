// Reference pass-through kernels: a byte copy for Identity/Reshape/Flatten/Squeeze/Unsqueeze,
// and Dropout in its deterministic (identity) modes.
#include "kernels/reference/identity.h"

#include <cstring>
#include <string>

namespace kiln {

Status CopyKernel::Prepare(const KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const Value& out = ctx.output(0);
  if (in.dtype != out.dtype || in.byte_size() != out.byte_size()) {
    return InvalidArgument("output " + ShapeToString(out.shape) + " " +
                           std::string(DTypeName(out.dtype)) +
                           " does not hold the same bytes as "
                           "input " +
                           ShapeToString(in.shape) + " " + std::string(DTypeName(in.dtype)));
  }
  bytes_ = in.byte_size();
  return Status::Ok();
}

Status CopyKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                       void* scratch) {
  if (bytes_ && inputs[0].data != outputs[0].data) {
    std::memcpy(outputs[0].data, inputs[0].data, bytes_);
  }
  return Status::Ok();
}

Status DropoutKernel::Prepare(const KernelContext& ctx) {
  const Value& in = ctx.input(0);
  if (ctx.has_input(1)) {
    const DType rt = ctx.input(1).dtype;
    if ((rt != DType::kF32 && rt != DType::kF16) || ctx.input(1).num_elements() != 1) {
      return InvalidArgument("ratio must be an f32 or f16 scalar");
    }
  }
  if (ctx.has_input(2) &&
      (ctx.input(2).dtype != DType::kBool || ctx.input(2).num_elements() != 1)) {
    return InvalidArgument("training_mode must be a bool scalar");
  }
  if (ctx.has_output(1) && ctx.output(1).dtype != DType::kBool) {
    return InvalidArgument("mask output must be bool");
  }
  bytes_ = in.byte_size();
  elements_ = in.num_elements();
  return Status::Ok();
}

Status DropoutKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                          void* scratch) {
  const bool training =
      inputs.size() > 2 && inputs[2].data && *static_cast<const uint8_t*>(inputs[2].data) != 0;
  if (training) {
    float ratio = 0.5f;  // ONNX default when the input is omitted
    if (inputs.size() > 1 && inputs[1].data) {
      ratio = inputs[1].dtype == DType::kF16
                  ? HalfToFloat(*static_cast<const uint16_t*>(inputs[1].data))
                  : *static_cast<const float*>(inputs[1].data);
    }
    if (ratio != 0.0f) {
      return Unsupported("Dropout with training_mode=true and ratio " + std::to_string(ratio) +
                         " needs a random mask, which Kiln does not support");
    }
  }
  if (bytes_) std::memcpy(outputs[0].data, inputs[0].data, bytes_);
  if (outputs.size() > 1 && outputs[1].data) {
    std::memset(outputs[1].data, 1, static_cast<size_t>(elements_));  // bool: 1 byte, all true
  }
  return Status::Ok();
}

}  // namespace kiln
