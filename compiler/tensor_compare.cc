// CompareTensors: tolerance check plus max-abs / cosine / SQNR metrics.
#include "compiler/tensor_compare.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace kiln {
namespace {

double ElementAsDouble(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kF32:
      return t.data<float>()[i];
    case DType::kF16:
      return HalfToFloat(t.data<uint16_t>()[i]);
    case DType::kI8:
      return t.data<int8_t>()[i];
    case DType::kU8:
      return t.data<uint8_t>()[i];
    case DType::kI16:
      return t.data<int16_t>()[i];
    case DType::kI32:
      return t.data<int32_t>()[i];
    case DType::kI64:
      return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kBool:
      return t.data<uint8_t>()[i] ? 1.0 : 0.0;
    case DType::kUndefined:
      break;
  }
  return 0;
}

}  // namespace

Expected<TensorComparison> CompareTensors(const HostTensor& actual, const HostTensor& expected,
                                          double rtol, double atol) {
  if (actual.dtype != expected.dtype) {
    return InvalidArgument("dtype differs: got " + std::string(DTypeName(actual.dtype)) +
                           ", expected " + std::string(DTypeName(expected.dtype)));
  }
  if (actual.shape != expected.shape) {
    return InvalidArgument("shape differs: got " + ShapeToString(actual.shape) + ", expected " +
                           ShapeToString(expected.shape));
  }
  const int64_t n = expected.num_elements();
  const size_t bytes = static_cast<size_t>(n) * DTypeSize(expected.dtype);
  if (actual.bytes.size() != bytes || expected.bytes.size() != bytes) {
    return InvalidArgument("tensor byte size does not match its dtype and shape");
  }
  // Integers above 2^53 do not survive a double: compare those exactly as int64.
  const bool exact = !IsFloat(expected.dtype);
  TensorComparison c;
  double dot = 0, norm_a = 0, norm_e = 0, signal = 0, noise = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = ElementAsDouble(actual, i);
    const double e = ElementAsDouble(expected, i);
    bool ok;
    if (exact) {
      ok = expected.dtype == DType::kI64 ? actual.data<int64_t>()[i] == expected.data<int64_t>()[i]
                                         : a == e;
    } else if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = a == e;
    } else {
      ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    }
    if (!ok) {
      if (c.first_mismatch < 0) c.first_mismatch = i;
      ++c.mismatch_count;
    }
    if (std::isfinite(a) && std::isfinite(e)) {
      const double err = a - e;
      c.max_abs_err = std::max(c.max_abs_err, std::fabs(err));
      dot += a * e;
      norm_a += a * a;
      norm_e += e * e;
      signal += e * e;
      noise += err * err;
    }
  }
  if (norm_a == 0 && norm_e == 0) {
    c.cosine = 1;
  } else if (norm_a == 0 || norm_e == 0) {
    c.cosine = 0;
  } else {
    c.cosine = dot / (std::sqrt(norm_a) * std::sqrt(norm_e));
  }
  if (noise == 0) {
    c.sqnr_db = std::numeric_limits<double>::infinity();
  } else if (signal == 0) {
    c.sqnr_db = -std::numeric_limits<double>::infinity();
  } else {
    c.sqnr_db = 10.0 * std::log10(signal / noise);
  }
  c.within_tolerance = c.mismatch_count == 0;
  return c;
}

std::string ComparisonSummary(const TensorComparison& c, int64_t num_elements) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "max_abs_err=%.3g cosine=%.6f sqnr=%.1fdB mismatches=%lld/%lld",
                c.max_abs_err, c.cosine, c.sqnr_db, static_cast<long long>(c.mismatch_count),
                static_cast<long long>(num_elements));
  return buf;
}

}  // namespace kiln
