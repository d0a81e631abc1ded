// The greedy accuracy-budget loop.
#include "quantizer/accuracy_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "quantizer/accuracy_report.h"
#include "quantizer/quantize_driver.h"

namespace kiln::quant {
namespace {

// Worst output SQNR of a report (+inf when no output is quantized).
double OutputSqnr(const AccuracyReport& r) {
  double worst = std::numeric_limits<double>::infinity();
  for (const auto& t : r.tensors) {
    if (t.model_output) worst = std::min(worst, t.sqnr_db);
  }
  return worst;
}

}  // namespace

std::vector<std::string> NodesKeepingFloat(const TensorAccuracy& t) {
  std::set<std::string> nodes(t.sources.begin(), t.sources.end());
  nodes.insert(t.readers.begin(), t.readers.end());
  return {nodes.begin(), nodes.end()};
}

Expected<BudgetSpec> ParseBudget(const std::string& text) {
  BudgetSpec s;
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  if (colon == std::string::npos || (kind != "top1" && kind != "sqnr")) {
    return InvalidArgument("accuracy budget '" + text + "': expected top1:PP or sqnr:DB");
  }
  char* end = nullptr;
  const std::string num = text.substr(colon + 1);
  s.value = std::strtod(num.c_str(), &end);
  if (num.empty() || *end != '\0' || !(s.value >= 0) || !std::isfinite(s.value)) {
    return InvalidArgument("accuracy budget '" + text +
                           "': the value must be a non-negative number");
  }
  s.kind = kind == "top1" ? BudgetSpec::kTop1 : BudgetSpec::kSqnr;
  return s;
}

Expected<BudgetResult> RunAccuracyBudget(const BudgetContext& ctx, const BudgetSpec& spec,
                                         CompiledModel start) {
  BudgetResult result;
  QuantizeConfig config = ctx.config;
  CompiledModel current = std::move(start);
  std::map<std::string, int> tried;  // tensor -> steps taken for it (int16, then float)
  const bool int16_steps = ctx.int16_first;
  for (int step = 0; step < 64; ++step) {
    KILN_ASSIGN_OR_RETURN(AccuracyReport report,
                          MeasureAccuracy(*ctx.float_graph, current.graph, *ctx.source,
                                          ctx.held_back, ctx.threads, false));
    double metric = 0;
    bool met = false;
    if (spec.kind == BudgetSpec::kTop1) {
      KILN_ASSIGN_OR_RETURN(metric, ctx.agreement(current.graph));
      met = metric * 100.0 >= 100.0 - spec.value - 1e-9;
    } else {
      metric = OutputSqnr(report);
      const double target =
          spec.kind == BudgetSpec::kSqnr ? spec.value : kIdeal8BitSqnrDb - spec.value;
      met = metric >= target;
    }
    if (ctx.progress) {
      std::fprintf(stderr, "budget step %d: %s %.4g with %zu node(s) kept float, %zu int16\n", step,
                   spec.kind == BudgetSpec::kTop1 ? "agreement" : "output SQNR dB",
                   spec.kind == BudgetSpec::kTop1 ? metric * 100 : metric, config.keep_float.size(),
                   config.int16_nodes.size());
    }
    result.final_metric = metric;
    if (met) {
      result.met = true;
      break;
    }
    // The layer that loses most: its SQNR below the worst of its quantized inputs (a layer
    // reading only float or graph inputs is measured against 8-bit ideal).
    std::map<std::string, double> sqnr;
    for (const auto& t : report.tensors) sqnr[t.name] = t.sqnr_db;
    const TensorAccuracy* worst = nullptr;
    double worst_drop = -std::numeric_limits<double>::infinity();
    for (const auto& t : report.tensors) {
      const auto done = tried.find(t.name);
      const int max_steps = int16_steps ? 2 : 1;
      if (t.sources.empty() || (done != tried.end() && done->second >= max_steps) ||
          !std::isfinite(t.sqnr_db)) {
        continue;
      }
      if (t.op.empty() || t.op == "DequantizeLinear" || t.op == "QuantizeLinear") continue;
      double in = kIdeal8BitSqnrDb;
      for (const auto& i : t.inputs) {
        auto it = sqnr.find(i);
        if (it != sqnr.end()) in = std::min(in, it->second);
      }
      const double drop = in - t.sqnr_db;
      if (drop > worst_drop) {
        worst_drop = drop;
        worst = &t;
      }
    }
    if (!worst) break;  // nothing left to keep in float
    const int taken = tried[worst->name]++;
    BudgetStep s;
    s.tensor = worst->name;
    s.kept = NodesKeepingFloat(*worst);
    // int16 first (activations and weights), unless those nodes are int16 already.
    bool all16 = true;
    for (const auto& node : s.kept) all16 &= config.int16_nodes.count(node) > 0;
    s.int16 = int16_steps && taken == 0 && !all16;
    if (!s.int16) tried[worst->name] = 2;  // kept float: never a candidate again
    s.drop_db = worst_drop;
    s.metric = metric;
    result.steps.push_back(s);
    for (const auto& node : s.kept) {
      if (s.int16) {
        config.int16_nodes.insert(node);
      } else {
        config.keep_float.insert(node);
      }
    }
    KILN_ASSIGN_OR_RETURN(current, CompileQuantized(*ctx.imported, ctx.options, config, ctx.stats));
  }
  result.kept_float.assign(config.keep_float.begin(), config.keep_float.end());
  for (const auto& n : config.int16_nodes) {
    if (!config.keep_float.count(n)) result.int16.push_back(n);
  }
  result.model = std::move(current);
  return result;
}

std::string FormatBudget(const BudgetResult& r, const BudgetSpec& spec) {
  std::ostringstream os;
  const bool top1 = spec.kind == BudgetSpec::kTop1;
  char line[256];
  for (size_t i = 0; i < r.steps.size(); ++i) {
    std::string nodes;
    for (const auto& k : r.steps[i].kept) nodes += (nodes.empty() ? "" : ",") + k;
    // Node lists can be long: only the numbers go through the fixed buffer.
    std::snprintf(line, sizeof(line), " lost %.2f dB; %s was %.4g)\n", r.steps[i].drop_db,
                  top1 ? "agreement %" : "output SQNR dB",
                  top1 ? r.steps[i].metric * 100 : r.steps[i].metric);
    os << "budget: " << (r.steps[i].int16 ? "made int16: " : "kept in float: ") << nodes
       << " (tensor " << r.steps[i].tensor << line;
  }
  std::snprintf(
      line, sizeof(line), "budget %s: %zu node(s) kept in float, %zu made int16, %s %.4g\n",
      r.met ? "met" : "NOT met", r.kept_float.size(), r.int16.size(),
      top1 ? "agreement %" : "output SQNR dB", top1 ? r.final_metric * 100 : r.final_metric);
  os << line;
  return os.str();
}

}  // namespace kiln::quant
