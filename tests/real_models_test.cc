// Real-model numerics: every shared/models/*/test_data_set_* is imported with the test inputs'
// shapes, run on the CPU reference executor and compared with the stored reference outputs --
// as imported, and as compiled at the default level (fusion, packing, memory plan) with one
// stream and with two streams on two threads (bit-identical to one stream). The two-stream
// compilation is also written to a signed .kiln image (zstd for odd-numbered sets), loaded back
// through the verifying loader and run again: outputs must be bit-identical.
// The int8 model must instead be rejected with one error listing its unsupported ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "compiler/tensor_compare.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/model_writer.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

struct ModelCase {
  std::string model;  // folder name under shared/models
  std::string set;    // test_data_set_N
};

std::vector<ModelCase> FindCases() {
  std::vector<ModelCase> cases;
  const fs::path root = fs::path(testing::SharedDir()) / "models";
  std::error_code ec;
  for (const auto& m : fs::directory_iterator(root, ec)) {
    if (!m.is_directory() || m.path().filename() == "quantized") continue;
    if (!fs::exists(m.path() / "model.onnx")) continue;
    for (const auto& s : fs::directory_iterator(m.path())) {
      const std::string set = s.path().filename().string();
      if (s.is_directory() && set.rfind("test_data_set_", 0) == 0) {
        cases.push_back({m.path().filename().string(), set});
      }
    }
  }
  std::sort(cases.begin(), cases.end(), [](const ModelCase& a, const ModelCase& b) {
    return std::tie(a.model, a.set) < std::tie(b.model, b.set);
  });
  return cases;
}

std::vector<std::string> NumberedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0; fs::exists(dir / (prefix + std::to_string(i) + ".pb")); ++i) {
    files.push_back((dir / (prefix + std::to_string(i) + ".pb")).string());
  }
  return files;
}

void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.model << "/" << c.set; }

class RealModelTest : public ::testing::TestWithParam<ModelCase> {};

TEST_P(RealModelTest, MatchesReferenceOutputs) {
  const ModelCase& c = GetParam();
  const fs::path dir = fs::path(testing::SharedDir()) / "models" / c.model;
  const std::string model = (dir / "model.onnx").string();
  auto names = ReadOnnxInputNames(model);
  ASSERT_TRUE(names.ok()) << names.status().ToString();

  OnnxParseOptions options;
  std::vector<HostTensor> inputs;
  for (const std::string& f : NumberedFiles(dir / c.set, "input_")) {
    auto t = ReadTensorProtoFile(f);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    const size_t pos = inputs.size();
    // mnist's test tensors are unnamed and super_resolution's is called 'X' (upstream data):
    // a tensor whose name is not a graph input is bound by position.
    const bool known = std::find(names->begin(), names->end(), t->name) != names->end();
    if (!known && pos < names->size()) t->name = (*names)[pos];
    options.input_shapes[t->name] = t->shape;
    inputs.push_back(std::move(t).value());
  }
  ASSERT_FALSE(inputs.empty()) << "no inputs in " << c.set;

  auto graph = ImportOnnx(model, options);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  auto imported = std::make_shared<const Graph>(*graph);
  const auto expected_files = NumberedFiles(dir / c.set, "output_");
  std::vector<HostTensor> expected;
  for (const auto& f : expected_files) {
    auto t = ReadTensorProtoFile(f);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    expected.push_back(std::move(t).value());
  }
  // Runs a graph with its plan and checks the outputs against the reference files.
  auto run_and_check = [&](const char* what, std::shared_ptr<const Graph> g,
                           std::shared_ptr<const ExecutionPlan> plan, int threads,
                           std::vector<HostTensor>* outs) {
    SessionOptions so;
    so.num_threads = threads;
    auto session = Session::Create(std::move(g), so, std::move(plan));
    ASSERT_TRUE(session.ok()) << what << ": " << session.status().ToString();
    auto result = (*session)->Run(inputs);
    ASSERT_TRUE(result.ok()) << what << ": " << result.status().ToString();
    ASSERT_EQ(result->size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      auto cmp = CompareTensors((*result)[i], expected[i], kRtol, kAtol);
      ASSERT_TRUE(cmp.ok()) << "output " << i << ": " << cmp.status().ToString();
      const std::string summary = ComparisonSummary(*cmp, expected[i].num_elements());
      std::printf("real-model %s/%s %s output %zu: %s\n", c.model.c_str(), c.set.c_str(), what, i,
                  summary.c_str());
      RecordProperty(std::string(what) + "_output" + std::to_string(i), summary);
      EXPECT_TRUE(cmp->within_tolerance)
          << c.model << "/" << c.set << " " << what << " output " << i << ": " << summary
          << " (first mismatch at flat index " << cmp->first_mismatch << ")";
    }
    *outs = std::move(result).value();
  };
  auto same_bits = [&](const char* what, const std::vector<HostTensor>& a,
                       const std::vector<HostTensor>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].dtype, b[i].dtype);
      EXPECT_EQ(a[i].shape, b[i].shape);
      EXPECT_TRUE(a[i].bytes == b[i].bytes) << c.model << " output " << i << ": " << what;
    }
  };

  std::vector<HostTensor> imported_outs, compiled_outs, streams_outs, kiln_outs;
  run_and_check("imported", imported, nullptr, 1, &imported_outs);

  CompileOptions copts;  // the default level, packed for the best CPU kernels
  copts.verify_each_pass = true;
  copts.target_isa = kBestCpuIsa;
  auto compiled = CompileGraph(*graph, copts);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_LE(compiled->graph.num_nodes(), imported->num_nodes());
  auto cgraph = std::make_shared<const Graph>(compiled->graph);
  run_and_check("compiled", cgraph,
                std::make_shared<const ExecutionPlan>(compiled->plan), 1, &compiled_outs);

  copts.streams = 2;
  auto two = CompileGraph(std::move(graph).value(), copts);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  auto two_graph = std::make_shared<const Graph>(two->graph);
  auto two_plan = std::make_shared<const ExecutionPlan>(two->plan);
  run_and_check("2-streams", two_graph, two_plan, 2, &streams_outs);
  same_bits("two streams differ from one", compiled_outs, streams_outs);

  // Compiled (two streams) -> signed .kiln -> verify -> run: bit-identical.
  auto key = signing::PrivateKey::Generate();
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  auto pub = key->public_key();
  ASSERT_TRUE(pub.ok());
  WriteOptions write;
  write.signing_key = &*key;
  write.plan = two_plan.get();
  write.compression = c.set.back() % 2 ? format::Compression::kZstd : format::Compression::kNone;
  auto image = SerializeModel(*two_graph, write);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  TrustStore trust;
  ASSERT_TRUE(trust.AddPublicKeyPem(*pub->ToPem()).ok());
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(image).value());
  auto loaded = Model::LoadFromMemory(bytes, bytes->data(), bytes->size(), trust);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE((*loaded)->info().has_plan);
  run_and_check(".kiln", (*loaded)->graph(), (*loaded)->plan(), 2, &kiln_outs);
  same_bits(".kiln run differs", streams_outs, kiln_outs);
}

INSTANTIATE_TEST_SUITE_P(Shared, RealModelTest, ::testing::ValuesIn(FindCases()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) {
                           std::string n = info.param.model + "_" + info.param.set;
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace kiln
