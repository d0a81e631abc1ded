// The auto range search: three int8 compiles, one divergence each.
#include "quantizer/range_search.h"

#include <algorithm>
#include <limits>

#include "quantizer/accuracy_report.h"
#include "quantizer/quantize_driver.h"

namespace kiln::quant {

Expected<RangeChoice> ChooseRange(const Graph& imported, const CompileOptions& options,
                                  const QuantizeConfig& config,
                                  std::shared_ptr<const calib::CalibrationStats> stats,
                                  const Graph& float_graph, const calib::SampleSource& source,
                                  const std::vector<size_t>& calibration, int threads,
                                  const std::function<void(const RangeCandidate&)>& tried) {
  // A spread-out subset ranks the candidates as the whole set does, at a fraction of the cost
  // of three int8 passes over it.
  std::vector<size_t> probe;
  const size_t step = std::max<size_t>(1, calibration.size() / 100);
  for (size_t i = 0; i < calibration.size(); i += step) probe.push_back(calibration[i]);
  RangeChoice choice;
  choice.divergence = std::numeric_limits<double>::infinity();
  choice.samples = probe.size();
  for (const char* name : {"mse", "percentile:99.99", "percentile:99.999"}) {
    QuantizeConfig c = config;
    c.range = *ParseRangeSpec(name);
    KILN_ASSIGN_OR_RETURN(CompiledModel m, CompileQuantized(imported, options, c, stats));
    KILN_ASSIGN_OR_RETURN(double d,
                          PredictionDivergence(float_graph, m.graph, source, probe, threads));
    choice.candidates.push_back({c.range, d});
    if (tried) tried(choice.candidates.back());
    if (d < choice.divergence) {
      choice.divergence = d;
      choice.range = c.range;
    }
  }
  return choice;
}

}  // namespace kiln::quant
