// Reading ONNX TensorProto (.pb files, initializers, Constant values) into HostTensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/status.h"

namespace onnx {
class TensorProto;  // forward declaration: callers need not include the onnx headers
}  // namespace onnx

namespace kiln {

// Maps an onnx::TensorProto_DataType value to a Kiln dtype; Unsupported for types Kiln has no
// dtype for (DOUBLE, STRING, ...). `what` names the tensor/value in the message.
Expected<DType> DTypeFromOnnx(int32_t onnx_type, const std::string& what);
// Name of an onnx::TensorProto_DataType value ("FLOAT", "DOUBLE", ...), for messages.
std::string OnnxDataTypeName(int32_t onnx_type);

// Reads a serialized TensorProto file (the ONNX test-data layout: input_0.pb, output_0.pb).
// External data is resolved relative to the file's folder.
Expected<HostTensor> ReadTensorProtoFile(const std::string& path);
// Every PREFIX<i>.pb in `dir` for i = 0, 1, ... while the file exists (a test-data set's
// "input_" or "output_" tensors); the first that does not read is the error.
Expected<std::vector<HostTensor>> ReadTensorProtoSet(const std::string& dir,
                                                     const std::string& prefix);

// Converts a TensorProto: raw_data or the typed fields (float_data; int32_data, which also
// holds f16 bits / i8 / u8 / bool; int64_data), or external data (location relative to
// base_dir, offset/length bounds-checked against the file).
Expected<HostTensor> TensorProtoToHostTensor(const onnx::TensorProto& proto,
                                             const std::string& base_dir);

// Replaces an EXTERNAL tensor's reference by its bytes (raw_data), read and bounds-checked as
// above; other tensors are left alone. Needed before onnx's version converter, which drops
// external-data references.
Status InlineExternalData(onnx::TensorProto& proto, const std::string& base_dir);

}  // namespace kiln
