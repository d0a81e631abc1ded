// Private to ir/ops: checks shared by the quantized ops' schemas (quantized_schemas.cc).
#pragma once

#include "ir/op_schema.h"

namespace kiln {

// `v` carries usable QuantParams: scales positive and finite, zero points (if any) one per
// scale and inside v's type range; per-axis parameters only when `allow_per_axis`, matching
// the axis extent. `what` names the operand in messages.
Status CheckQuantParamsOf(const Value& v, bool allow_per_axis, const char* what);
// The `out_dtype` attribute: "u8", "i8" or "i32".
Expected<DType> ReadOutputDType(const InferenceContext& ctx);
// `qmin` <= `qmax`, both inside `out`'s range (absent: the whole range).
Status CheckClampAttrs(const InferenceContext& ctx, DType out);

}  // namespace kiln
