// Test helpers for the DSP target: random quantized operands and requantization constants.
#pragma once

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::dsptest {

struct Operand {
  HostTensor t;
  QuantParams q;
  bool constant = false;
  bool omitted = false;
};

inline QuantParams Zp(int64_t zp) {
  QuantParams q;
  q.scales = {0.05};
  q.zero_points = {zp};
  return q;
}

inline HostTensor RandomCodes(std::mt19937& rng, DType t, Shape shape, int lo = -1000, int hi = 1000) {
  HostTensor h("", t, std::move(shape));
  const int a = std::max(lo, QuantTypeMin(t)), b = std::min(hi, QuantTypeMax(t));
  std::uniform_int_distribution<int> d(a, b);
  for (int64_t i = 0; i < h.num_elements(); ++i) StoreQuantized(h.bytes.data(), t, i, d(rng));
  return h;
}

inline HostTensor I32(Shape shape, const std::vector<int32_t>& v) {
  HostTensor h("", DType::kI32, std::move(shape));
  std::memcpy(h.bytes.data(), v.data(), v.size() * 4);
  return h;
}

// `rows` valid (multiplier, shift) pairs for real multipliers around 2^-shift_center.
inline Operand Requants(std::mt19937& rng, int64_t rows, int shift_lo, int shift_hi) {
  std::uniform_int_distribution<int32_t> m(1 << 30, std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int> s(shift_lo, shift_hi);
  std::vector<int32_t> raw;
  for (int64_t r = 0; r < rows; ++r) {
    raw.push_back(m(rng));
    raw.push_back(s(rng));
  }
  return {I32({rows, 2}, raw), {}, true, false};
}

// Adds `o` to `g` as a constant, or as a graph input (its tensor appended to `feeds`).
inline ValueId AddOperand(Graph& g, const Operand& o, const std::string& name,
                          std::vector<HostTensor>* feeds) {
  if (o.omitted) return kNoValue;
  const HostTensor& t = o.t;
  ValueId id;
  if (o.constant) {
    id = g.AddConstant(name, t.dtype, t.shape, ConstantBytes::Copy(t.bytes.data(), t.bytes.size()));
  } else {
    Value v;
    v.name = name;
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.shape_known = true;
    id = g.AddValue(v);
    g.inputs().push_back(id);
    HostTensor f = t;
    f.name = name;
    feeds->push_back(std::move(f));
  }
  g.value(id).quant = o.q;
  return id;
}

}  // namespace kiln::dsptest
