// Parameter readers shared by the quantized reference kernels.
#include "kernels/reference/quantized_util.h"

#include <cstring>
#include <limits>
#include <string>

namespace kiln {

int32_t ZeroPointOf(const Value& v) {
  return v.quant.zero_points.empty() ? 0 : static_cast<int32_t>(v.quant.zero_points[0]);
}

std::vector<int32_t> ZeroPointsOf(const Value& v, int64_t channels) {
  std::vector<int32_t> zp(static_cast<size_t>(channels), ZeroPointOf(v));
  if (v.quant.per_axis() && static_cast<int64_t>(v.quant.zero_points.size()) == channels) {
    for (int64_t c = 0; c < channels; ++c) {
      zp[static_cast<size_t>(c)] = static_cast<int32_t>(v.quant.zero_points[static_cast<size_t>(c)]);
    }
  }
  return zp;
}

Expected<std::vector<Requant>> ReadRequant(const Value& v, int64_t rows) {
  if (!v.is_constant() || v.dtype != DType::kI32 || v.shape.size() != 2 || v.shape[1] != 2 ||
      (v.shape[0] != 1 && v.shape[0] != rows)) {
    return InvalidArgument("requantization constant '" + v.name + "' must be an i32 [1 or " +
                           std::to_string(rows) + ", 2] constant");
  }
  const int64_t n = v.shape[0];
  std::vector<int32_t> raw(static_cast<size_t>(n * 2));
  std::memcpy(raw.data(), v.constant->data(), raw.size() * sizeof(int32_t));
  std::vector<Requant> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t src = n == 1 ? 0 : r;
    Requant q{raw[static_cast<size_t>(src * 2)], raw[static_cast<size_t>(src * 2 + 1)]};
    if (!IsValidRequant(q)) {
      return InvalidArgument("requantization constant '" + v.name + "' row " +
                             std::to_string(src) + " is (" + std::to_string(q.multiplier) + ", " +
                             std::to_string(q.shift) +
                             "): the multiplier must be >= 0 and the shift in 1..62");
    }
    out[static_cast<size_t>(r)] = q;
  }
  return out;
}

Expected<std::vector<int64_t>> ReadQuantBias(const Value& b) {
  if (!b.is_constant()) return Unsupported("bias '" + b.name + "' is not a constant");
  std::vector<int64_t> out(static_cast<size_t>(b.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    if (b.dtype == DType::kI64) {
      std::memcpy(&out[i], b.constant->data() + i * 8, 8);
    } else {
      int32_t v;
      std::memcpy(&v, b.constant->data() + i * 4, 4);
      out[i] = v;
    }
  }
  return out;
}

QuantClamp ReadClamp(const Attributes& attrs, DType out) {
  QuantClamp c;
  c.lo = static_cast<int32_t>(attrs.GetInt("qmin", QuantCodeMin(out)));
  c.hi = static_cast<int32_t>(attrs.GetInt("qmax", QuantCodeMax(out)));
  return c;
}

void CenterTo16(const void* x, DType t, int32_t zero_point, int64_t n, int16_t* out) {
  if (t == DType::kI16) {
    std::memcpy(out, x, static_cast<size_t>(n) * sizeof(int16_t));  // zero point 0 (checked)
  } else if (t == DType::kU8) {
    const auto* p = static_cast<const uint8_t*>(x);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int16_t>(p[i] - zero_point);
  } else {
    const auto* p = static_cast<const int8_t*>(x);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int16_t>(p[i] - zero_point);
  }
}

}  // namespace kiln
