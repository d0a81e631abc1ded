// The pass manager: runs a pipeline of named passes, skipping those below the opt level or
// disabled by the user, verifying the graph after each (when asked) and recording one row
// of statistics per pass (nodes before/after, wall time, counters) for `kiln compile -v`.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/pass.h"

namespace kiln {

struct PassReport {
  std::string name;
  bool ran = false;
  std::string skipped_reason;  // "disabled", "opt-level 2", "not for this target"
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
  // Where --print-ir-after text goes (default: stderr).
  void SetIrSink(std::function<void(const std::string& pass, const std::string& ir)> sink) {
    ir_sink_ = std::move(sink);
  }

  // Runs every pass in order. An error names the pass; a verification failure after a pass
  // names the pass that broke the graph (the way to bisect a miscompile).
  Status Run(Graph& graph);
  const std::vector<PassReport>& reports() const { return reports_; }
  const CompileOptions& options() const { return options_; }

 private:
  CompileOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassReport> reports_;
  std::function<void(const std::string&, const std::string&)> ir_sink_;
};

// The pass table as text (one row per pass), for `kiln compile -v`.
std::string FormatPassReports(const std::vector<PassReport>& reports);

}  // namespace kiln
