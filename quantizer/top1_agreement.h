// Top-1 agreement of two graphs over a sample set: what `--budget top1:PP` holds the int8 model
// to against the float one.
#pragma once

#include "calibration/sample_source.h"
#include "ir/graph.h"

namespace kiln::quant {

// The fraction of the samples of `set` on which the first outputs of `a` and `b` (both float)
// have the same largest score (NaN counts as -inf, ties go to the lower index); 0 for an empty
// set.
Expected<double> TopOneAgreement(const Graph& a, const Graph& b, const calib::SampleSource& set,
                                 int threads);

}  // namespace kiln::quant
