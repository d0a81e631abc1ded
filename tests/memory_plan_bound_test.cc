// The one memory planner against the liveness lower bound (the most bytes live at once, which
// no placement of the same buffers can beat): every shared model, compiled for every backend of
// this build, gets an arena of at most 1.05 x that bound.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "backends/backend_registry.h"
#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// Models with symbolic image sizes, compiled at the sizes the DSP sweep uses.
const std::map<std::string, std::vector<int64_t>> kInputShapes = {{"ppocr_det", {1, 3, 320, 320}},
                                                                  {"ppocr_cls", {1, 3, 48, 192}},
                                                                  {"ppocr_rec", {1, 3, 48, 320}}};

class MemoryPlanBound : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryPlanBound, ArenaWithinFivePercentOfTheLivenessBound) {
  const fs::path path = fs::path(testing::SharedDir()) / "models" / GetParam() / "model.onnx";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not there";
  OnnxParseOptions parse;
  if (auto it = kInputShapes.find(GetParam()); it != kInputShapes.end()) {
    parse.input_shapes["x"] = it->second;
  }
  auto graph = ImportOnnx(path.string(), parse);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  for (const Backend* backend : Backends()) {
    if (backend->name() == "null") continue;  // the test-only backend places no real model
    CompileOptions options;
    options.target_isa = kBestCpuIsa;
    options.target_backend = std::string(backend->name());
    if (backend->name() == kExecutorDsp) options.target_isa = Isa::kReference;
    auto compiled = CompileGraph(*graph, options);
    ASSERT_TRUE(compiled.ok()) << backend->name() << ": " << compiled.status().ToString();
    const MemoryPlanStats& m = compiled->memory;
    ASSERT_GT(m.lower_bound_bytes, 0u);
    EXPECT_LE(static_cast<double>(m.arena_bytes), 1.05 * static_cast<double>(m.lower_bound_bytes))
        << GetParam() << " for " << backend->name() << ": arena " << m.arena_bytes
        << " bytes, liveness bound " << m.lower_bound_bytes;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, MemoryPlanBound,
                         ::testing::Values("mnist", "squeezenet", "mobilenetv2", "super_resolution",
                                           "ppocr_det", "ppocr_cls", "ppocr_rec", "densenet121_rw",
                                           "efficientnet_b0_rw", "googlenet_rw", "resnet18_rw",
                                           "shufflenetv2_rw", "quantized/mobilenetv2-12-int8"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace kiln
