// Shared helpers for Kiln's tests: paths to shared data and small graph builders.
#pragma once

#include <string>

namespace kiln::testing {

// ../shared next to the source tree (or $KILN_SHARED_DIR).
std::string SharedDir();
// Folder of the ONNX node tests (Debian libonnx-testdata).
std::string OnnxNodeTestDir();

}  // namespace kiln::testing
