// Import of pre-quantized ONNX models in QOperator form (QLinearConv, QLinearMatMul,
// ConvInteger, MatMulInteger, and the com.microsoft QLinearAdd/Mul/Concat/
// GlobalAveragePool/AveragePool/Sigmoid/LeakyRelu that ONNX Runtime's quantizer and the model
// zoo's int8 models use). Each such node is rewritten, at the proto level and in the opset-13+
// form, into DequantizeLinear -> the float op -> QuantizeLinear: the QDQ form that models
// quantized by ONNX Runtime's or TensorRT's QDQ tools already have. The compiler's lower-qdq
// pass then turns every pattern into Kiln's integer ops (docs/quantization.md), so both forms
// land in the same quantized IR. Internal to parsers/onnx (includes the onnx headers).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "ir/status.h"

namespace kiln {

// Whether Kiln imports this QOperator op (by domain and op_type).
bool IsQuantizedOnnxOp(const std::string& domain, const std::string& op_type);

// Rewrites every QOperator node of `model` in place (see above); new values and initializers
// get names derived from the node's name. Runs before the per-opset import: the DequantizeLinear
// nodes it writes may carry `axis` whatever the model's opset (Kiln's DequantizeLinear has one
// form), which is how QLinearConv-10's per-channel weights are expressed.
Status ExpandQOperatorNodes(onnx::ModelProto& model, const std::string& base_dir);

}  // namespace kiln
