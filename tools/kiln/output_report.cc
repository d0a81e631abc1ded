// Output statistics, top-k and label files for `kiln run`.
#include "tools/kiln/output_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <numeric>

namespace kiln::cli {

std::vector<double> ToDoubles(const HostTensor& t) {
  const int64_t n = t.num_elements();
  std::vector<double> out(static_cast<size_t>(n));
  if (t.bytes.size() < static_cast<size_t>(n) * DTypeSize(t.dtype)) return {};
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    switch (t.dtype) {
      case DType::kF32:
        v = t.data<float>()[i];
        break;
      case DType::kF16:
        v = HalfToFloat(t.data<uint16_t>()[i]);
        break;
      case DType::kI8:
        v = t.data<int8_t>()[i];
        break;
      case DType::kU8:
        v = t.data<uint8_t>()[i];
        break;
      case DType::kI16:
        v = t.data<int16_t>()[i];
        break;
      case DType::kI32:
        v = t.data<int32_t>()[i];
        break;
      case DType::kI64:
        v = static_cast<double>(t.data<int64_t>()[i]);
        break;
      case DType::kBool:
        v = t.data<uint8_t>()[i] != 0;
        break;
      default:
        return {};
    }
    out[static_cast<size_t>(i)] = v;
  }
  return out;
}

ValueStats ComputeValueStats(const HostTensor& t) {
  ValueStats s;
  bool first = true;
  double sum = 0;
  int64_t finite = 0;
  for (double v : ToDoubles(t)) {
    if (!std::isfinite(v)) {
      ++s.non_finite;
      continue;
    }
    s.min = first ? v : std::min(s.min, v);
    s.max = first ? v : std::max(s.max, v);
    first = false;
    sum += v;
    ++finite;
  }
  s.mean = finite ? sum / static_cast<double>(finite) : 0;
  return s;
}

bool LooksLikeClassScores(const Shape& shape) {
  int big = 0;
  for (int64_t d : shape) big += d > 1;
  return big == 1;
}

std::vector<std::pair<int64_t, double>> TopK(const HostTensor& t, int k) {
  const std::vector<double> v = ToDoubles(t);
  std::vector<int64_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  const size_t kk = std::min(idx.size(), static_cast<size_t>(std::max(k, 0)));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kk), idx.end(),
                    [&](int64_t a, int64_t b) {
                      const double va = std::isnan(v[a]) ? -INFINITY : v[a];
                      const double vb = std::isnan(v[b]) ? -INFINITY : v[b];
                      return va != vb ? va > vb : a < b;
                    });
  std::vector<std::pair<int64_t, double>> out;
  for (size_t i = 0; i < kk; ++i) out.emplace_back(idx[i], v[idx[i]]);
  return out;
}

Expected<std::vector<std::string>> LoadLabels(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("labels file '" + path + "' not found");
  std::vector<std::string> labels;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A WordNet synset id: 'n' and eight digits, then a space.
    if (line.size() > 10 && line[0] == 'n' && line[9] == ' ' &&
        std::all_of(line.begin() + 1, line.begin() + 9,
                    [](unsigned char c) { return std::isdigit(c); }))
      line = line.substr(10);
    labels.push_back(line);
  }
  if (in.bad()) return DataLoss("error reading labels file '" + path + "'");
  return labels;
}

}  // namespace kiln::cli
