// The TFLite builtin operators Kiln imports, and their converters into Kiln's IR. Each
// converter reads the current op from the Importer (tflite_importer.h), emits Kiln ops in the
// form (plain or NCHW) it computes in, and defines the op's output tensors.
// Internal to parsers/tflite.
#pragma once

#include "ir/status.h"
#include "parsers/tflite/tflite_importer.h"

namespace kiln::tflite_import {

// One error naming every operator of the main subgraph Kiln cannot import (custom ops and
// Flex ops by their names, builtins by theirs, with the operator indexes).
Status CheckOpsSupported(const TfliteModel& model);

// Converts the Importer's current operator.
Status ConvertOperator(Importer& im, tflite::BuiltinOperator op);

// --- converters, by family ---
// tflite_ops_nn.cc
Status ConvertConv2D(Importer& im);
Status ConvertDepthwiseConv2D(Importer& im);
Status ConvertTransposeConv(Importer& im);
Status ConvertFullyConnected(Importer& im);
Status ConvertPool2D(Importer& im, OpType type);
Status ConvertBatchMatMul(Importer& im);
// tflite_ops_elementwise.cc
Status ConvertBinary(Importer& im, OpType type);
Status ConvertUnary(Importer& im, OpType type);
Status ConvertClamp(Importer& im, float lo, float hi);
Status ConvertLeakyRelu(Importer& im);
Status ConvertSoftmax(Importer& im);
Status ConvertQuantizeOrDequantize(Importer& im);
Status ConvertDensify(Importer& im);
// tflite_ops_tensor.cc
Status ConvertConcatenation(Importer& im);
Status ConvertReshape(Importer& im);
Status ConvertTranspose(Importer& im);
Status ConvertPad(Importer& im);
Status ConvertReduce(Importer& im, OpType type);
Status ConvertResize(Importer& im, bool bilinear);
Status ConvertStridedSlice(Importer& im);
Status ConvertGather(Importer& im);
Status ConvertDepthSpace(Importer& im, OpType type);

// Shared checks.
Status NeedInputs(const Importer& im, size_t count);
Status NeedRank(const Importer& im, int tensor, int64_t rank);
Status MissingOptions(const Importer& im);

}  // namespace kiln::tflite_import
