// Schemas (arity, constant inputs, dtype/shape inference) of the elementwise op family, at
// ONNX opset-17 semantics.
#include <limits>

#include "ir/op_schema.h"
#include "ir/ops/elementwise_infer.h"

namespace kiln {
namespace {

constexpr int kUnbounded = std::numeric_limits<int>::max();

void Add(SchemaRegistry& r, OpType op, int min_in, int max_in, InferFn infer,
         std::vector<int> value_inputs = {}) {
  OpSchema s;
  s.op = op;
  s.min_inputs = min_in;
  s.max_inputs = max_in;
  s.value_inputs = std::move(value_inputs);
  s.infer = infer;
  r.Register(std::move(s));
}

}  // namespace

void RegisterElementwiseSchemas(SchemaRegistry& r) {
  for (OpType op :
       {OpType::kSigmoid, OpType::kTanh, OpType::kHardSigmoid, OpType::kHardSwish, OpType::kElu,
        OpType::kSelu, OpType::kSoftplus, OpType::kErf, OpType::kGelu, OpType::kExp, OpType::kLog,
        OpType::kSqrt, OpType::kReciprocal, OpType::kFloor, OpType::kCeil, OpType::kLeakyRelu}) {
    Add(r, op, 1, 1, InferUnaryFloat);
  }
  for (OpType op : {OpType::kRelu, OpType::kAbs, OpType::kNeg, OpType::kSign}) {
    Add(r, op, 1, 1, InferUnaryNumeric);
  }
  Add(r, OpType::kClip, 1, 3, InferClip);
  Add(r, OpType::kNot, 1, 1, InferNot);
  Add(r, OpType::kIsNaN, 1, 1, InferFloatClass);
  Add(r, OpType::kIsInf, 1, 1, InferFloatClass);
  Add(r, OpType::kSoftmax, 1, 1, InferSoftmax);
  Add(r, OpType::kLogSoftmax, 1, 1, InferSoftmax);

  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv}) {
    Add(r, op, 2, 2, InferArithmetic);
  }
  Add(r, OpType::kPow, 2, 2, InferPow);
  Add(r, OpType::kMod, 2, 2, InferMod);
  Add(r, OpType::kPRelu, 2, 2, InferPRelu);
  for (OpType op : {OpType::kEqual, OpType::kGreater, OpType::kLess, OpType::kGreaterOrEqual,
                    OpType::kLessOrEqual}) {
    Add(r, op, 2, 2, InferCompare);
  }
  Add(r, OpType::kAnd, 2, 2, InferLogical);
  Add(r, OpType::kOr, 2, 2, InferLogical);
  for (OpType op : {OpType::kMax, OpType::kMin, OpType::kSum, OpType::kMean}) {
    Add(r, op, 1, kUnbounded, InferVariadic);
  }
  Add(r, OpType::kWhere, 3, 3, InferWhere);

  // ReduceSum-13 takes axes as an input; the others take an attribute at opset 17. Accepting
  // the input on all of them also covers opset-18 forms that survive conversion unchanged.
  for (OpType op : {OpType::kReduceMean, OpType::kReduceMax, OpType::kReduceMin, OpType::kReduceSum,
                    OpType::kReduceProd, OpType::kReduceL2}) {
    Add(r, op, 1, 2, InferReduce, {1});
  }
  Add(r, OpType::kArgMax, 1, 1, InferArgReduce);
  Add(r, OpType::kArgMin, 1, 1, InferArgReduce);

  Add(r, OpType::kCast, 1, 1, InferCast);
  Add(r, OpType::kQuantizeLinear, 2, 3, InferQuantizeLinear);
  Add(r, OpType::kDequantizeLinear, 2, 3, InferDequantizeLinear);
}

}  // namespace kiln
