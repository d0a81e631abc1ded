// NumPy .npy files <-> HostTensor (format versions 1.0/2.0/3.0, little-endian, C order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln {

// Supported dtypes: <f4 <f2 |i1 |u1 <i4 <i8 |b1 (one-byte types also accept '<', '>', '='
// prefixes, as byte order is meaningless for them). Big-endian multi-byte data, Fortran order,
// object arrays and any malformed header or size mismatch are errors, never crashes.
Expected<HostTensor> ParseNpy(const uint8_t* data, size_t size);
Expected<HostTensor> ReadNpyFile(const std::string& path);

// Serialises as version 1.0 (2.0 when the header does not fit a 16-bit length).
Expected<std::vector<uint8_t>> EncodeNpy(const HostTensor& tensor);
Status WriteNpyFile(const std::string& path, const HostTensor& tensor);

}  // namespace kiln
