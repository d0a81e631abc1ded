// Real transformer models of shared/transformers (KILN_SHARED_DIR): MiniLM-L6 (weight-only
// int8, int64 token inputs; GreaterOrEqual, GatherND, IsNaN in its mask logic) is imported with
// each test set's input shapes, compiled at the default level and checked on every
// test_data_set_N against the stored ONNX Runtime outputs, then run again from a signed .kiln
// image, which must give the same bits. Skipped when the shared folder is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

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

// The README beside the model: ORT's own optimisation levels differ by up to 2.6e-5.
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

std::vector<HostTensor> ReadNumbered(const fs::path& dir, const std::string& prefix) {
  std::vector<HostTensor> out;
  for (int i = 0; fs::exists(dir / (prefix + std::to_string(i) + ".pb")); ++i) {
    auto t = ReadTensorProtoFile((dir / (prefix + std::to_string(i) + ".pb")).string());
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (t.ok()) out.push_back(std::move(t).value());
  }
  return out;
}

TEST(TransformerModels, MiniLmL6WeightOnlyInt8MatchesOnnxRuntime) {
  const fs::path dir = fs::path(testing::SharedDir()) / "transformers" / "minilm_l6_wo8";
  if (!fs::exists(dir / "model.onnx")) {
    GTEST_SKIP() << dir << " absent (set KILN_SHARED_DIR to the shared model corpus)";
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  ASSERT_EQ(sets.size(), 3u) << "expected test_data_set_0..2 in " << dir;

  // One compilation per distinct set of input shapes (every set is [1, 128] today).
  struct Compiled {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ExecutionPlan> plan;
    std::unique_ptr<Session> session;
  };
  std::map<std::map<std::string, Shape>, Compiled> compiled_by_shapes;
  bool checked_kiln = false;
  for (const fs::path& set : sets) {
    SCOPED_TRACE(set.filename().string());
    const std::vector<HostTensor> inputs = ReadNumbered(set, "input_");
    const std::vector<HostTensor> expected = ReadNumbered(set, "output_");
    ASSERT_EQ(inputs.size(), 3u);
    ASSERT_EQ(expected.size(), 1u);
    OnnxParseOptions options;
    for (const HostTensor& t : inputs) {
      EXPECT_EQ(t.dtype, DType::kI64) << t.name;
      options.input_shapes[t.name] = t.shape;
    }
    Compiled& c = compiled_by_shapes[options.input_shapes];
    if (c.session == nullptr) {
      auto graph = ImportOnnx((dir / "model.onnx").string(), options);
      ASSERT_TRUE(graph.ok()) << graph.status().ToString();
      CompileOptions copts;  // the default level, packed for the best CPU kernels
      copts.verify_each_pass = true;
      copts.target_isa = kBestCpuIsa;
      auto compiled = CompileGraph(std::move(graph).value(), copts);
      ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
      c.graph = std::make_shared<const Graph>(std::move(compiled->graph));
      c.plan = std::make_shared<const ExecutionPlan>(std::move(compiled->plan));
      auto created = Session::Create(c.graph, SessionOptions{}, c.plan);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
      c.session = std::move(created).value();
    }
    auto result = c.session->Run(inputs);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ(result->size(), 1u);
    auto cmp = CompareTensors((*result)[0], expected[0], kRtol, kAtol);
    ASSERT_TRUE(cmp.ok()) << cmp.status().ToString();
    const std::string summary = ComparisonSummary(*cmp, expected[0].num_elements());
    std::printf("minilm_l6_wo8/%s last_hidden_state: %s\n", set.filename().string().c_str(),
                summary.c_str());
    EXPECT_TRUE(cmp->within_tolerance)
        << summary << " (first mismatch at flat index " << cmp->first_mismatch << ")";

    if (checked_kiln) continue;
    // Once: the compiled model through a signed .kiln image (the new ops' values in the file).
    checked_kiln = true;
    auto key = signing::PrivateKey::Generate();
    ASSERT_TRUE(key.ok()) << key.status().ToString();
    auto pub = key->public_key();
    ASSERT_TRUE(pub.ok());
    WriteOptions write;
    write.signing_key = &*key;
    write.plan = c.plan.get();
    auto image = SerializeModel(*c.graph, write);
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    TrustStore trust;
    ASSERT_TRUE(trust.AddPublicKeyPem(*pub->ToPem()).ok());
    auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(image).value());
    auto loaded = Model::LoadFromMemory(bytes, bytes->data(), bytes->size(), trust);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    auto kiln_session = Session::Create((*loaded)->graph(), SessionOptions{}, (*loaded)->plan());
    ASSERT_TRUE(kiln_session.ok()) << kiln_session.status().ToString();
    auto kiln_result = (*kiln_session)->Run(inputs);
    ASSERT_TRUE(kiln_result.ok()) << kiln_result.status().ToString();
    EXPECT_TRUE((*kiln_result)[0].bytes == (*result)[0].bytes) << ".kiln run differs";
  }
}

}  // namespace
}  // namespace kiln
