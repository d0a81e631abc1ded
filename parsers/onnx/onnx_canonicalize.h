// Proto-level rewrites around onnx's version converter, for forms it gets wrong or leaves old.
// Internal to parsers/onnx (includes the onnx headers).
#pragma once

#include <onnx/onnx_pb.h>

#include "ir/status.h"

namespace kiln {

// Runs before onnx::version_converter on a model at `opset` (< 13), whose graph inputs already
// have static shapes:
// - Softmax/LogSoftmax before opset 13 normalise over all dims from `axis` on ("flatten to
//   2-D"), opset 13 over `axis` only. The converter's own adapter needs every intermediate
//   shape statically and bakes them into a Reshape; instead, a non-last axis becomes
//   Flatten(axis) -> Softmax(axis=-1) -> Reshape(Shape(x)) (the Shape folds at compile time),
//   and a last axis is just written as axis=-1.
Status CanonicalizeBeforeConversion(onnx::ModelProto& model, int64_t opset);

// Runs after conversion to opset 17, for adapters that are missing or leave old attributes:
// - BatchNormalization: drops a leftover `spatial` (=1) attribute; spatial=0 is rejected.
// - Dropout: drops the removed `is_test` attribute.
Status CanonicalizeAfterConversion(onnx::ModelProto& model);

}  // namespace kiln
