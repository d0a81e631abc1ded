// Real-model numerics: every shared/models/*/test_data_set_* is imported with the test inputs'
// shapes, run on the CPU reference executor and compared with the stored reference outputs.
// Each is also compiled to a signed .kiln image (zstd for odd-numbered sets), loaded back through
// the verifying loader and run again: outputs must be bit-identical to the ONNX run.
// The int8 model must instead be rejected with one error listing its unsupported ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "compiler/frontend.h"
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
  auto imported = std::make_shared<const Graph>(std::move(graph).value());
  auto session = Session::Create(imported);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto outs = (*session)->Run(inputs);
  ASSERT_TRUE(outs.ok()) << outs.status().ToString();

  const auto expected_files = NumberedFiles(dir / c.set, "output_");
  ASSERT_EQ(outs->size(), expected_files.size());
  for (size_t i = 0; i < expected_files.size(); ++i) {
    auto expected = ReadTensorProtoFile(expected_files[i]);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    auto cmp = CompareTensors((*outs)[i], *expected, kRtol, kAtol);
    ASSERT_TRUE(cmp.ok()) << "output " << i << ": " << cmp.status().ToString();
    const std::string summary = ComparisonSummary(*cmp, expected->num_elements());
    std::printf("real-model %s/%s output %zu: %s\n", c.model.c_str(), c.set.c_str(), i,
                summary.c_str());
    RecordProperty("output" + std::to_string(i), summary);
    EXPECT_TRUE(cmp->within_tolerance)
        << c.model << "/" << c.set << " output " << i << ": " << summary
        << " (first mismatch at flat index " << cmp->first_mismatch << ")";
  }

  // ONNX -> signed .kiln -> verify -> run: bit-identical to the ONNX run.
  auto key = signing::PrivateKey::Generate();
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  auto pub = key->public_key();
  ASSERT_TRUE(pub.ok());
  WriteOptions write;
  write.signing_key = &*key;
  write.compression = c.set.back() % 2 ? format::Compression::kZstd : format::Compression::kNone;
  auto image = SerializeModel(*imported, write);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  TrustStore trust;
  ASSERT_TRUE(trust.AddPublicKeyPem(*pub->ToPem()).ok());
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(image).value());
  auto loaded = Model::LoadFromMemory(bytes, bytes->data(), bytes->size(), trust);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  auto kiln_session = Session::Create((*loaded)->graph());
  ASSERT_TRUE(kiln_session.ok()) << kiln_session.status().ToString();
  auto kiln_outs = (*kiln_session)->Run(inputs);
  ASSERT_TRUE(kiln_outs.ok()) << kiln_outs.status().ToString();
  ASSERT_EQ(kiln_outs->size(), outs->size());
  for (size_t i = 0; i < outs->size(); ++i) {
    const HostTensor& a = (*outs)[i];
    const HostTensor& b = (*kiln_outs)[i];
    EXPECT_EQ(a.dtype, b.dtype);
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_TRUE(a.bytes == b.bytes) << c.model << " output " << i << ": .kiln run differs";
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, RealModelTest, ::testing::ValuesIn(FindCases()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) {
                           std::string n = info.param.model + "_" + info.param.set;
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

TEST(RealModels, QuantizedModelIsRejectedWithEveryUnsupportedOp) {
  const std::string model =
      testing::SharedDir() + "/models/quantized/mobilenetv2-12-int8/model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not present";
  OnnxParseOptions options;
  options.input_shapes["input"] = {1, 3, 224, 224};
  auto g = ImportOnnx(model, options);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnsupported);
  const std::string& msg = g.status().message();
  EXPECT_NE(msg.find("unsupported ops ("), std::string::npos) << msg;
  // Every op of the int8 model that Kiln lacks is named, with its node and opset.
  for (const char* op :
       {"QLinearConv", "QLinearAdd", "QLinearMatMul", "QLinearGlobalAveragePool"}) {
    EXPECT_NE(msg.find(std::string(op) + " (node '"), std::string::npos) << op << ": " << msg;
  }
  EXPECT_NE(msg.find("opset 12)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln
