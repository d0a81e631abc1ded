// Top-1 agreement: both graphs in sessions of their own, sample by sample.
#include "quantizer/top1_agreement.h"

#include <cmath>
#include <limits>
#include <memory>

#include "runtime/session.h"

namespace kiln::quant {
namespace {

// Index of the largest score, -1 for an empty tensor. The same order as `kiln eval`'s top-k
// (tools/kiln/output_report.cc TopK), so agreement and top-1 accuracy rank classes alike.
int64_t TopIndex(const HostTensor& scores) {
  const int64_t n = scores.num_elements();
  if (scores.bytes.size() < static_cast<size_t>(n) * sizeof(float)) return -1;
  const float* v = scores.data<float>();
  int64_t best = -1;
  double best_value = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = std::isnan(v[i]) ? -std::numeric_limits<double>::infinity() : v[i];
    if (best < 0 || x > best_value) {
      best = i;
      best_value = x;
    }
  }
  return best;
}

}  // namespace

Expected<double> TopOneAgreement(const Graph& a, const Graph& b, const calib::SampleSource& set,
                                 int threads) {
  SessionOptions so;
  so.num_threads = threads;
  KILN_ASSIGN_OR_RETURN(auto sa, Session::Create(std::make_shared<const Graph>(a), so));
  KILN_ASSIGN_OR_RETURN(auto sb, Session::Create(std::make_shared<const Graph>(b), so));
  size_t agree = 0;
  for (size_t i = 0; i < set.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> in, set.Load(i));
    KILN_ASSIGN_OR_RETURN(auto oa, sa->Run(in));
    KILN_ASSIGN_OR_RETURN(auto ob, sb->Run(in));
    if (oa.empty() || ob.empty() || oa[0].dtype != DType::kF32 || ob[0].dtype != DType::kF32) {
      return InvalidArgument("agreement needs a float first output");
    }
    agree += TopIndex(oa[0]) == TopIndex(ob[0]);
  }
  return set.size() ? static_cast<double>(agree) / set.size() : 0.0;
}

}  // namespace kiln::quant
