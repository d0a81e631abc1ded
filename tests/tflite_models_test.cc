// TFLite models import, compile and run on the CPU and match LiteRT's outputs
// (tests/tflite/, written by tests/gen_tflite_models.py with LiteRT's builtin reference
// kernels): float32 and float16-weight models (two graphs and one model per further builtin)
// within float rounding; int8 models per op within
// one code of LiteRT (Kiln's requantization rounds once, TFLite's twice: docs/quantization.md)
// and end to end within the measured bound, where one-code differences compound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "calibration/npy_io.h"
#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "runtime/session.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

fs::path FixtureDir(const std::string& name) {
  return fs::path(KILN_SOURCE_DIR) / "tests" / "tflite" / name;
}

struct Comparison {
  double max_abs = 0;  // float outputs: max |kiln - LiteRT|; int8 outputs: max code difference
  int64_t differ = 0;  // elements that differ at all
  int64_t elements = 0;
  int integer_ops = 0;  // QConv, QGemm, QAdd, ... in the compiled graph
  int float_convs = 0;  // Conv/FusedConv/Gemm/FusedGemm left in float
  int transposes = 0;   // Transpose nodes left in the compiled graph
};

Expected<Comparison> RunFixture(const std::string& name) {
  const fs::path dir = FixtureDir(name);
  KILN_ASSIGN_OR_RETURN(Graph graph, ImportTflite((dir / "model.tflite").string(), {}));
  CompileOptions options;
  options.verify_each_pass = true;
  options.target_isa = kBestCpuIsa;
  KILN_ASSIGN_OR_RETURN(CompiledModel compiled, CompileGraph(std::move(graph), options));
  Comparison c;
  for (const Node& n : compiled.graph.nodes()) {
    const int op = static_cast<int>(n.op);
    c.integer_ops += op >= 160 && op < 200;
    c.float_convs += n.op == OpType::kConv || n.op == OpType::kFusedConv || n.op == OpType::kGemm ||
                     n.op == OpType::kFusedGemm;
    c.transposes += n.op == OpType::kTranspose;
  }
  auto shared = std::make_shared<const Graph>(std::move(compiled.graph));
  KILN_ASSIGN_OR_RETURN(auto session,
                        Session::Create(shared, SessionOptions{},
                                        std::make_shared<const ExecutionPlan>(compiled.plan)));
  KILN_ASSIGN_OR_RETURN(HostTensor input, ReadNpyFile((dir / "input_0.npy").string()));
  input.name = session->input_info(0).name;
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, session->Run({input}));
  for (size_t o = 0; o < outputs.size(); ++o) {
    KILN_ASSIGN_OR_RETURN(HostTensor want,
                          ReadNpyFile((dir / ("output_" + std::to_string(o) + ".npy")).string()));
    const HostTensor& got = outputs[o];
    if (got.dtype != want.dtype || got.shape != want.shape) {
      return Internal("output " + std::to_string(o) + " is " + std::string(DTypeName(got.dtype)) +
                      ShapeToString(got.shape) + ", LiteRT's " +
                      std::string(DTypeName(want.dtype)) + ShapeToString(want.shape));
    }
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      const double a = got.dtype == DType::kI8 ? got.data<int8_t>()[i] : got.data<float>()[i];
      const double b = want.dtype == DType::kI8 ? want.data<int8_t>()[i] : want.data<float>()[i];
      const double d = std::fabs(a - b);
      c.max_abs = std::max(c.max_abs, d);
      c.differ += d > 0;
    }
    c.elements += want.num_elements();
  }
  return c;
}

class TfliteFloatModel : public ::testing::TestWithParam<std::string> {};

TEST_P(TfliteFloatModel, MatchesLiteRt) {
  auto c = RunFixture(GetParam());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_LE(c->max_abs, 1e-5) << GetParam();
  // The layout conversions are only at the graph's NHWC input and output.
  EXPECT_LE(c->transposes, 3) << GetParam();
  std::printf("[ measure  ] %s: max abs error %.3g over %lld elements, %d transposes left\n",
              GetParam().c_str(), c->max_abs, static_cast<long long>(c->elements), c->transposes);
}

// The two graphs in float32 and with float16 weights, and every float_op_* model.
std::vector<std::string> FloatFixtures() {
  std::vector<std::string> names = {"cnn_float", "cnn_f16", "head_float", "head_f16"};
  std::vector<std::string> ops;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests" / "tflite", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("float_op_", 0) == 0) ops.push_back(n);
  }
  std::sort(ops.begin(), ops.end());
  names.insert(names.end(), ops.begin(), ops.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TfliteFloatModel, ::testing::ValuesIn(FloatFixtures()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

struct Int8Case {
  std::string name;
  double max_codes;  // the bound on |kiln - LiteRT| in output codes
  bool integer;      // whether the model's compute must run on integer ops
};

void PrintTo(const Int8Case& c, std::ostream* os) { *os << c.name; }

class TfliteInt8Model : public ::testing::TestWithParam<Int8Case> {};

TEST_P(TfliteInt8Model, WithinCodesOfLiteRt) {
  const Int8Case& p = GetParam();
  auto c = RunFixture(p.name);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_LE(c->max_abs, p.max_codes) << p.name;
  if (p.integer) {
    EXPECT_GT(c->integer_ops, 0) << p.name << " did not lower to integer ops";
    EXPECT_EQ(c->float_convs, 0) << p.name << " kept a convolution or matmul in float";
  }
  std::printf(
      "[ measure  ] %s: max code difference %g, %lld of %lld elements differ, %d integer ops\n",
      p.name.c_str(), c->max_abs, static_cast<long long>(c->differ),
      static_cast<long long>(c->elements), c->integer_ops);
}

// One op per model: within one code. The end-to-end cnn_int8 chains 21 ops, three of them
// upsampling, over which one-code differences spread and add up (measured on the fixture's
// input: 5 codes at most, 168 of 1024 elements differ; on other inputs 4 codes, 242 of 1024;
// every op alone is within one code: the int8_op_* models). Its bound leaves
// room for other inputs, not for a wrong op: a layout or parameter error costs tens of codes.
INSTANTIATE_TEST_SUITE_P(
    Fixtures, TfliteInt8Model,
    ::testing::Values(
        Int8Case{"head_int8", 1, true}, Int8Case{"cnn_int8", 8, true},
        Int8Case{"dsp_int8", 1, true}, Int8Case{"int8_op_conv", 1, true},
        Int8Case{"int8_op_conv_stride2", 1, true}, Int8Case{"int8_op_depthwise", 1, true},
        Int8Case{"int8_op_transpose_conv", 1, false}, Int8Case{"int8_op_fully_connected", 1, true},
        Int8Case{"int8_op_max_pool", 1, false}, Int8Case{"int8_op_average_pool", 1, true},
        Int8Case{"int8_op_add", 1, true}, Int8Case{"int8_op_mul", 1, true},
        Int8Case{"int8_op_sub", 1, false}, Int8Case{"int8_op_concatenation", 1, false},
        Int8Case{"int8_op_pad", 1, false}, Int8Case{"int8_op_resize_bilinear", 1, false},
        Int8Case{"int8_op_resize_nearest", 1, false}, Int8Case{"int8_op_hard_swish", 1, true},
        Int8Case{"int8_op_logistic", 1, true}, Int8Case{"int8_op_tanh", 1, true},
        Int8Case{"int8_op_mean", 1, false}, Int8Case{"int8_op_softmax", 1, false},
        Int8Case{"int8_op_strided_slice", 1, false}),
    [](const ::testing::TestParamInfo<Int8Case>& info) { return info.param.name; });

}  // namespace
}  // namespace kiln
