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

#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "compiler/tensor_compare.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/session.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-3;  // as ONNX's backend tests
constexpr double kAtol = 1e-5;

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

// "<name> <reason...>" per line; '#' starts a comment line.
std::map<std::string, std::string> ReadKnownFailures() {
  std::map<std::string, std::string> known;
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/conformance_known_failures.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, reason;
    ss >> name;
    std::getline(ss, reason);
    const size_t start = reason.find_first_not_of(" \t");
    known[name] = start == std::string::npos ? "(no reason given)" : reason.substr(start);
  }
  return known;
}

std::vector<std::string> SortedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

// Imports, runs and compares one node test over all its data sets.
Status RunNodeTest(const std::string& name) {
  const fs::path dir = fs::path(testing::OnnxNodeTestDir()) / name;
  const std::string model = (dir / "model.onnx").string();
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> input_names, ReadOnnxInputNames(model));
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return NotFound("no test_data_set_* in " + dir.string());
  for (const fs::path& set : sets) {
    const std::string where = set.filename().string();
    OnnxParseOptions options;
    for (const std::string& f : SortedFiles(set, "input_")) {
      KILN_ASSIGN_OR_RETURN(HostTensor t, ReadTensorProtoFile(f));
      const size_t pos = options.frozen_inputs.size();
      // Unnamed (or misnamed) test tensors are bound by position.
      const bool known =
          std::find(input_names.begin(), input_names.end(), t.name) != input_names.end();
      if (!known && pos < input_names.size()) t.name = input_names[pos];
      options.frozen_inputs.push_back(std::move(t));
    }
    KILN_ASSIGN_OR_RETURN(Graph graph, ImportOnnx(model, options));
    // Compiled as `kiln compile` does by default (fusion, packing, memory plan), verified
    // after every pass.
    CompileOptions copts;
    copts.verify_each_pass = true;
    copts.target_isa = kBestCpuIsa;
    KILN_ASSIGN_OR_RETURN(CompiledModel compiled, CompileGraph(std::move(graph), copts));
    auto shared = std::make_shared<const Graph>(std::move(compiled.graph));
    KILN_ASSIGN_OR_RETURN(auto session,
                          Session::Create(shared, SessionOptions{},
                                          std::make_shared<const ExecutionPlan>(compiled.plan)));
    std::vector<HostTensor> feeds;
    for (const HostTensor& t : options.frozen_inputs) {
      for (size_t i = 0; i < session->num_inputs(); ++i) {
        if (session->input_info(i).name == t.name) feeds.push_back(t);
      }
    }
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outs, session->Run(feeds));
    const auto expected_files = SortedFiles(set, "output_");
    if (expected_files.size() != outs.size()) {
      return InvalidArgument(where + ": model produced " + std::to_string(outs.size()) +
                             " outputs, test expects " + std::to_string(expected_files.size()));
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(HostTensor expected, ReadTensorProtoFile(expected_files[i]));
      auto cmp = CompareTensors(outs[i], expected, kRtol, kAtol);
      if (!cmp.ok()) return cmp.status().WithContext(where + " output " + std::to_string(i));
      if (!cmp->within_tolerance) {
        return InvalidArgument(where + " output " + std::to_string(i) + " ('" + outs[i].name +
                               "') differs: " + ComparisonSummary(*cmp, expected.num_elements()));
      }
    }
  }
  return Status::Ok();
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
  static const auto known = ReadKnownFailures();
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
