// Parameter readers shared by the quantized reference kernels.
#include "kernels/reference/quantized_util.h"

#include <cstring>
#include <limits>
#include <string>

#include "ir/quant_code.h"

namespace kiln {

int32_t QuantTypeMin(DType t) { return QuantCodeMin(t); }
int32_t QuantTypeMax(DType t) { return QuantCodeMax(t); }

int32_t ZeroPointOf(const Value& v) {
  return v.quant.zero_points.empty() ? 0 : static_cast<int32_t>(v.quant.zero_points[0]);
}

std::vector<int32_t> ZeroPointsOf(const Value& v, int64_t channels) {
  std::vector<int32_t> zp(static_cast<size_t>(channels), ZeroPointOf(v));
  if (v.quant.per_axis() && static_cast<int64_t>(v.quant.zero_points.size()) == channels) {
    for (int64_t c = 0; c < channels; ++c) {
      zp[static_cast<size_t>(c)] =
          static_cast<int32_t>(v.quant.zero_points[static_cast<size_t>(c)]);
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
      return InvalidArgument("requantization constant '" + v.name + "' row " + std::to_string(src) +
                             " is (" + std::to_string(q.multiplier) + ", " +
                             std::to_string(q.shift) +
                             "): the multiplier must be >= 0 and the shift in 1..62");
    }
    out[static_cast<size_t>(r)] = q;
  }
  return out;
}

Status CheckWeightType(const Value& w, const std::vector<int32_t>& zero_points) {
  if (w.dtype != DType::kU8 && w.dtype != DType::kI8 && w.dtype != DType::kI16) {
    return InvalidArgument("weight '" + w.name + "' must be u8, i8 or i16");
  }
  if (w.dtype == DType::kI16) {
    for (int32_t z : zero_points) {
      if (z != 0) return InvalidArgument("i16 weight '" + w.name + "' has a non-zero zero point");
    }
  }
  return Status::Ok();
}

Expected<std::vector<int64_t>> ReadQuantBias(const Value& b, int64_t n, bool wide) {
  const bool i64 = b.dtype == DType::kI64;
  if (!b.is_constant() || (b.dtype != DType::kI32 && !(wide && i64)) || b.num_elements() != n ||
      b.constant->size() != static_cast<size_t>(n) * DTypeSize(b.dtype)) {
    return InvalidArgument("bias '" + b.name + "' must be a constant of " + std::to_string(n) +
                           (wide ? " i32 or i64" : " i32") + " values");
  }
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (i64) {
      std::memcpy(&out[static_cast<size_t>(i)], b.constant->data() + i * 8, 8);
    } else {
      int32_t v;
      std::memcpy(&v, b.constant->data() + i * 4, 4);
      out[static_cast<size_t>(i)] = v;
    }
  }
  return out;
}

QuantClamp ReadClamp(const Attributes& attrs, DType out) {
  QuantClamp c;
  c.lo = static_cast<int32_t>(attrs.GetInt("qmin", QuantTypeMin(out)));
  c.hi = static_cast<int32_t>(attrs.GetInt("qmax", QuantTypeMax(out)));
  return c;
}

Expected<int32_t> CheckedZeroPoint(const Value& v) {
  const int32_t zp = ZeroPointOf(v);
  if (v.dtype == DType::kI16 ? zp != 0
                             : (zp < QuantTypeMin(v.dtype) || zp > QuantTypeMax(v.dtype))) {
    return InvalidArgument("activation '" + v.name + "' (" + std::string(DTypeName(v.dtype)) +
                           ") has zero point " + std::to_string(zp) +
                           (v.dtype == DType::kI16 ? ": int16 activations are symmetric (0)"
                                                   : ": outside its type's range"));
  }
  return zp;
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
