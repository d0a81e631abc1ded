// Sparse constant tensors (TFLite's SparsityParameters, a TACO-style format: a traversal order
// of the dims and of optional block dims, each level dense or CSR) expanded to dense bytes, as
// TFLite's own DENSIFY does, with every index, segment and count checked against the dense
// shape. Internal to parsers/tflite.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/status.h"
#include "parsers/tflite/schema/schema_generated.h"

namespace kiln::tflite_import {

// The dense bytes of a tensor of `shape` whose stored non-zero values (in traversal order,
// `element_size` bytes each) are `values`; missing elements are zero bytes.
Expected<std::vector<uint8_t>> Densify(const tflite::SparsityParameters& sparsity,
                                       const std::vector<int64_t>& shape, size_t element_size,
                                       std::span<const uint8_t> values);

}  // namespace kiln::tflite_import
