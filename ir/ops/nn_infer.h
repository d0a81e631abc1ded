// Private header of the nn op family: inference functions registered by nn_schemas.cc and
// defined in the nn_*_infer.cc files, plus dtype checks they share.
#pragma once

#include <string>

#include "ir/op_schema.h"

namespace kiln::nn_infer {

// nn_window_infer.cc: ops over sliding windows.
Status Conv(InferenceContext& ctx);
// Conv's geometry (groups, bias, window, output shape) without the dtype checks of X and W;
// shared with FusedConv, whose W may be stored as f16, and QConv (check_bias = false: its
// int32 bias is checked by its own schema).
Status ConvShape(InferenceContext& ctx, bool check_bias = true);
Status ConvTranspose(InferenceContext& ctx);
Status MaxPool(InferenceContext& ctx);
Status AveragePool(InferenceContext& ctx);
Status GlobalPool(InferenceContext& ctx);

// nn_linear_infer.cc: matrix products and normalisations.
Status Gemm(InferenceContext& ctx);
// Gemm's output shape for A read as the 2-D `a` (FusedGemm flattens an N-D A first), B 2-D,
// C broadcasting to the output; no dtype checks.
Status GemmShape(InferenceContext& ctx, const Shape& a);
Status MatMul(InferenceContext& ctx);
Status BatchNormalization(InferenceContext& ctx);
Status InstanceNormalization(InferenceContext& ctx);
Status Lrn(InferenceContext& ctx);
Status LayerNormalization(InferenceContext& ctx);

// nn_resample_infer.cc: ops that change spatial extents by value inputs.
Status Pad(InferenceContext& ctx);
Status Resize(InferenceContext& ctx);
Status Upsample(InferenceContext& ctx);

// Input `i` must be f32 or f16 (the float compute ops).
inline Status RequireFloatInput(const InferenceContext& ctx, size_t i, const char* what) {
  const DType t = ctx.input_dtype(i);
  if (t == DType::kF32 || t == DType::kF16) return Status::Ok();
  return InvalidArgument(std::string(what) + " must be f32 or f16, got " +
                         std::string(DTypeName(t)));
}

// Present input `i` must have the same dtype as input 0.
inline Status RequireSameDType(const InferenceContext& ctx, size_t i, const char* what) {
  if (!ctx.has_input(i) || ctx.input_dtype(i) == ctx.input_dtype(0)) return Status::Ok();
  return InvalidArgument(std::string(what) + " has dtype " +
                         std::string(DTypeName(ctx.input_dtype(i))) + " but input 0 is " +
                         std::string(DTypeName(ctx.input_dtype(0))));
}

}  // namespace kiln::nn_infer
