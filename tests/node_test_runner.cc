// RunNodeTest / NotClaimedReason: shared by the listed (Debian onnx 1.12) and the current
// (pip onnx) node-test suites. Tests run compiled at the default level.
#include "tests/node_test_runner.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <optional>

#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "compiler/tensor_compare.h"
#include "parsers/onnx/onnx_op_versions.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/session.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-3;  // as ONNX's backend tests
constexpr double kAtol = 1e-5;

std::vector<std::string> SortedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

}  // namespace

Status RunNodeTest(const std::string& test_dir) {
  const fs::path dir(test_dir);
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

namespace {

// The value a node input takes in the case's first test set: an initializer or a graph input
// (input_<position>.pb); nullopt when it cannot be read.
std::optional<HostTensor> CaseValue(const std::string& test_dir, const onnx::GraphProto& g,
                                    const std::string& name) {
  for (const auto& init : g.initializer()) {
    if (init.name() != name) continue;
    auto t = TensorProtoToHostTensor(init, test_dir);
    return t.ok() ? std::optional<HostTensor>(std::move(*t)) : std::nullopt;
  }
  int position = 0;
  for (const auto& vi : g.input()) {
    if (vi.name() == name) {
      auto t = ReadTensorProtoFile((fs::path(test_dir) / "test_data_set_0" /
                                    ("input_" + std::to_string(position) + ".pb"))
                                       .string());
      return t.ok() ? std::optional<HostTensor>(std::move(*t)) : std::nullopt;
    }
    ++position;
  }
  return std::nullopt;
}

// Dropout in training mode with a non-zero ratio draws a random mask: an inference runtime
// does not claim it (Kiln refuses it with a clear error; ratio 0 is claimed and runs).
bool IsRandomTrainingDropout(const std::string& test_dir, const onnx::GraphProto& g,
                             const onnx::NodeProto& n) {
  if (n.op_type() != "Dropout" || n.input_size() < 3 || n.input(2).empty()) return false;
  const auto training = CaseValue(test_dir, g, n.input(2));
  if (!training || training->bytes.empty() || training->bytes[0] == 0) return false;
  if (n.input(1).empty()) return true;  // default ratio 0.5
  const auto ratio = CaseValue(test_dir, g, n.input(1));
  return !ratio || ratio->dtype != DType::kF32 || ratio->bytes.size() != sizeof(float) ||
         *ratio->data<float>() != 0.f;
}

}  // namespace

std::string NotClaimedReason(const std::string& test_dir) {
  std::ifstream in(fs::path(test_dir) / "model.onnx", std::ios::binary);
  onnx::ModelProto m;
  if (!in || !m.ParseFromIstream(&in)) return "unreadable model";
  int64_t opset = -1;
  for (const auto& imp : m.opset_import()) {
    if (imp.domain().empty() || imp.domain() == "ai.onnx") opset = imp.version();
  }
  for (const auto& n : m.graph().node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") return "domain " + n.domain();
    if (!OpTypeFromName(n.op_type())) return "op " + n.op_type();
    if (IsRandomTrainingDropout(test_dir, m.graph(), n)) return "training-mode Dropout";
  }
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset) return "opset " + std::to_string(opset);
  for (const auto* list : {&m.graph().input(), &m.graph().output()}) {
    for (const auto& vi : *list) {
      if (!vi.type().has_tensor_type()) return "non-tensor value";
      const int32_t t = vi.type().tensor_type().elem_type();
      if (!DTypeFromOnnx(t, vi.name()).ok()) return "dtype " + OnnxDataTypeName(t);
    }
  }
  return "";
}

std::map<std::string, std::string> ReadKnownFailures(const std::string& file) {
  std::map<std::string, std::string> known;
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/" + file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, reason;
    ss >> name;
    std::getline(ss, reason);
    const size_t start = reason.find_first_not_of(" \t");
    known[name] = start == std::string::npos ? "" : reason.substr(start);
  }
  return known;
}

}  // namespace kiln::testing
