// Hostile graph sections found by the fuzzer must be refused with a schema error, not read.
#include "serializer/graph_reader.h"

#include <gtest/gtest.h>

#include <functional>

#include "serializer/kiln_model_generated.h"

namespace kiln::format {
namespace {

// One Identity node over one value, with a caller-built attribute list.
std::vector<uint8_t> GraphWithAttribute(
    const std::function<flatbuffers::Offset<fb::Attribute>(flatbuffers::FlatBufferBuilder&)>&
        make_attr,
    std::vector<int32_t> inputs = {0}) {
  flatbuffers::FlatBufferBuilder b;
  auto attr = make_attr(b);
  std::vector<int64_t> shape = {1};
  auto value = fb::CreateValue(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(shape), true);
  std::vector<int32_t> ids = {0};
  std::vector<flatbuffers::Offset<fb::Attribute>> attrs = {attr};
  auto node = fb::CreateNode(b, b.CreateString("n"), fb::OpType::Identity, 17,
                             b.CreateVector(inputs), b.CreateVector(ids), b.CreateVector(attrs));
  std::vector<flatbuffers::Offset<fb::Value>> values = {value};
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {node};
  fb::FinishGraphBuffer(
      b, fb::CreateGraph(b, b.CreateString("g"), b.CreateVector(values), b.CreateVector(nodes)));
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

TEST(GraphReaderTest, UnionTypeWithoutValueIsASchemaError) {
  auto bytes = GraphWithAttribute([](flatbuffers::FlatBufferBuilder& b) {
    auto name = b.CreateString("axes");
    fb::AttributeBuilder ab(b);
    ab.add_name(name);
    ab.add_value_type(fb::AttrValue::IntsAttr);  // type set, value table absent
    return ab.Finish();
  });
  auto g = ReadGraph({nullptr, bytes.data(), bytes.size()}, {nullptr, nullptr, 0});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("schema"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("no value"), std::string::npos) << g.status().message();
}

TEST(GraphReaderTest, WellFormedReadsAndTruncatedFailsTheVerifier) {
  auto ok = GraphWithAttribute([](flatbuffers::FlatBufferBuilder& b) {
    return fb::CreateAttribute(b, b.CreateString("i"), fb::AttrValue::IntAttr,
                               fb::CreateIntAttr(b, 3).Union());
  });
  EXPECT_TRUE(ReadGraph({nullptr, ok.data(), ok.size()}, {nullptr, nullptr, 0}).ok());
  // Truncated buffers fail the flatbuffers Verifier.
  auto bad = ReadGraph({nullptr, ok.data(), ok.size() / 2}, {nullptr, nullptr, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("schema"), std::string::npos);
}

TEST(GraphReaderTest, OmittedRequiredInputIsASchemaError) {
  auto bytes = GraphWithAttribute(
      [](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateAttribute(b, b.CreateString("i"), fb::AttrValue::IntAttr,
                                   fb::CreateIntAttr(b, 3).Union());
      },
      {-1});
  auto g = ReadGraph({nullptr, bytes.data(), bytes.size()}, {nullptr, nullptr, 0});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("required input 0 is omitted"), std::string::npos)
      << g.status().message();
}

}  // namespace
}  // namespace kiln::format
