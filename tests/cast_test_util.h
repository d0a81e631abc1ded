// Test-only helpers for the elementwise kernel tests: typed HostTensor builders and readers.
#pragma once

#include <cstring>
#include <vector>

#include "ir/host_tensor.h"
#include "tests/op_runner.h"

namespace kiln::testing {

// A tensor of dtype `t` whose elements are stored as T (uint16_t bits for f16, uint8_t 0/1
// for bool).
template <typename T>
HostTensor Make(DType t, Shape shape, const std::vector<T>& values) {
  HostTensor h("", t, std::move(shape));
  if (!h.bytes.empty()) std::memcpy(h.bytes.data(), values.data(), h.bytes.size());
  return h;
}

template <typename T>
std::vector<T> Read(const HostTensor& t) {
  std::vector<T> v(static_cast<size_t>(t.num_elements()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

inline OpInput In(HostTensor t) { return OpInput{std::move(t), false, false}; }
inline OpInput Const(HostTensor t) { return OpInput{std::move(t), true, false}; }
inline OpInput Omitted() { return OpInput{HostTensor(), false, true}; }

}  // namespace kiln::testing
