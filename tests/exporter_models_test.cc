// Models as a current exporter writes them (opsets 18 and 21, IR 10, symbolic batch; built by
// tests/gen_exporter_models.py with ONNX Runtime reference outputs): each imports, runs on the
// CPU reference executor and matches ONNX Runtime. Skipped when the python tools folder is absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/frontend.h"
#include "tests/node_test_runner.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(ExporterModels, ImportAndMatchOnnxRuntime) {
  const fs::path root = fs::path(testing::PythonToolsDir()) / "exporter-models";
  if (!fs::exists(root / "VERSION")) {
    GTEST_SKIP() << root << " not generated (bash tests/setup_python_tools.sh)";
  }
  int checked = 0;
  for (const std::string name :
       {"convnet_opset18", "convnet_opset21", "transformer_opset18", "transformer_opset21"}) {
    const fs::path dir = root / name;
    ASSERT_TRUE(fs::exists(dir / "model.onnx")) << dir;
    const Status st = testing::RunNodeTest(dir.string());
    EXPECT_TRUE(st.ok()) << name << ": " << st.ToString();
    // The symbolic batch dim alone does not stop the import (it defaults to 1).
    auto g = ImportOnnx((dir / "model.onnx").string(), {});
    EXPECT_TRUE(g.ok()) << name << ": " << g.status().ToString();
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

}  // namespace
}  // namespace kiln
