// Runs one ONNX node test (the ONNX test-data layout: model.onnx + test_data_set_N/*.pb) through
// Kiln's import and CPU reference executor, and classifies whether Kiln claims a test at all.
#pragma once

#include <map>
#include <string>

#include "ir/status.h"

namespace kiln::testing {

// Imports DIR/model.onnx (test inputs frozen where they determine shapes), runs every data set
// and compares each output with the expected one (rtol 1e-3, atol 1e-5, as ONNX's backend
// tests). Ok when all match.
Status RunNodeTest(const std::string& dir);

// Why Kiln does not claim the test in DIR, or "" when it does: every node an op Kiln has in the
// default domain, the ai.onnx opset within 7..23, every graph input and output of a Kiln dtype.
// The reason names the first gap: "op X", "domain D", "opset N", "dtype T".
std::string NotClaimedReason(const std::string& dir);

// A known-failures list of the repository, tests/FILE: "<test name> <reason...>" per line, '#'
// starting a comment line. The reason is "" when the line gives none.
std::map<std::string, std::string> ReadKnownFailures(const std::string& file);

}  // namespace kiln::testing
