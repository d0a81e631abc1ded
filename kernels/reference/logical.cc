// Reference And/Or/Not on bool bytes (any non-zero byte reads as true; writes are 0/1).
#include "kernels/reference/logical.h"

#include <string>

#include "kernels/reference/binary.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {

Status LogicalKernel::Prepare(const KernelContext& ctx) {
  op_ = ctx.node().op;
  if (op_ == OpType::kNot) return Status::Ok();
  if (op_ != OpType::kAnd && op_ != OpType::kOr) {
    return Unsupported("LogicalKernel cannot run " + std::string(OpTypeName(op_)));
  }
  KILN_ASSIGN_OR_RETURN(plan_, MakeNodeBroadcastPlan(ctx));
  return Status::Ok();
}

Status LogicalKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                          void*) {
  using B = Elem<BoolByte>;
  const BoolByte* a = inputs[0].as<const BoolByte>();
  BoolByte* out = outputs[0].as<BoolByte>();
  if (op_ == OpType::kNot) {
    const int64_t n = outputs[0].num_elements();
    for (int64_t i = 0; i < n; ++i) out[i] = B::Store(!B::Load(a[i]));
  } else if (op_ == OpType::kAnd) {
    BroadcastBinary(plan_, a, inputs[1].as<const BoolByte>(), out,
                    [](BoolByte x, BoolByte y) { return B::Store(B::Load(x) && B::Load(y)); });
  } else {
    BroadcastBinary(plan_, a, inputs[1].as<const BoolByte>(), out,
                    [](BoolByte x, BoolByte y) { return B::Store(B::Load(x) || B::Load(y)); });
  }
  return Status::Ok();
}

}  // namespace kiln
