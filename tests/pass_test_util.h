// Runs one pass on a test graph the way the pass manager does (verifying after it) and
// returns the IR text, for golden-text pass tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "compiler/pass_manager.h"
#include "ir/text_dump.h"

namespace kiln::testing {

inline std::string RunPassForTest(std::unique_ptr<Pass> pass, Graph& graph,
                                  std::map<std::string, int64_t>* counters = nullptr,
                                  CompileOptions options = {}) {
  options.verify_each_pass = true;
  PassManager pm(options);
  pm.Add(std::move(pass));
  Status st = pm.Run(graph);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (counters && !pm.reports().empty()) *counters = pm.reports()[0].counters;
  return GraphToText(graph);
}

}  // namespace kiln::testing
