// An owning host tensor: what users feed to and read from a session, and what file readers
// (.npy, .pb, images) produce.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape.h"

namespace kiln {

struct HostTensor {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(std::string n, DType t, Shape s)
      : name(std::move(n)), dtype(t), shape(std::move(s)),
        bytes(static_cast<size_t>(NumElements(shape)) * DTypeSize(t)) {}

  int64_t num_elements() const { return NumElements(shape); }
  template <typename T>
  T* data() { return reinterpret_cast<T*>(bytes.data()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
};

}  // namespace kiln
