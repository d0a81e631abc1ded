// A verified view of a .tflite file: the FlatBuffers Verifier runs over the whole buffer before
// anything reads it, then the model-level rules Kiln relies on are checked (one subgraph to
// import, tensor and buffer indexes in range, operator codes resolved to names; custom and
// Flex ops refused by name). Internal to parsers/tflite (includes the generated schema).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/status.h"
#include "parsers/tflite/schema/schema_generated.h"

namespace kiln::tflite_import {

// One operator code of the model, resolved (the larger of deprecated_builtin_code and
// builtin_code, as TFLite's own reader does).
struct OpCode {
  tflite::BuiltinOperator builtin = tflite::BuiltinOperator::ADD;
  std::string custom;  // custom_code of CUSTOM ops
  int version = 1;
  std::string Name() const;  // "CONV_2D", "CUSTOM 'MyOp'", "Flex op 'FlexErf'"
};

class TfliteModel {
 public:
  // Verifies `bytes` (kept alive by the caller for the life of the view) and the rules above.
  static Expected<TfliteModel> Open(std::span<const uint8_t> bytes);

  const tflite::Model& model() const { return *model_; }
  const tflite::SubGraph& main_graph() const { return *model_->subgraphs()->Get(0); }
  const std::vector<OpCode>& op_codes() const { return op_codes_; }
  const OpCode& op_code(const tflite::Operator& op) const { return op_codes_[op.opcode_index()]; }

  // The constant bytes of a tensor: empty when it has no buffer (an activation). Buffers stored
  // after the FlatBuffer (offset/size, models over 2 GB) are bounds-checked against the file.
  Expected<std::span<const uint8_t>> TensorData(const tflite::Tensor& tensor) const;

 private:
  std::span<const uint8_t> bytes_;
  const tflite::Model* model_ = nullptr;
  std::vector<OpCode> op_codes_;
};

// The shape a tensor declares ([] for scalars); errors on negative dims.
Expected<std::vector<int64_t>> TensorShape(const tflite::Tensor& tensor, int index);
// The tensor's name for messages and values ("tensor_<index>" when it has none).
std::string TensorName(const tflite::Tensor& tensor, int index);

}  // namespace kiln::tflite_import
