// Test helpers.
#include "tests/test_support.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kiln::testing {

std::string SharedDir() {
  if (const char* env = std::getenv("KILN_SHARED_DIR")) return env;
  return std::string(KILN_SOURCE_DIR) + "/../shared";
}

std::string OnnxNodeTestDir() { return "/usr/share/libonnx-testdata/data/node"; }

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

CliResult RunKiln(const std::string& args, const std::string& scratch_dir) {
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string out = scratch_dir + "/stdout.txt", err = scratch_dir + "/stderr.txt";
  const std::string cmd = ShellQuote(std::string(KILN_BINARY_DIR) + "/kiln") + " " + args +
                          " >" + ShellQuote(out) + " 2>" + ShellQuote(err);
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exited = status != -1 && WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string PythonToolsDir() {
  if (const char* env = std::getenv("KILN_PYTOOLS_DIR")) return env;
  return std::string(KILN_SOURCE_DIR) + "/build-pytools";
}

}  // namespace kiln::testing
