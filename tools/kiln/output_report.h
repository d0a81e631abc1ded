// What `kiln run` prints about an output: value statistics, and top-k classes with label names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln::cli {

struct ValueStats {
  double min = 0, max = 0, mean = 0;
  int64_t non_finite = 0;  // NaN/inf elements, left out of min/max/mean
};

// Elements as doubles, whatever the dtype.
std::vector<double> ToDoubles(const HostTensor& t);
ValueStats ComputeValueStats(const HostTensor& t);

// A score vector: exactly one dim above 1 ([1,1000], [1000], [1,1000,1,1]).
bool LooksLikeClassScores(const Shape& shape);

// Indices and values of the k largest elements, largest first (ties: lower index first).
std::vector<std::pair<int64_t, double>> TopK(const HostTensor& t, int k);

// One label per line; "n01440764 tench, Tinca tinca" (synset_words.txt) keeps the text after the
// synset id.
Expected<std::vector<std::string>> LoadLabels(const std::string& path);

}  // namespace kiln::cli
