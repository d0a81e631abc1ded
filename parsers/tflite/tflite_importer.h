// The state of one TFLite -> Kiln IR import and the building blocks the op converters use
// (tflite_ops_*.cc). TFLite tensors are NHWC; Kiln's layout-sensitive ops are NCHW. A rank-4
// tensor may therefore be held in two forms: plain (TFLite's NHWC order) and NCHW. Converters
// ask for the form they compute in and a Transpose is inserted only where a tensor changes
// form (graph inputs and outputs, and ops that read the NHWC order itself, such as RESHAPE);
// the compiler's fold-transposes pass removes the inverse pairs this leaves. Constant weights
// are transposed by constant folding at import (OHWI -> OIHW), never at run time.
//
// Quantized tensors (int8/uint8 codes, int32 biases with a scale) hold their integer codes;
// converters read them through DequantizeLinear and their quantized outputs are written by
// QuantizeLinear, with the model's own scales and zero points (per channel where the model
// has them): the QDQ form that pre-quantized ONNX models have, which the compiler's lower-qdq
// pass turns into Kiln's integer ops. Nothing is requantized at import.
// Internal to parsers/tflite.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "parsers/tflite/tflite_model.h"

namespace kiln::tflite_import {

enum class Form { kPlain = 0, kNchw = 1 };

// NHWC axis -> NCHW axis of a rank-4 tensor, and the Transpose permutations between them.
int64_t NchwAxis(int64_t nhwc_axis);
inline const std::vector<int64_t> kToNchw = {0, 3, 1, 2};
inline const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};

// The operator being converted.
struct OpContext {
  const tflite::Operator* op = nullptr;
  int index = 0;
  std::string name;         // its node name: its first output tensor's name
  std::string type;         // "CONV_2D", ...
  std::vector<int> inputs;  // tensor indexes, -1 for omitted optional inputs
  std::vector<int> outputs;

  int Input(size_t k) const { return k < inputs.size() ? inputs[k] : -1; }
};

class Importer {
 public:
  explicit Importer(const TfliteModel& model);

  // The whole import: graph inputs, every operator in order, graph outputs.
  Expected<Graph> Run();

  // --- tensors ---
  const tflite::Tensor& tensor(int i) const;
  const std::vector<int64_t>& shape(int i) const { return shapes_[static_cast<size_t>(i)]; }
  int64_t rank(int i) const { return static_cast<int64_t>(shape(i).size()); }
  DType dtype(int i) const { return dtypes_[static_cast<size_t>(i)]; }
  const std::string& name(int i) const { return names_[static_cast<size_t>(i)]; }
  bool IsConstant(int i) const;
  bool IsQuantized(int i) const { return !quant_[static_cast<size_t>(i)].empty(); }
  const QuantParams& quant(int i) const { return quant_[static_cast<size_t>(i)]; }
  // The form a rank-4 tensor is already held in (NCHW when it is), else plain.
  Form HeldForm(int i) const;

  // The f32 value of tensor i in form f (DequantizeLinear of quantized codes, a Cast of f16).
  Expected<ValueId> Real(int i, Form f);
  // The f32 value of tensor i (rank <= 4) as an operand broadcast against NCHW rank-4 values:
  // rank 4 in NCHW form; lower ranks aligned to NHWC's trailing axes, then transposed.
  Expected<ValueId> RealAsNchw(int i);
  // Tensor i as stored (codes for quantized tensors) in form f.
  Expected<ValueId> Stored(int i, Form f);
  // Weights permuted by `perm` (empty: as stored), as f32: a constant's DequantizeLinear of its
  // codes with the per-channel axis carried through the permutation, or its f32/f16 values; an
  // op's output (DEQUANTIZE of float16 weights, DENSIFY) as its real value, transposed (the
  // import's constant folding makes both constants).
  Expected<ValueId> Weight(int i, const std::vector<int64_t>& perm);
  // The integer values of a constant int32/int64 tensor (shapes, axes, paddings).
  Expected<std::vector<int64_t>> ConstantInts(int i) const;

  // --- building ---
  // Adds a node of the current op (named after it, its provenance) with one new output,
  // runs its shape inference and returns the output.
  Expected<ValueId> Emit(OpType op, std::vector<ValueId> inputs, Attributes attrs = {});
  ValueId ConstI64(const std::vector<int64_t>& values);
  ValueId ConstF32(float value);
  // A Reshape of x to `shape`.
  Expected<ValueId> ReshapeTo(ValueId x, const std::vector<int64_t>& shape);
  // The fused activation of an op applied to x (NONE: x).
  Expected<ValueId> Activation(ValueId x, tflite::ActivationFunctionType act);
  // Defines tensor i (an output of the current op) from its real value in form f: quantized
  // outputs get a QuantizeLinear with their parameters. The shape Kiln infers must be the
  // declared one (the input's layout taken into account), or the import fails naming the op.
  Status Define(int i, ValueId real, Form f);
  // Defines tensor i from a value already in its stored type (codes of a quantized tensor):
  // the ops that only move or densify data.
  Status DefineStored(int i, ValueId stored, Form f);

  const OpContext& op() const { return *op_; }
  // "operator 3 (CONV_2D) 'name'": how errors name the current op.
  std::string Where() const;
  const Graph& graph() const { return graph_; }

 private:
  struct Slot {
    ValueId stored[2] = {kNoValue, kNoValue};  // by Form
    ValueId real[2] = {kNoValue, kNoValue};
  };
  Status DeclareTensors();
  // The error for a tensor of an element type Kiln does not have (types are checked on use).
  Status CheckTyped(int i) const;
  Status ReadQuantization(int i);
  Expected<ValueId> ConstantValue(int i);
  // x followed by the scale and zero-point constants of q (no zero point for int32 biases).
  std::vector<ValueId> QuantInputs(ValueId x, const QuantParams& q, DType type);
  Expected<ValueId> Dequantize(ValueId codes, const QuantParams& q, DType type);
  // The f32 value of `stored` (tensor i's codes, moved so that its channel axis is `axis`).
  Expected<ValueId> ToReal(int i, ValueId stored, int64_t axis);
  Expected<ValueId> ConvertForm(int i, Form to);
  Status ImportOperator(int index);
  std::string FreshName(const std::string& base);

  const TfliteModel& model_;
  const tflite::SubGraph& subgraph_;
  Graph graph_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<DType> dtypes_;
  std::vector<std::string> names_;
  std::vector<QuantParams> quant_;
  std::vector<Slot> slots_;
  const OpContext* op_ = nullptr;
  OpContext boundary_;  // the "op" that graph input/output transposes belong to
  int fresh_ = 0;
  ValueId first_value_of_op_ = 0;  // values from here on were made by the current op
};

}  // namespace kiln::tflite_import
