// Reference GatherElements: out[i_0, ..., i_r-1] = data[i_0, ..., indices[i...], ..., i_r-1]
// (the index replaces the axis coordinate). Negative indices count from the end; one outside
// the axis fails the run, never reads out of bounds.
#include "kernels/reference/gather_elements.h"

#include <algorithm>
#include <string>

namespace kiln {

template <typename U, typename I>
Status GatherElementsKernel::Copy(GatherElementsKernel& k, const void* data, const void* indices,
                                  void* out) {
  const U* src = static_cast<const U*>(data);
  const I* idx = static_cast<const I*>(indices);
  U* dst = static_cast<U*>(out);
  return k.geo_.Walk("GatherElements", idx,
                     [&](int64_t e, int64_t offset) { dst[e] = src[offset]; });
}

Status GatherElementsKernel::Prepare(const KernelContext& ctx) {
  // Ranks, axis and the indices' extents were checked by the schema (InferGatherElements).
  const Shape& data = ctx.input(0).shape;
  const DType it = ctx.input(1).dtype;
  KILN_RETURN_IF_ERROR(geo_.Init(ctx.attrs().GetInt("axis", 0), data, ctx.input(1).shape));
  const bool i64 = it == DType::kI64;
  if (!i64 && it != DType::kI32) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  switch (DTypeSize(ctx.input(0).dtype)) {
    case 1:
      fn_ = i64 ? Copy<uint8_t, int64_t> : Copy<uint8_t, int32_t>;
      break;
    case 2:
      fn_ = i64 ? Copy<uint16_t, int64_t> : Copy<uint16_t, int32_t>;
      break;
    case 4:
      fn_ = i64 ? Copy<uint32_t, int64_t> : Copy<uint32_t, int32_t>;
      break;
    case 8:
      fn_ = i64 ? Copy<uint64_t, int64_t> : Copy<uint64_t, int32_t>;
      break;
    default:
      return Unsupported("GatherElements on " + std::string(DTypeName(ctx.input(0).dtype)));
  }
  return Status::Ok();
}

Status GatherElementsKernel::Run(std::span<const TensorView> inputs,
                                 std::span<const TensorView> outputs, void*) {
  return fn_(*this, inputs[0].data, inputs[1].data, outputs[0].data);
}

}  // namespace kiln
