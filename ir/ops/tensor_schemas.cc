// Schemas (arity, constant inputs, dtype/shape inference) of the tensor op family. The
// inference functions live in tensor_*_infer.cc.
#include "ir/op_schema.h"
#include "ir/ops/tensor_infer.h"

namespace kiln {
namespace {

// Upper bound for variadic arity (Concat inputs, Split outputs).
constexpr int kVariadic = 1 << 16;

OpSchema Make(OpType op, int min_in, int max_in, InferFn infer, std::vector<int> value_inputs = {},
              int min_out = 1, int max_out = 1) {
  OpSchema s;
  s.op = op;
  s.min_inputs = min_in;
  s.max_inputs = max_in;
  s.min_outputs = min_out;
  s.max_outputs = max_out;
  s.value_inputs = std::move(value_inputs);
  s.infer = infer;
  return s;
}

}  // namespace

void RegisterTensorSchemas(SchemaRegistry& r) {
  namespace ti = tensor_infer;
  r.Register(Make(OpType::kConcat, 1, kVariadic, ti::InferConcat));
  r.Register(Make(OpType::kReshape, 2, 2, ti::InferReshape, {1}));
  r.Register(Make(OpType::kFlatten, 1, 1, ti::InferFlatten));
  r.Register(Make(OpType::kTranspose, 1, 1, ti::InferTranspose));
  r.Register(Make(OpType::kSqueeze, 1, 2, ti::InferSqueeze, {1}));
  r.Register(Make(OpType::kUnsqueeze, 2, 2, ti::InferUnsqueeze, {1}));
  r.Register(Make(OpType::kSlice, 3, 5, ti::InferSlice, {1, 2, 3, 4}));
  r.Register(Make(OpType::kSplit, 1, 2, ti::InferSplit, {1}, 1, kVariadic));
  r.Register(Make(OpType::kGather, 2, 2, ti::InferGather));
  r.Register(Make(OpType::kGatherND, 2, 2, ti::InferGatherND));
  r.Register(Make(OpType::kGatherElements, 2, 2, ti::InferGatherElements));
  r.Register(Make(OpType::kScatterND, 3, 3, ti::InferScatterND));
  r.Register(Make(OpType::kScatterElements, 3, 3, ti::InferScatterElements));
  r.Register(Make(OpType::kTrilu, 1, 2, ti::InferTrilu));
  r.Register(Make(OpType::kCumSum, 2, 2, ti::InferCumSum));
  r.Register(Make(OpType::kExpand, 2, 2, ti::InferExpand, {1}));
  r.Register(Make(OpType::kTile, 2, 2, ti::InferTile, {1}));
  r.Register(Make(OpType::kDepthToSpace, 1, 1, ti::InferDepthToSpace));
  r.Register(Make(OpType::kSpaceToDepth, 1, 1, ti::InferSpaceToDepth));
  r.Register(Make(OpType::kShape, 1, 1, ti::InferShape));
  r.Register(Make(OpType::kSize, 1, 1, ti::InferSize));
  r.Register(Make(OpType::kRange, 3, 3, ti::InferRange, {0, 1, 2}));
  r.Register(Make(OpType::kConstant, 0, 0, ti::InferConstant));
  r.Register(Make(OpType::kConstantOfShape, 1, 1, ti::InferConstantOfShape, {0}));
  r.Register(Make(OpType::kIdentity, 1, 1, ti::InferIdentity));
  // ratio and training_mode do not shape the output: they may stay runtime inputs, and the
  // kernel rejects a training run it cannot do.
  r.Register(Make(OpType::kDropout, 1, 3, ti::InferDropout, {}, 1, 2));
}

}  // namespace kiln
