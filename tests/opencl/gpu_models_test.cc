// Every shared model on the GPU executor (PoCL in CI): compiled for the GPU (--target gpu:
// placement, GPU weight packing, memory plan), run with CPU fallback on each test_data_set in
// fp32 against the reference outputs (rtol 1e-3, atol 1e-4, as on the CPU), and on
// test_data_set_0 in fp16 storage, which must keep an SQNR of at least 35 dB (docs/gpu.md).
// ctest -L opencl.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "backends/opencl/gpu_options.h"
#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "compiler/tensor_compare.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/placement.h"
#include "runtime/session.h"
#include "tests/opencl/opencl_test_util.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

constexpr double kFp16MinSqnrDb = 35.0;

std::vector<std::string> Models() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& m : fs::directory_iterator(fs::path(testing::SharedDir()) / "models", ec)) {
    if (m.is_directory() && m.path().filename() != "quantized" &&
        fs::exists(m.path() / "model.onnx")) {
      out.push_back(m.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<HostTensor> ReadSet(const fs::path& dir, const std::string& prefix) {
  auto tensors = ReadTensorProtoSet(dir.string(), prefix);
  EXPECT_TRUE(tensors.ok()) << tensors.status().ToString();
  return tensors.ok() ? std::move(tensors).value() : std::vector<HostTensor>{};
}

class GpuModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuModelTest, ValidatesOnTheGpu) {
  if (!testing::HaveOpenClDevice()) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)";
  const fs::path dir = fs::path(testing::SharedDir()) / "models" / GetParam();
  auto names = ReadOnnxInputNames((dir / "model.onnx").string());
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  std::vector<fs::path> sets;
  for (const auto& s : fs::directory_iterator(dir)) {
    if (s.is_directory() && s.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(s.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  ASSERT_FALSE(sets.empty());
  for (const fs::path& set : sets) {
    std::vector<HostTensor> inputs = ReadSet(set, "input_");
    const std::vector<HostTensor> expected = ReadSet(set, "output_");
    OnnxParseOptions parse;
    for (size_t i = 0; i < inputs.size(); ++i) {  // unnamed or upstream names: by position
      if (std::find(names->begin(), names->end(), inputs[i].name) == names->end()) {
        inputs[i].name = (*names)[i];
      }
      parse.input_shapes[inputs[i].name] = inputs[i].shape;
    }
    auto graph = ImportOnnx((dir / "model.onnx").string(), parse);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    CompileOptions copts;
    copts.target_backend = kExecutorOpenCL;
    copts.target_isa = kBestCpuIsa;
    auto compiled = CompileGraph(std::move(graph).value(), copts);
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    auto g = std::make_shared<const Graph>(std::move(compiled->graph));
    auto plan = std::make_shared<const ExecutionPlan>(std::move(compiled->plan));
    const bool first = set == sets.front();
    for (GpuPrecision p : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
      if (p == GpuPrecision::kFp16 && !first) continue;
      GpuOptions gpu;
      gpu.precision = p;
      auto run = testing::RunOnGpu(*g, inputs, gpu, plan);
      ASSERT_EQ(run.outputs.size(), expected.size());
      const std::string placement = PlacementSummary(run.placement);
      EXPECT_NE(placement.find("opencl"), std::string::npos) << placement;
      for (size_t i = 0; i < expected.size(); ++i) {
        auto cmp = CompareTensors(run.outputs[i], expected[i], 1e-3, 1e-4);
        ASSERT_TRUE(cmp.ok()) << cmp.status().ToString();
        const std::string summary = ComparisonSummary(*cmp, expected[i].num_elements());
        std::printf("gpu-model %s/%s %s output %zu (%s): %s\n", GetParam().c_str(),
                    set.filename().c_str(), GpuPrecisionName(p), i, placement.c_str(),
                    summary.c_str());
        if (p == GpuPrecision::kFp32) {
          EXPECT_TRUE(cmp->within_tolerance) << summary;
        } else {
          EXPECT_GE(cmp->sqnr_db, kFp16MinSqnrDb) << summary;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, GpuModelTest, ::testing::ValuesIn(Models()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln
