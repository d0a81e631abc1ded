// Schemas (arity, constant inputs, dtype/shape inference) of the nn op family.
#include "ir/op_schema.h"
#include "ir/ops/nn_infer.h"

namespace kiln {

void RegisterNnSchemas(SchemaRegistry& r) {
  namespace ni = nn_infer;
  // {op, min_in, max_in, min_out, max_out, value_inputs, infer}
  r.Register({OpType::kConv, 2, 3, 1, 1, {}, ni::Conv});
  r.Register({OpType::kConvTranspose, 2, 3, 1, 1, {}, ni::ConvTranspose});
  r.Register({OpType::kGemm, 2, 3, 1, 1, {}, ni::Gemm});
  r.Register({OpType::kMatMul, 2, 2, 1, 1, {}, ni::MatMul});
  // Outputs 1-2 (running mean/var) exist only with training_mode=1.
  r.Register({OpType::kBatchNormalization, 5, 5, 1, 3, {}, ni::BatchNormalization});
  r.Register({OpType::kMaxPool, 1, 1, 1, 2, {}, ni::MaxPool});  // output 1: Indices
  r.Register({OpType::kAveragePool, 1, 1, 1, 1, {}, ni::AveragePool});
  r.Register({OpType::kGlobalAveragePool, 1, 1, 1, 1, {}, ni::GlobalPool});
  r.Register({OpType::kGlobalMaxPool, 1, 1, 1, 1, {}, ni::GlobalPool});
  r.Register({OpType::kLRN, 1, 1, 1, 1, {}, ni::Lrn});
  r.Register({OpType::kInstanceNormalization, 3, 3, 1, 1, {}, ni::InstanceNormalization});
  // LayerNormalization-17: X, Scale, B?; outputs Y, Mean?, InvStdDev?.
  r.Register({OpType::kLayerNormalization, 2, 3, 1, 3, {}, ni::LayerNormalization});
  // Pad: data, pads, constant_value (a runtime scalar; only pads fixes the shape), axes (18).
  r.Register({OpType::kPad, 2, 4, 1, 1, {1}, ni::Pad});
  // Resize: X, roi, scales, sizes. roi is read at compile time too (tf_crop_and_resize).
  r.Register({OpType::kResize, 1, 4, 1, 1, {1, 2, 3}, ni::Resize});
  r.Register({OpType::kUpsample, 2, 2, 1, 1, {1}, ni::Upsample});
}

}  // namespace kiln
