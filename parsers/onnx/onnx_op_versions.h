// Per-op ONNX version handling: nodes of any opset 7..23 become the one form Kiln's op schemas
// implement (ONNX Runtime and TensorRT import this way too; no onnx version converter).
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace kiln {

// Oldest and newest ai.onnx opsets Kiln imports (older models are accepted only when every op
// they use is unchanged since opset 7: see the parser).
inline constexpr int64_t kMinOnnxOpset = 7;
inline constexpr int64_t kMaxOnnxOpset = 23;

// Rewrites node `id` of `graph`, built from an ONNX node at `opset` (its inputs resolved), into
// Kiln's form. Attribute forms that later opsets moved to inputs become constant inputs
// (Slice < 10, Pad < 11 pads, Split < 13, Squeeze/Unsqueeze < 13, Upsample < 9); Resize-10
// gains its roi slot and Upsample-like coordinates; attributes with no meaning for inference
// are dropped (Dropout < 12 ratio/is_test, BatchNormalization < 9 spatial=1); signatures that
// do not match the opset are refused (e.g. a Reduce* axes input before opset 18), as are
// features Kiln lacks (BatchNormalization spatial=0, block-wise quantization).
Status UpgradeNode(Graph& graph, NodeId id, int64_t opset);

// After every node is built: the rewrites that need an input's dtype or rank, read from a
// trial shape inference over a copy of the graph (no folding):
// - Softmax/LogSoftmax < 13 normalise over all dims from `axis` on. When `axis` is the last
//   dim (the common case) only axis=-1 is written; otherwise, or when the rank is unknown,
//   Flatten(axis) -> Softmax(axis=-1) -> Reshape(Shape(x));
// - Clip < 11 min/max attributes and Pad < 11 `value` become constant inputs of x's dtype
//   (f32 when the trial could not tell).
Status UpgradeTypedForms(Graph& graph);

}  // namespace kiln
