// ONNX node-test conformance: every test in shared/conformance/onnx-node-tests.txt is imported
// (test inputs frozen where they determine shapes), run on the CPU reference executor and
// compared with ONNX's expected outputs. Known failures are skipped, and fail once they pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "tests/node_test_runner.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ReadTestNames() {
  std::vector<std::string> names;
  std::ifstream in(testing::SharedDir() + "/conformance/onnx-node-tests.txt");
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') names.push_back(line);
  }
  return names;
}


Status RunNodeTest(const std::string& name) {
  return testing::RunNodeTest((fs::path(testing::OnnxNodeTestDir()) / name).string());
}

struct Tally {
  std::mutex mu;
  int passed = 0;
  std::vector<std::pair<std::string, std::string>> known, unexpected, stale;
};
Tally& GetTally() {
  static Tally t;
  return t;
}

class ConformanceSummary : public ::testing::Environment {
 public:
  void TearDown() override {
    Tally& t = GetTally();
    const size_t total = t.passed + t.known.size() + t.unexpected.size() + t.stale.size();
    if (total == 0) return;
    std::printf("conformance: %d passed, %zu failed (known), %zu failed (not listed), %zu total\n",
                t.passed, t.known.size(), t.unexpected.size(), total);
    for (const auto& [name, reason] : t.unexpected) {
      std::printf("  FAIL %s: %s\n", name.c_str(), reason.substr(0, 300).c_str());
    }
    for (const auto& [name, reason] : t.known) {
      std::printf("  known %s: %s\n", name.c_str(), reason.c_str());
    }
    for (const auto& [name, reason] : t.stale) {
      std::printf("  STALE %s passes now: remove it from conformance_known_failures.txt\n",
                  name.c_str());
    }
  }
};
const auto* const kSummary = ::testing::AddGlobalTestEnvironment(new ConformanceSummary);

class OnnxNodeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeTest, MatchesReference) {
  static const auto known = [] {
    auto k = testing::ReadKnownFailures("conformance_known_failures.txt");
    for (auto& [test, reason] : k) {
      if (reason.empty()) reason = "(no reason given)";
    }
    return k;
  }();
  const std::string& name = GetParam();
  const Status st = RunNodeTest(name);
  Tally& t = GetTally();
  auto it = known.find(name);
  std::lock_guard<std::mutex> lock(t.mu);
  if (it != known.end()) {
    if (st.ok()) {
      t.stale.push_back({name, it->second});
      FAIL() << name << " unexpectedly passes: remove it from the list "
             << "(tests/conformance_known_failures.txt)";
    }
    t.known.push_back({name, it->second});
    GTEST_SKIP() << "known failure: " << it->second << " [now: " << st.ToString() << "]";
  }
  if (st.ok()) {
    ++t.passed;
    return;
  }
  t.unexpected.push_back({name, st.ToString()});
  FAIL() << name << ": " << st.ToString();
}

INSTANTIATE_TEST_SUITE_P(Onnx, OnnxNodeTest, ::testing::ValuesIn(ReadTestNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln
