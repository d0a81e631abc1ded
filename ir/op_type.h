// The IR's operator set. The int32 values are written into model files: append only, never
// reuse a value (retire one by leaving a comment in its place).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

// X(enum name, ONNX op_type, stable value)
#define KILN_OP_LIST(X)                        \
  X(Conv, "Conv", 1)                           \
  X(ConvTranspose, "ConvTranspose", 2)         \
  X(Gemm, "Gemm", 3)                           \
  X(MatMul, "MatMul", 4)                       \
  X(BatchNormalization, "BatchNormalization", 5) \
  X(Relu, "Relu", 6)                           \
  X(LeakyRelu, "LeakyRelu", 7)                 \
  X(PRelu, "PRelu", 8)                         \
  X(Clip, "Clip", 9)                           \
  X(Sigmoid, "Sigmoid", 10)                    \
  X(Tanh, "Tanh", 11)                          \
  X(HardSigmoid, "HardSigmoid", 12)            \
  X(HardSwish, "HardSwish", 13)                \
  X(Elu, "Elu", 14)                            \
  X(Selu, "Selu", 15)                          \
  X(Softplus, "Softplus", 16)                  \
  X(Erf, "Erf", 17)                            \
  X(Exp, "Exp", 18)                            \
  X(Log, "Log", 19)                            \
  X(Sqrt, "Sqrt", 20)                          \
  X(Abs, "Abs", 21)                            \
  X(Neg, "Neg", 22)                            \
  X(Reciprocal, "Reciprocal", 23)              \
  X(Floor, "Floor", 24)                        \
  X(Ceil, "Ceil", 25)                          \
  X(Sign, "Sign", 26)                          \
  X(Add, "Add", 27)                            \
  X(Sub, "Sub", 28)                            \
  X(Mul, "Mul", 29)                            \
  X(Div, "Div", 30)                            \
  X(Pow, "Pow", 31)                            \
  X(Max, "Max", 32)                            \
  X(Min, "Min", 33)                            \
  X(Sum, "Sum", 34)                            \
  X(Mean, "Mean", 35)                          \
  X(Equal, "Equal", 36)                        \
  X(Greater, "Greater", 37)                    \
  X(Less, "Less", 38)                          \
  X(Not, "Not", 39)                            \
  X(And, "And", 40)                            \
  X(Or, "Or", 41)                              \
  X(Where, "Where", 42)                        \
  X(MaxPool, "MaxPool", 43)                    \
  X(AveragePool, "AveragePool", 44)            \
  X(GlobalAveragePool, "GlobalAveragePool", 45) \
  X(GlobalMaxPool, "GlobalMaxPool", 46)        \
  X(LRN, "LRN", 47)                            \
  X(InstanceNormalization, "InstanceNormalization", 48) \
  X(Concat, "Concat", 49)                      \
  X(Reshape, "Reshape", 50)                    \
  X(Flatten, "Flatten", 51)                    \
  X(Transpose, "Transpose", 52)                \
  X(Squeeze, "Squeeze", 53)                    \
  X(Unsqueeze, "Unsqueeze", 54)                \
  X(Softmax, "Softmax", 55)                    \
  X(LogSoftmax, "LogSoftmax", 56)              \
  X(Pad, "Pad", 57)                            \
  X(Resize, "Resize", 58)                      \
  X(Upsample, "Upsample", 59)                  \
  X(Slice, "Slice", 60)                        \
  X(Split, "Split", 61)                        \
  X(Gather, "Gather", 62)                      \
  X(Expand, "Expand", 63)                      \
  X(Tile, "Tile", 64)                          \
  X(DepthToSpace, "DepthToSpace", 65)          \
  X(SpaceToDepth, "SpaceToDepth", 66)          \
  X(Shape, "Shape", 67)                        \
  X(Size, "Size", 68)                          \
  X(Range, "Range", 69)                        \
  X(Constant, "Constant", 70)                  \
  X(ConstantOfShape, "ConstantOfShape", 71)    \
  X(Identity, "Identity", 72)                  \
  X(Dropout, "Dropout", 73)                    \
  X(Cast, "Cast", 74)                          \
  X(ReduceMean, "ReduceMean", 75)              \
  X(ReduceMax, "ReduceMax", 76)                \
  X(ReduceMin, "ReduceMin", 77)                \
  X(ReduceSum, "ReduceSum", 78)                \
  X(ReduceProd, "ReduceProd", 79)              \
  X(ReduceL2, "ReduceL2", 80)                  \
  X(ArgMax, "ArgMax", 81)                      \
  X(ArgMin, "ArgMin", 82)                      \
  X(QuantizeLinear, "QuantizeLinear", 83)      \
  X(DequantizeLinear, "DequantizeLinear", 84) \
  X(LayerNormalization, "LayerNormalization", 85) \
  X(Gelu, "Gelu", 86)                          \
  X(GreaterOrEqual, "GreaterOrEqual", 87)      \
  X(LessOrEqual, "LessOrEqual", 88)            \
  X(IsNaN, "IsNaN", 89)                        \
  X(IsInf, "IsInf", 90)                        \
  X(GatherND, "GatherND", 91)                  \
  X(GatherElements, "GatherElements", 92)      \
  X(ScatterND, "ScatterND", 93)                \
  X(ScatterElements, "ScatterElements", 94)    \
  X(Mod, "Mod", 95)                            \
  X(Trilu, "Trilu", 96)                        \
  X(CumSum, "CumSum", 97)

// Kiln's own ops, made by compiler passes, never imported from a model. Value ranges: 85-119
// ONNX ops added later (above list), 120-159 fused ops, 160-199 quantized integer ops,
// 200-239 DSP and other targets.
// X(enum name, display name, stable value)
#define KILN_INTERNAL_OP_LIST(X)                \
  X(FusedConv, "FusedConv", 120)                \
  X(FusedGemm, "FusedGemm", 121)              \
  X(Reorder, "Reorder", 122)                  \
  X(QConv, "QConv", 160)                      \
  X(QGemm, "QGemm", 161)                      \
  X(QAdd, "QAdd", 162)                        \
  X(QMul, "QMul", 163)                        \
  X(QConcat, "QConcat", 164)                  \
  X(QAveragePool, "QAveragePool", 165)        \
  X(QGlobalAveragePool, "QGlobalAveragePool", 166) \
  X(QLookup, "QLookup", 167)

enum class OpType : int32_t {
  kUnknown = 0,
#define KILN_OP_ENUM(name, onnx, value) k##name = value,
  KILN_OP_LIST(KILN_OP_ENUM)
  KILN_INTERNAL_OP_LIST(KILN_OP_ENUM)
#undef KILN_OP_ENUM
};

// The ONNX op_type ("Conv"), or the display name of an internal op ("FusedConv").
std::string_view OpTypeName(OpType op);
// ONNX op_type -> op; internal ops are never matched (a model cannot name them).
std::optional<OpType> OpTypeFromName(std::string_view onnx_op_type);
// True for ops made by Kiln's compiler rather than imported.
bool IsInternalOp(OpType op);
// Every defined op (ONNX then internal), in value order.
const OpType* AllOpTypes(size_t* count);

}  // namespace kiln
