// Reference Where: out = cond ? x : y, over a three-input broadcast plan.
#include "kernels/reference/where.h"

#include <string>

#include "kernels/reference/binary.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

// U is an unsigned integer of the element's width: selection copies bits unchanged.
template <typename U>
void Select(const BroadcastPlan& plan, const void* cond, const void* x, const void* y, void* out) {
  const BoolByte* c = static_cast<const BoolByte*>(cond);
  const U* a = static_cast<const U*>(x);
  const U* b = static_cast<const U*>(y);
  U* o = static_cast<U*>(out);
  ForEachBroadcast<3>(plan, [&](int64_t i, const std::array<int64_t, 3>& off) {
    o[i] = Elem<BoolByte>::Load(c[off[0]]) ? a[off[1]] : b[off[2]];
  });
}

}  // namespace

Status WhereKernel::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(plan_, MakeNodeBroadcastPlan(ctx));
  switch (DTypeSize(ctx.input(1).dtype)) {
    case 1:
      fn_ = Select<uint8_t>;
      break;
    case 2:
      fn_ = Select<uint16_t>;
      break;
    case 4:
      fn_ = Select<uint32_t>;
      break;
    case 8:
      fn_ = Select<uint64_t>;
      break;
    default:
      return Unsupported("Where on " + std::string(DTypeName(ctx.input(1).dtype)));
  }
  return Status::Ok();
}

Status WhereKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                        void*) {
  fn_(plan_, inputs[0].data, inputs[1].data, inputs[2].data, outputs[0].data);
  return Status::Ok();
}

}  // namespace kiln
