// The TFLite importer on bad input: every truncation and every flipped byte of a fixture ends in
// an error or a verified graph (never a crash), a flipped root offset is reported as corrupt,
// custom and Flex ops are refused by name, so are weights in external buffers, and the NHWC
// layout is made explicit at the graph's edges only.
#include "parsers/tflite/tflite_parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/frontend.h"
#include "parsers/tflite/schema/schema_generated.h"

namespace kiln {
namespace {

std::vector<uint8_t> ReadFixture(const std::string& name) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/tflite/" + name + "/model.tflite";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

TEST(TfliteParser, ImportsFixtureWithNhwcEdges) {
  auto g = ImportTfliteBytes(ReadFixture("head_float"), {});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->value(g->inputs()[0]).shape, (Shape{1, 8, 8, 4}));  // NHWC, as declared
  ASSERT_EQ(g->outputs().size(), 2u);
  EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{1, 10}));
  EXPECT_EQ(g->value(g->outputs()[1]).shape, (Shape{1, 4, 4, 12}));
  // The convolution runs in NCHW with OIHW weights.
  int convs = 0;
  for (const Node& n : g->nodes()) {
    if (n.op != OpType::kConv) continue;
    ++convs;
    EXPECT_EQ(g->value(n.inputs[0]).shape, (Shape{1, 4, 8, 8}));
    EXPECT_EQ(g->value(n.inputs[1]).shape, (Shape{12, 4, 3, 3}));
  }
  EXPECT_EQ(convs, 1);
}

TEST(TfliteParser, EveryTruncationFailsCleanly) {
  const std::vector<uint8_t> bytes = ReadFixture("int8_op_conv");
  ASSERT_GT(bytes.size(), 100u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto g = ParseTfliteBytes(std::span<const uint8_t>(bytes.data(), n), {});
    EXPECT_FALSE(g.ok()) << "truncated to " << n << " bytes";
  }
  EXPECT_TRUE(ParseTfliteBytes(bytes, {}).ok());
}

TEST(TfliteParser, FlippedRootOffsetIsCorrupt) {
  std::vector<uint8_t> bytes = ReadFixture("int8_op_conv");
  bytes[1] ^= 0x40;  // the root table offset now points outside the file
  auto g = ParseTfliteBytes(bytes, {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("FlatBuffers verification"), std::string::npos)
      << g.status().ToString();
  auto other = ParseTfliteBytes(std::vector<uint8_t>{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}, {});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("TFL3"), std::string::npos) << other.status().ToString();
}

// Every single-byte corruption: an error or a graph that verifies; the sanitizer build catches
// what a crash-free run would hide.
TEST(TfliteParser, EveryFlippedByteFailsCleanlyOrVerifies) {
  const std::vector<uint8_t> original = ReadFixture("int8_op_conv");
  int imported = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    std::vector<uint8_t> bytes = original;
    bytes[i] ^= 0xFF;
    auto g = ImportTfliteBytes(bytes, {});
    imported += g.ok();
  }
  std::printf("[ measure  ] %zu flipped bytes: %d still import (names, unused fields, weights)\n",
              original.size(), imported);
}

// A model of one input, one output and the given operators (op codes by name), each reading
// the input and writing the output: enough for the support check, which runs first.
std::vector<uint8_t> ModelWithOps(
    const std::vector<std::pair<tflite::BuiltinOperator, std::string>>& codes,
    uint32_t input_external_buffer = 0) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> op_codes;
  for (const auto& [builtin, custom] : codes) {
    op_codes.push_back(tflite::CreateOperatorCode(
        b, static_cast<int8_t>(std::min<int>(static_cast<int>(builtin), 127)),
        custom.empty() ? 0 : b.CreateString(custom), 1, builtin));
  }
  const std::vector<int32_t> shape = {1, 4};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors = {
      tflite::CreateTensor(b, b.CreateVector(shape), tflite::TensorType::FLOAT32, 0,
                           b.CreateString("x"), 0, false, 0, 0, false, 0,
                           input_external_buffer),
      tflite::CreateTensor(b, b.CreateVector(shape), tflite::TensorType::FLOAT32, 0,
                           b.CreateString("y"))};
  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  for (size_t k = 0; k < codes.size(); ++k) {
    ops.push_back(tflite::CreateOperator(b, static_cast<uint32_t>(k),
                                         b.CreateVector(std::vector<int32_t>{0}),
                                         b.CreateVector(std::vector<int32_t>{1})));
  }
  auto subgraph =
      tflite::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(std::vector<int32_t>{0}),
                             b.CreateVector(std::vector<int32_t>{1}), b.CreateVector(ops));
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers = {tflite::CreateBuffer(b)};
  auto model = tflite::CreateModel(b, 3, b.CreateVector(op_codes), b.CreateVector(&subgraph, 1), 0,
                                   b.CreateVector(buffers));
  tflite::FinishModelBuffer(b, model);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

TEST(TfliteParser, CustomAndFlexOpsRefusedByName) {
  using B = tflite::BuiltinOperator;
  auto g = ParseTfliteBytes(
      ModelWithOps(
          {{B::CUSTOM, "MyCustomOp"}, {B::CUSTOM, "FlexErf"}, {B::LSTM, ""}, {B::LSTM, ""}}),
      {});
  ASSERT_FALSE(g.ok());
  const std::string& m = g.status().message();
  EXPECT_EQ(g.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(m.find("custom op 'MyCustomOp' (operator 0)"), std::string::npos) << m;
  EXPECT_NE(m.find("Flex op 'FlexErf' (operator 1)"), std::string::npos) << m;
  EXPECT_NE(m.find("LSTM (operator 2 and 1 more)"), std::string::npos) << m;
}

TEST(TfliteParser, SupportedOpOnWrongInputsIsAnError) {
  // RELU reads and writes [1, 4]: imports; twice, the second op rewrites 'y'.
  using B = tflite::BuiltinOperator;
  EXPECT_TRUE(ImportTfliteBytes(ModelWithOps({{B::RELU, ""}}), {}).ok());
  auto twice = ParseTfliteBytes(ModelWithOps({{B::RELU, ""}, {B::RELU, ""}}), {});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("already defined"), std::string::npos)
      << twice.status().ToString();
}

TEST(TfliteParser, ExternalBuffersRefused) {
  auto g = ParseTfliteBytes(ModelWithOps({{tflite::BuiltinOperator::RELU, ""}}, 1), {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(g.status().message().find("tensor 0 keeps its data in external buffer 1"),
            std::string::npos)
      << g.status().ToString();
}

TEST(TfliteParser, InputShapeMustBeTheDeclaredOne) {
  TfliteParseOptions options;
  options.input_shapes["serving_default_x:0"] = {1, 8, 8, 5};
  auto g = ParseTfliteBytes(ReadFixture("int8_op_conv"), options);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("declared shapes"), std::string::npos)
      << g.status().ToString();
}

}  // namespace
}  // namespace kiln
