// The node test suite of the current onnx release (pip `onnx`, generated into the python tools
// folder by tests/setup_python_tools.sh): every case whose ops, opset and dtypes Kiln claims is
// imported, run and compared; the rest are counted as not claimed, by reason. Prints
// pass / fail / not-claimed counts. A claimed case may fail only when
// tests/onnx_current_known_failures.txt lists it with a reason (and then must still fail).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/node_test_runner.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;


TEST(OnnxCurrentNodeSuite, EveryClaimedCasePasses) {
  const fs::path root = fs::path(testing::PythonToolsDir()) / "onnx-node-tests";
  std::ifstream version_file(root / "VERSION");
  std::string version;
  if (!std::getline(version_file, version)) {
    GTEST_SKIP() << root << " not generated (bash tests/setup_python_tools.sh)";
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  const auto known = testing::ReadKnownFailures("onnx_current_known_failures.txt");
  int passed = 0;
  std::map<std::string, int> not_claimed;  // by reason kind ("op", "opset", "dtype", ...)
  int not_claimed_total = 0;
  std::vector<std::pair<std::string, std::string>> failed, known_failed, stale;
  for (const std::string& name : names) {
    const std::string dir = (root / name).string();
    const std::string why = testing::NotClaimedReason(dir);
    if (!why.empty()) {
      ++not_claimed[why.substr(0, why.find(' '))];
      ++not_claimed_total;
      continue;
    }
    const Status st = testing::RunNodeTest(dir);
    auto it = known.find(name);
    if (st.ok()) {
      ++passed;
      if (it != known.end()) stale.push_back({name, it->second});
    } else if (it != known.end() && !it->second.empty()) {
      known_failed.push_back({name, it->second});
    } else {
      failed.push_back({name, st.ToString()});
    }
  }
  const size_t claimed = passed + failed.size() + known_failed.size();
  std::printf(
      "onnx %s node suite: %zu cases; claimed %zu: %d passed, %zu failed (%zu with a "
      "listed reason); not claimed %d:",
      version.c_str(), names.size(), claimed, passed, failed.size() + known_failed.size(),
      known_failed.size(), not_claimed_total);
  for (const auto& [kind, count] : not_claimed) std::printf(" %s %d,", kind.c_str(), count);
  std::printf("\n");
  for (const auto& [name, reason] : known_failed) {
    std::printf("  known %s: %s\n", name.c_str(), reason.c_str());
  }
  for (const auto& [name, reason] : failed) {
    ADD_FAILURE() << name << ": " << reason.substr(0, 400);
  }
  for (const auto& [name, reason] : stale) {
    ADD_FAILURE() << name << " passes now: remove it from tests/onnx_current_known_failures.txt";
  }
}

}  // namespace
}  // namespace kiln
