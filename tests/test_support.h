// Shared helpers for Kiln's tests: paths to shared data and small graph builders.
#pragma once

#include <string>

namespace kiln::testing {

// ../shared next to the source tree (or $KILN_SHARED_DIR).
std::string SharedDir();
// Folder of the ONNX node tests (Debian libonnx-testdata).
std::string OnnxNodeTestDir();
// What tests/setup_python_tools.sh writes (pip onnx/onnxruntime venv, the current onnx node
// suite in onnx-node-tests/, exporter-style models in exporter-models/): $KILN_PYTOOLS_DIR, else
// build-pytools/ in the source tree. Tests that need it skip when it is absent.
std::string PythonToolsDir();

// Runs the built `kiln` binary with `args` (already shell-quoted), stdout and stderr captured
// through files in `scratch_dir`.
struct CliResult {
  bool exited = false;  // false: killed by a signal (a crash)
  int code = -1;
  std::string out, err;
};
CliResult RunKiln(const std::string& args, const std::string& scratch_dir);
// Single-quotes a string for the shell.
std::string ShellQuote(const std::string& s);

}  // namespace kiln::testing
