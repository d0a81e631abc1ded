// Numeric comparison of an actual tensor against a reference: error metrics and tolerance.
// Shared by the conformance/real-model suites and `kiln validate`.
#pragma once

#include <cstdint>
#include <string>

#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln {

struct TensorComparison {
  double max_abs_err = 0;      // over finite element pairs
  double cosine = 1;           // cosine similarity of the two tensors as vectors (1 when both zero)
  double sqnr_db = 0;          // 10*log10(sum(expected^2) / sum(err^2)); +inf when err is zero
  int64_t mismatch_count = 0;  // elements outside atol + rtol*|expected| (ints/bools: != )
  int64_t first_mismatch = -1;  // flat index of the first mismatch, -1 if none
  bool within_tolerance = true;
};

// Compares element-wise. dtype and shape must match exactly (error otherwise, naming both).
// Floats: |a - e| <= atol + rtol*|e|, NaN matches NaN, infinities must match exactly.
// Integers and bools must be equal (rtol/atol ignored).
Expected<TensorComparison> CompareTensors(const HostTensor& actual, const HostTensor& expected,
                                          double rtol, double atol);

// "max_abs_err=… cosine=… sqnr=…dB mismatches=N/M"
std::string ComparisonSummary(const TensorComparison& c, int64_t num_elements);

}  // namespace kiln
