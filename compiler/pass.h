// A compiler pass: a named graph-to-graph rewrite with its own statistics. Passes are thin
// drivers over ir/rewriter.h; the pass manager runs them, verifies and reports.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "compiler/compile_options.h"
#include "ir/graph.h"

namespace kiln {

// What a pass sees besides the graph: the options, and named counters it fills
// ("fused", "removed", ...) that `kiln compile -v` prints.
class PassContext {
 public:
  explicit PassContext(const CompileOptions& options) : options_(options) {}
  const CompileOptions& options() const { return options_; }
  void Count(const std::string& counter, int64_t n = 1) { counters_[counter] += n; }
  const std::map<std::string, int64_t>& counters() const { return counters_; }

 private:
  const CompileOptions& options_;
  std::map<std::string, int64_t> counters_;
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
  // Whether the pass applies to this compilation (e.g. packing only for some targets).
  virtual bool Enabled(const CompileOptions& options) const { return true; }
  virtual Status Run(Graph& graph, PassContext& ctx) = 0;
};

}  // namespace kiln
