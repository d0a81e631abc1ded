// PassManager: the run loop, verification between passes, and the statistics table.
#include "compiler/pass_manager.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace kiln {

Status PassManager::Run(Graph& graph, CompilePlan& plan) {
  reports_.clear();
  // The instruments the options ask for run first, then the caller's.
  std::vector<std::unique_ptr<PassInstrument>> from_options;
  if (options_.verify_each_pass) from_options.push_back(MakeVerifyInstrument());
  if (!options_.print_ir_after.empty()) {
    IrSink sink = ir_sink_ ? ir_sink_ : [](const std::string& pass, const std::string& ir) {
      std::cerr << "// IR after " << pass << "\n" << ir;
    };
    from_options.push_back(MakePrintIrInstrument(options_.print_ir_after, std::move(sink)));
  }
  std::vector<PassInstrument*> instruments;
  for (auto& i : from_options) instruments.push_back(i.get());
  for (auto& i : instruments_) instruments.push_back(i.get());

  for (const auto& pass : passes_) {
    PassReport report;
    report.name = std::string(pass->name());
    report.nodes_before = static_cast<int64_t>(graph.num_nodes());
    report.nodes_after = report.nodes_before;
    if (options_.disabled_passes.count(report.name) && pass->required()) {
      return InvalidArgument("pass '" + report.name + "' is required: it cannot be disabled");
    }
    if (options_.disabled_passes.count(report.name)) {
      report.skipped_reason = "disabled";
    } else if (options_.opt_level < pass->min_opt_level() && !pass->required()) {
      report.skipped_reason = "opt-level " + std::to_string(pass->min_opt_level());
    } else if (!pass->Enabled(options_)) {
      report.skipped_reason = std::string(pass->not_enabled_reason());
    }
    if (!report.skipped_reason.empty()) {
      PassContext ctx(options_, plan);
      KILN_RETURN_IF_ERROR(pass->RunSkipped(graph, ctx).WithContext("pass '" + report.name + "'"));
      if (!ctx.note().empty()) report.skipped_reason += " (" + ctx.note() + ")";
      reports_.push_back(std::move(report));
      continue;
    }
    PassContext ctx(options_, plan);
    const auto t0 = std::chrono::steady_clock::now();
    Status st = pass->Run(graph, ctx);
    const auto t1 = std::chrono::steady_clock::now();
    if (!st.ok()) return st.WithContext("pass '" + report.name + "'");
    report.ran = true;
    report.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    report.nodes_after = static_cast<int64_t>(graph.num_nodes());
    report.counters = ctx.counters();
    reports_.push_back(std::move(report));
    for (PassInstrument* instrument : instruments) {
      KILN_RETURN_IF_ERROR(instrument->AfterPass(pass->name(), graph));
    }
  }
  return Status::Ok();
}

std::string FormatPassReports(const std::vector<PassReport>& reports) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof(line), "%-24s %7s %7s %9s  %s\n", "pass", "nodes", "after", "ms",
                "statistics");
  os << line;
  double total = 0;
  for (const auto& r : reports) {
    std::string stats;
    if (!r.ran) {
      stats = "skipped (" + r.skipped_reason + ")";
    } else {
      for (const auto& [k, v] : r.counters) {
        stats += (stats.empty() ? "" : ", ") + k + " " + std::to_string(v);
      }
    }
    std::snprintf(line, sizeof(line), "%-24s %7lld %7lld %9.2f  %s\n", r.name.c_str(),
                  static_cast<long long>(r.nodes_before), static_cast<long long>(r.nodes_after),
                  r.ms, stats.c_str());
    os << line;
    total += r.ms;
  }
  std::snprintf(line, sizeof(line), "%-24s %7s %7s %9.2f\n", "total", "", "", total);
  os << line;
  return os.str();
}

}  // namespace kiln
