// Verification and model-level checks of a .tflite FlatBuffer.
#include "parsers/tflite/tflite_model.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>

namespace kiln::tflite_import {

std::string OpCode::Name() const {
  if (builtin != tflite::BuiltinOperator::CUSTOM) {
    const char* name = tflite::EnumNameBuiltinOperator(builtin);
    return name && *name ? name : "builtin op " + std::to_string(static_cast<int>(builtin));
  }
  // The converter names TensorFlow ops it could not lower "Flex<TF op>" (the Flex delegate).
  if (custom.rfind("Flex", 0) == 0) return "Flex op '" + custom + "'";
  return "custom op '" + custom + "'";
}

namespace {

// Indexes into `size` elements; -1 allowed where `optional`.
Status CheckIndexes(const flatbuffers::Vector<int32_t>* v, size_t size, bool optional,
                    const std::string& what) {
  if (!v) return Status::Ok();
  for (int32_t i : *v) {
    if (optional && i == -1) continue;
    if (i < 0 || static_cast<size_t>(i) >= size) {
      return InvalidArgument(what + " refers to tensor " + std::to_string(i) +
                             ", but the graph has " + std::to_string(size) + " tensors");
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<TfliteModel> TfliteModel::Open(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) {
    return DataLoss("not a TFLite model: " + std::to_string(bytes.size()) + " bytes");
  }
  if (!tflite::ModelBufferHasIdentifier(bytes.data())) {
    return DataLoss("not a TFLite model: no 'TFL3' file identifier at byte 4");
  }
  // Bounds, offsets, nesting and alignment of every table, vector and string, before any read.
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!tflite::VerifyModelBuffer(verifier)) {
    return DataLoss("TFLite model failed FlatBuffers verification (truncated or corrupt, " +
                    std::to_string(bytes.size()) + " bytes)");
  }
  TfliteModel m;
  m.bytes_ = bytes;
  m.model_ = tflite::GetModel(bytes.data());
  if (m.model_->version() != 3) {
    return Unsupported("TFLite schema version " + std::to_string(m.model_->version()) +
                       "; Kiln reads version 3");
  }
  if (!m.model_->subgraphs() || m.model_->subgraphs()->size() == 0) {
    return InvalidArgument("TFLite model has no subgraph");
  }
  const size_t num_buffers = m.model_->buffers() ? m.model_->buffers()->size() : 0;
  if (m.model_->operator_codes()) {
    for (const tflite::OperatorCode* c : *m.model_->operator_codes()) {
      OpCode code;
      code.builtin = static_cast<tflite::BuiltinOperator>(
          std::max<int32_t>(c->deprecated_builtin_code(), static_cast<int32_t>(c->builtin_code())));
      if (c->custom_code()) code.custom = c->custom_code()->str();
      code.version = c->version();
      m.op_codes_.push_back(std::move(code));
    }
  }
  const tflite::SubGraph& g = m.main_graph();
  const size_t num_tensors = g.tensors() ? g.tensors()->size() : 0;
  KILN_RETURN_IF_ERROR(CheckIndexes(g.inputs(), num_tensors, false, "a graph input"));
  KILN_RETURN_IF_ERROR(CheckIndexes(g.outputs(), num_tensors, false, "a graph output"));
  if (g.tensors()) {
    for (flatbuffers::uoffset_t i = 0; i < g.tensors()->size(); ++i) {
      // LiteRT 2.3.0 can keep weights in files beside the model (Model.external_buffers).
      if (g.tensors()->Get(i)->external_buffer() != 0) {
        return Unsupported("tensor " + std::to_string(i) + " keeps its data in external buffer " +
                           std::to_string(g.tensors()->Get(i)->external_buffer()) +
                           "; Kiln reads weights stored in the .tflite file only");
      }
      if (g.tensors()->Get(i)->buffer() >= std::max<size_t>(num_buffers, 1)) {
        return InvalidArgument("tensor " + std::to_string(i) + " refers to buffer " +
                               std::to_string(g.tensors()->Get(i)->buffer()) +
                               ", but the model has " + std::to_string(num_buffers));
      }
    }
  }
  if (g.operators()) {
    for (flatbuffers::uoffset_t i = 0; i < g.operators()->size(); ++i) {
      const tflite::Operator& op = *g.operators()->Get(i);
      const std::string where = "operator " + std::to_string(i);
      if (op.opcode_index() >= m.op_codes_.size()) {
        return InvalidArgument(where + " has opcode index " + std::to_string(op.opcode_index()) +
                               ", but the model has " + std::to_string(m.op_codes_.size()) +
                               " operator codes");
      }
      KILN_RETURN_IF_ERROR(CheckIndexes(op.inputs(), num_tensors, true, where + ": an input"));
      KILN_RETURN_IF_ERROR(CheckIndexes(op.outputs(), num_tensors, false, where + ": an output"));
    }
  }
  return m;
}

Expected<std::span<const uint8_t>> TfliteModel::TensorData(const tflite::Tensor& tensor) const {
  const uint32_t index = tensor.buffer();
  if (index == 0 || !model_->buffers()) return std::span<const uint8_t>();
  const tflite::Buffer& b = *model_->buffers()->Get(index);
  if (b.offset() > 1) {
    if (b.offset() > bytes_.size() || b.size() > bytes_.size() - b.offset()) {
      return DataLoss("buffer " + std::to_string(index) + " lies outside the file (offset " +
                      std::to_string(b.offset()) + ", size " + std::to_string(b.size()) +
                      ", file " + std::to_string(bytes_.size()) + " bytes)");
    }
    return bytes_.subspan(b.offset(), b.size());
  }
  if (!b.data()) return std::span<const uint8_t>();
  return std::span<const uint8_t>(b.data()->data(), b.data()->size());
}

Expected<std::vector<int64_t>> TensorShape(const tflite::Tensor& tensor, int index) {
  std::vector<int64_t> shape;
  if (!tensor.shape()) return shape;
  for (int32_t d : *tensor.shape()) {
    if (d < 0) {
      return Unsupported("tensor '" + TensorName(tensor, index) + "' has an unknown dim (" +
                         std::to_string(d) + "); Kiln compiles static shapes");
    }
    shape.push_back(d);
  }
  return shape;
}

std::string TensorName(const tflite::Tensor& tensor, int index) {
  if (tensor.name() && tensor.name()->size() > 0) return tensor.name()->str();
  return "tensor_" + std::to_string(index);
}

}  // namespace kiln::tflite_import
