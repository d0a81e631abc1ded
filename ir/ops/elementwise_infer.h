// Private to ir/ops: dtype/shape inference functions of the elementwise op family.
#pragma once

#include "ir/op_schema.h"

namespace kiln {

// Unary (elementwise_unary.cc).
Status InferUnaryFloat(InferenceContext& ctx);    // float input, same dtype/shape out
Status InferUnaryNumeric(InferenceContext& ctx);  // any non-bool input
Status InferClip(InferenceContext& ctx);
Status InferNot(InferenceContext& ctx);
Status InferFloatClass(InferenceContext& ctx);  // IsNaN, IsInf: float input -> bool
Status InferSoftmax(InferenceContext& ctx);

// Broadcasting (elementwise_broadcast.cc).
Status InferArithmetic(InferenceContext& ctx);  // Add, Sub, Mul, Div
Status InferPow(InferenceContext& ctx);
Status InferMod(InferenceContext& ctx);
Status InferPRelu(InferenceContext& ctx);
Status InferCompare(InferenceContext& ctx);   // Equal, Greater, Less, ...OrEqual -> bool
Status InferLogical(InferenceContext& ctx);   // And, Or
Status InferVariadic(InferenceContext& ctx);  // Max, Min, Sum, Mean
Status InferWhere(InferenceContext& ctx);

// Reductions (elementwise_reduce.cc).
Status InferReduce(InferenceContext& ctx);
Status InferArgReduce(InferenceContext& ctx);

// Conversions (elementwise_cast.cc).
Status InferCast(InferenceContext& ctx);
Status InferQuantizeLinear(InferenceContext& ctx);
Status InferDequantizeLinear(InferenceContext& ctx);

}  // namespace kiln
