// Test helpers.
#include "tests/test_support.h"

#include <cstdlib>

namespace kiln::testing {

std::string SharedDir() {
  if (const char* env = std::getenv("KILN_SHARED_DIR")) return env;
  return std::string(KILN_SOURCE_DIR) + "/../shared";
}

std::string OnnxNodeTestDir() { return "/usr/share/libonnx-testdata/data/node"; }

std::string PythonToolsDir() {
  if (const char* env = std::getenv("KILN_PYTOOLS_DIR")) return env;
  return std::string(KILN_SOURCE_DIR) + "/build-pytools";
}

}  // namespace kiln::testing
