// A compiler pass: a named step of the pipeline with its own statistics. Most rewrite the graph
// (thin drivers over ir/rewriter.h); the plan passes at the end build the schedule, the memory
// plan and the target backend's payloads (compiler/compile_plan.h). The pass manager runs them,
// runs the instruments and reports.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "compiler/compile_options.h"
#include "compiler/compile_plan.h"
#include "ir/graph.h"

namespace kiln {

// What a pass sees besides the graph: the options, the plan the plan passes build, named
// counters it fills ("fused", "removed", ...) that `kiln compile -v` prints, and a note on what
// a skipped pass left in its place.
class PassContext {
 public:
  PassContext(const CompileOptions& options, CompilePlan& plan) : options_(options), plan_(plan) {}
  const CompileOptions& options() const { return options_; }
  CompilePlan& plan() { return plan_; }
  void Count(const std::string& counter, int64_t n = 1) { counters_[counter] += n; }
  const std::map<std::string, int64_t>& counters() const { return counters_; }
  void Note(std::string note) { note_ = std::move(note); }
  const std::string& note() const { return note_; }

 private:
  const CompileOptions& options_;
  CompilePlan& plan_;
  std::map<std::string, int64_t> counters_;
  std::string note_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  // Stable, kebab-case: the name --disable-pass and --print-ir-after take.
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  // The lowest opt level at which the pass runs.
  virtual int min_opt_level() const { return 1; }
  // Whether the compile is wrong without it (the compile would not be what was asked for): it
  // runs whenever it is Enabled, at every opt level, and disabling it is an error.
  virtual bool required() const { return false; }
  // Whether the pass applies to this compilation (e.g. packing only for some targets), and the
  // report's reason when it does not.
  virtual bool Enabled(const CompileOptions& options) const { return true; }
  virtual std::string_view not_enabled_reason() const { return "not for this target"; }
  virtual Status Run(Graph& graph, PassContext& ctx) = 0;
  // What a skipped pass (disabled, below the opt level, not enabled) leaves in place of its
  // work: nothing for a graph rewrite; a plan pass its default (one stream, no memory reuse),
  // named for the report with PassContext::Note.
  virtual Status RunSkipped(Graph& graph, PassContext& ctx) { return Status::Ok(); }
};

}  // namespace kiln
