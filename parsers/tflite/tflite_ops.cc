// The table of imported builtins and the support check.
#include "parsers/tflite/tflite_ops.h"

#include <functional>
#include <map>

namespace kiln::tflite_import {
namespace {

using B = tflite::BuiltinOperator;
using Converter = std::function<Status(Importer&)>;

const std::map<B, Converter>& Converters() {
  static const std::map<B, Converter> table = {
      {B::CONV_2D, ConvertConv2D},
      {B::DEPTHWISE_CONV_2D, ConvertDepthwiseConv2D},
      {B::TRANSPOSE_CONV, ConvertTransposeConv},
      {B::FULLY_CONNECTED, ConvertFullyConnected},
      {B::AVERAGE_POOL_2D, [](Importer& im) { return ConvertPool2D(im, OpType::kAveragePool); }},
      {B::MAX_POOL_2D, [](Importer& im) { return ConvertPool2D(im, OpType::kMaxPool); }},
      {B::BATCH_MATMUL, ConvertBatchMatMul},
      {B::ADD, [](Importer& im) { return ConvertBinary(im, OpType::kAdd); }},
      {B::SUB, [](Importer& im) { return ConvertBinary(im, OpType::kSub); }},
      {B::MUL, [](Importer& im) { return ConvertBinary(im, OpType::kMul); }},
      {B::DIV, [](Importer& im) { return ConvertBinary(im, OpType::kDiv); }},
      {B::MAXIMUM, [](Importer& im) { return ConvertBinary(im, OpType::kMax); }},
      {B::MINIMUM, [](Importer& im) { return ConvertBinary(im, OpType::kMin); }},
      {B::PRELU, [](Importer& im) { return ConvertBinary(im, OpType::kPRelu); }},
      {B::LOGISTIC, [](Importer& im) { return ConvertUnary(im, OpType::kSigmoid); }},
      {B::TANH, [](Importer& im) { return ConvertUnary(im, OpType::kTanh); }},
      {B::RELU, [](Importer& im) { return ConvertUnary(im, OpType::kRelu); }},
      {B::HARD_SWISH, [](Importer& im) { return ConvertUnary(im, OpType::kHardSwish); }},
      {B::EXP, [](Importer& im) { return ConvertUnary(im, OpType::kExp); }},
      {B::ABS, [](Importer& im) { return ConvertUnary(im, OpType::kAbs); }},
      {B::NEG, [](Importer& im) { return ConvertUnary(im, OpType::kNeg); }},
      {B::SQRT, [](Importer& im) { return ConvertUnary(im, OpType::kSqrt); }},
      {B::RELU6, [](Importer& im) { return ConvertClamp(im, 0.f, 6.f); }},
      {B::RELU_N1_TO_1, [](Importer& im) { return ConvertClamp(im, -1.f, 1.f); }},
      {B::LEAKY_RELU, ConvertLeakyRelu},
      {B::SOFTMAX, ConvertSoftmax},
      {B::QUANTIZE, ConvertQuantizeOrDequantize},
      {B::DEQUANTIZE, ConvertQuantizeOrDequantize},
      {B::DENSIFY, ConvertDensify},
      {B::CONCATENATION, ConvertConcatenation},
      {B::RESHAPE, ConvertReshape},
      {B::SQUEEZE, ConvertReshape},
      {B::EXPAND_DIMS, ConvertReshape},
      {B::TRANSPOSE, ConvertTranspose},
      {B::PAD, ConvertPad},
      {B::PADV2, ConvertPad},
      {B::MEAN, [](Importer& im) { return ConvertReduce(im, OpType::kReduceMean); }},
      {B::SUM, [](Importer& im) { return ConvertReduce(im, OpType::kReduceSum); }},
      {B::REDUCE_MAX, [](Importer& im) { return ConvertReduce(im, OpType::kReduceMax); }},
      {B::REDUCE_MIN, [](Importer& im) { return ConvertReduce(im, OpType::kReduceMin); }},
      {B::RESIZE_BILINEAR, [](Importer& im) { return ConvertResize(im, true); }},
      {B::RESIZE_NEAREST_NEIGHBOR, [](Importer& im) { return ConvertResize(im, false); }},
      {B::STRIDED_SLICE, ConvertStridedSlice},
      {B::GATHER, ConvertGather},
      {B::DEPTH_TO_SPACE,
       [](Importer& im) { return ConvertDepthSpace(im, OpType::kDepthToSpace); }},
      {B::SPACE_TO_DEPTH,
       [](Importer& im) { return ConvertDepthSpace(im, OpType::kSpaceToDepth); }},
  };
  return table;
}

}  // namespace

Status CheckOpsSupported(const TfliteModel& model) {
  const tflite::SubGraph& g = model.main_graph();
  if (!g.operators()) return Status::Ok();
  std::map<std::string, std::vector<int>> bad;  // op name -> operator indexes
  for (flatbuffers::uoffset_t k = 0; k < g.operators()->size(); ++k) {
    const OpCode& code = model.op_code(*g.operators()->Get(k));
    if (code.builtin == B::CUSTOM || !Converters().count(code.builtin)) {
      bad[code.Name()].push_back(static_cast<int>(k));
    }
  }
  if (bad.empty()) return Status::Ok();
  std::string msg = "unsupported TFLite ops (" + std::to_string(bad.size()) + "): ";
  bool first = true;
  for (const auto& [name, indexes] : bad) {
    msg += (first ? "" : "; ") + name + " (operator " + std::to_string(indexes[0]) +
           (indexes.size() > 1 ? " and " + std::to_string(indexes.size() - 1) + " more" : "") + ")";
    first = false;
  }
  return Unsupported(msg);
}

Status ConvertOperator(Importer& im, tflite::BuiltinOperator op) {
  auto it = Converters().find(op);
  if (it == Converters().end()) return Unsupported(im.Where() + ": op is not supported");
  return it->second(im);
}

Status NeedInputs(const Importer& im, size_t count) {
  const OpContext& c = im.op();
  for (size_t k = 0; k < count; ++k) {
    if (c.Input(k) < 0) {
      return InvalidArgument(
          im.Where() + " needs " + std::to_string(count) + " inputs, has " +
          std::to_string(c.inputs.size()) +
          (k < c.inputs.size() ? " (input " + std::to_string(k) + " omitted)" : ""));
    }
  }
  return Status::Ok();
}

Status NeedRank(const Importer& im, int tensor, int64_t rank) {
  if (im.rank(tensor) == rank) return Status::Ok();
  return InvalidArgument(im.Where() + ": tensor '" + im.name(tensor) + "' " +
                         ShapeToString(im.shape(tensor)) + " must have rank " +
                         std::to_string(rank));
}

Status MissingOptions(const Importer& im) {
  return InvalidArgument(im.Where() + ": its builtin options are missing or of the wrong type");
}

}  // namespace kiln::tflite_import
