// The tensor table of `kiln inspect --tensors`.
#include "tools/kiln/inspect_tensors.h"

#include <cstdio>

#include "tools/kiln/cli_util.h"

namespace kiln::cli {
namespace {

// "0.0123" per tensor; "per-axis 1: 64 scales, 0.001..0.02" per channel.
std::string QuantText(const QuantParams& q) {
  char buf[160];
  if (q.empty()) return "-";
  if (!q.per_axis()) {
    std::snprintf(buf, sizeof(buf), "scale %.8g offset %lld", q.scales[0],
                  static_cast<long long>(q.zero_points.empty() ? 0 : q.zero_points[0]));
    return buf;
  }
  float lo = q.scales[0], hi = q.scales[0];
  for (float s : q.scales) {
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  bool zero = true;
  for (int64_t z : q.zero_points) zero &= z == 0;
  std::snprintf(buf, sizeof(buf), "per-channel (axis %lld): %zu scales %.4g..%.4g, offsets %s",
                static_cast<long long>(q.axis), q.scales.size(), lo, hi, zero ? "0" : "varied");
  return buf;
}

}  // namespace

void PrintTensorTable(std::ostream& os, const Graph& g) {
  os << "tensors (name, dtype, shape, kind, quantization):\n";
  for (const Value& v : g.values()) {
    os << "  " << v.name << "  " << DTypeName(v.dtype) << " "
       << (v.shape_known ? ShapeToString(v.shape) : "[?]")
       << (v.layout != Layout::kPlain ? " " + std::string(LayoutName(v.layout)) : "") << "  "
       << (v.is_constant() ? "const" : "act") << "  " << QuantText(v.quant) << "\n";
  }
}

void PrintTensorJson(std::ostream& os, const Graph& g) {
  os << "[";
  bool first = true;
  for (const Value& v : g.values()) {
    os << (first ? "" : ",") << "\n    {\"name\": " << JsonString(v.name)
       << ", \"dtype\": " << JsonString(std::string(DTypeName(v.dtype))) << ", \"shape\": [";
    for (size_t d = 0; d < v.shape.size(); ++d) os << (d ? ", " : "") << v.shape[d];
    os << "], \"constant\": " << (v.is_constant() ? "true" : "false");
    if (!v.quant.empty()) {
      os << ", \"scale\": [";
      for (size_t i = 0; i < v.quant.scales.size(); ++i) os << (i ? ", " : "") << JsonNumber(v.quant.scales[i]);
      os << "], \"offset\": [";
      for (size_t i = 0; i < v.quant.zero_points.size(); ++i) os << (i ? ", " : "") << v.quant.zero_points[i];
      os << "], \"axis\": " << v.quant.axis;
    }
    os << "}";
    first = false;
  }
  os << "\n  ]";
}

}  // namespace kiln::cli
