// The pass manager: runs a pipeline of named passes, skipping those below the opt level or
// disabled by the user (never a required one), running the instruments after each
// (compiler/pass_instrument.h: verification, IR printing) and recording one row of statistics
// per pass (nodes before/after, wall time, counters) for `kiln compile -v`.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/pass.h"
#include "compiler/pass_instrument.h"

namespace kiln {

struct PassReport {
  std::string name;
  bool ran = false;
  // "disabled", "opt-level 2", "not for this target", with what a plan pass left in its place:
  // "disabled (no reuse)".
  std::string skipped_reason;
  int64_t nodes_before = 0;
  int64_t nodes_after = 0;
  double ms = 0;
  std::map<std::string, int64_t> counters;
};

class PassManager {
 public:
  explicit PassManager(CompileOptions options) : options_(std::move(options)) {}
  void Add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }
  // Runs after every pass that ran, after the instruments the options ask for.
  void AddInstrument(std::unique_ptr<PassInstrument> instrument) {
    instruments_.push_back(std::move(instrument));
  }
  // Where the IR that CompileOptions::print_ir_after asks for goes (default: stderr).
  void SetIrSink(IrSink sink) { ir_sink_ = std::move(sink); }

  // Runs every pass in order, the plan passes building `plan`. An error names the pass; an
  // instrument's error (a graph that no longer verifies) names the pass it ran after. Disabling
  // a required pass is an error.
  Status Run(Graph& graph, CompilePlan& plan);
  // The same for a pipeline of graph rewrites only (the plan is dropped).
  Status Run(Graph& graph) {
    CompilePlan plan;
    return Run(graph, plan);
  }
  const std::vector<PassReport>& reports() const { return reports_; }
  const CompileOptions& options() const { return options_; }

 private:
  CompileOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassReport> reports_;
  std::vector<std::unique_ptr<PassInstrument>> instruments_;
  IrSink ir_sink_;
};

// The pass table as text (one row per pass), for `kiln compile -v`.
std::string FormatPassReports(const std::vector<PassReport>& reports);

}  // namespace kiln
