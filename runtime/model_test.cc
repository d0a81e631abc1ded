// Model::Load round trips on graphs built in code: execution is bit-identical, weights are the
// verified copy (or, with map_weights, used in place from the mapping), a file modified in
// place after loading does not change what runs, and the loader's version/unsigned/limit rules
// hold.
#include "runtime/model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "ir/op_schema.h"
#include "runtime/session.h"
#include "serializer/container_reader.h"
#include "serializer/graph_reader.h"
#include "serializer/graph_writer.h"
#include "serializer/model_writer.h"

namespace kiln {
namespace {

// x[2,8] -> MatMul(W[8,16]) -> Add(B[16]) -> Relu -> y[2,16]
std::shared_ptr<Graph> SmallGraph() {
  auto g = std::make_shared<Graph>();
  g->name = "small";
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto constant = [&](const std::string& name, Shape shape) {
    std::vector<float> v(static_cast<size_t>(NumElements(shape)));
    for (auto& x : v) x = dist(rng);
    return g->AddConstant(name, DType::kF32, shape, ConstantBytes::Copy(v.data(), v.size() * 4));
  };
  Value x;
  x.name = "x";
  x.dtype = DType::kF32;
  x.shape = {2, 8};
  x.shape_known = true;
  const ValueId xi = g->AddValue(x);
  g->inputs().push_back(xi);
  const ValueId w = constant("W", {8, 16});
  const ValueId b = constant("B", {16});
  auto add_node = [&](const std::string& name, OpType op, std::vector<ValueId> in) {
    Value out;
    out.name = name + "_out";
    const ValueId o = g->AddValue(out);
    Node n;
    n.name = name;
    n.op = op;
    n.opset = 17;
    n.inputs = std::move(in);
    n.outputs = {o};
    const NodeId id = g->AddNode(std::move(n));
    EXPECT_TRUE(InferNode(*g, id).ok());
    return o;
  };
  const ValueId mm = add_node("mm", OpType::kMatMul, {xi, w});
  const ValueId add = add_node("add", OpType::kAdd, {mm, b});
  const ValueId y = add_node("relu", OpType::kRelu, {add});
  g->outputs().push_back(y);
  return g;
}

HostTensor SmallInput() {
  HostTensor t("x", DType::kF32, {2, 8});
  for (int i = 0; i < 16; ++i) t.data<float>()[i] = 0.25f * static_cast<float>(i - 7);
  return t;
}

std::vector<HostTensor> RunGraph(std::shared_ptr<const Graph> g) {
  auto session = Session::Create(std::move(g));
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({SmallInput()});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<HostTensor>{};
}

class ModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        (std::filesystem::temp_directory_path() / ("kiln_model_test_" + std::to_string(::getpid())))
            .string();
    std::filesystem::create_directories(dir_);
    auto key = signing::PrivateKey::Generate();
    ASSERT_TRUE(key.ok());
    key_ = std::make_unique<signing::PrivateKey>(std::move(*key));
    auto pub = key_->public_key();
    ASSERT_TRUE(pub.ok());
    key_id_ = pub->key_id();
    ASSERT_TRUE(trust_.AddPublicKeyPem(*pub->ToPem()).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::vector<uint8_t>& image, const std::string& name) {
    const std::string path = dir_ + "/" + name;
    EXPECT_TRUE(WriteFileAtomically(path, image).ok());
    return path;
  }

  std::string dir_;
  std::unique_ptr<signing::PrivateKey> key_;
  std::string key_id_;
  TrustStore trust_;
};

TEST_F(ModelTest, SignedUncompressedRoundTripIsBitIdenticalAndCopiesWeights) {
  auto g = SmallGraph();
  WriteOptions options;
  options.signing_key = key_.get();
  options.metadata.source_sha256 = "ab12";
  options.metadata.compile_options = {{"compress", "none"}};
  const std::string path = dir_ + "/small.kiln";
  ASSERT_TRUE(WriteModelFile(*g, options, path).ok());

  LoadOptions mapped;
  mapped.map_weights = true;
  auto zero_copy = Model::Load(path, trust_, mapped);
  ASSERT_TRUE(zero_copy.ok()) << zero_copy.status().ToString();
  EXPECT_TRUE((*zero_copy)->info().weights_mapped);  // only when asked for

  auto model = Model::Load(path, trust_);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ModelInfo& info = (*model)->info();
  EXPECT_TRUE(info.is_signed);
  EXPECT_EQ(info.key_id, key_id_);
  EXPECT_FALSE(info.weights_mapped);  // the default: the verified copy
  EXPECT_EQ(info.metadata.producer, "kiln");
  EXPECT_EQ(info.metadata.source_sha256, "ab12");
  ASSERT_EQ(info.metadata.compile_options.size(), 1u);
  EXPECT_GT(info.metadata.created_unix, 0);

  std::shared_ptr<const Graph> loaded = (*model)->graph();
  const Value& w = loaded->value(*loaded->FindValue("W"));
  ASSERT_TRUE(w.constant.has_value());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.constant->data()) % 64, 0u);
  EXPECT_EQ(std::memcmp(w.constant->data(), g->value(*g->FindValue("W")).constant->data(),
                        w.constant->size()),
            0);

  auto expected = RunGraph(g);
  model = Expected<std::shared_ptr<const Model>>(Internal("dropped"));  // graph outlives model
  auto got = RunGraph(loaded);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(got[0].shape, expected[0].shape);
  EXPECT_EQ(got[0].bytes, expected[0].bytes);  // bit-identical
}

TEST_F(ModelTest, ZstdRoundTripDecompressesToAlignedBuffers) {
  auto g = SmallGraph();
  WriteOptions options;
  ASSERT_TRUE(ParseCompression("zstd:19", &options).ok());
  options.signing_key = key_.get();
  auto image = SerializeModel(*g, options);
  ASSERT_TRUE(image.ok());
  const std::string path = Write(*image, "small_zstd.kiln");
  auto model = Model::Load(path, trust_);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_FALSE((*model)->info().weights_mapped);
  for (const auto& s : (*model)->info().sections) EXPECT_EQ(s.compression, "zstd");
  const Value& w = (*model)->graph()->value(*(*model)->graph()->FindValue("W"));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.constant->data()) % 64, 0u);
  EXPECT_EQ(RunGraph((*model)->graph())[0].bytes, RunGraph(g)[0].bytes);
}

TEST_F(ModelTest, ParseCompressionRejectsBadSpecs) {
  WriteOptions o;
  EXPECT_TRUE(ParseCompression("zstd", &o).ok());
  EXPECT_TRUE(ParseCompression("none", &o).ok());
  EXPECT_FALSE(ParseCompression("zstd:0", &o).ok());
  EXPECT_FALSE(ParseCompression("zstd:99", &o).ok());
  EXPECT_FALSE(ParseCompression("zstd5", &o).ok());
  EXPECT_FALSE(ParseCompression("lz4", &o).ok());
}

TEST_F(ModelTest, UnsignedRefusedUnlessAllowed) {
  auto image = SerializeModel(*SmallGraph(), WriteOptions{});
  ASSERT_TRUE(image.ok());
  const std::string path = Write(*image, "unsigned.kiln");
  auto refused = Model::Load(path, trust_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("unsigned"), std::string::npos);
  LoadOptions allow;
  allow.allow_unsigned = true;
  auto accepted = Model::Load(path, TrustStore(), allow);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  EXPECT_FALSE((*accepted)->info().is_signed);
}

TEST_F(ModelTest, NewerMinorSkipsUnknownSectionsNewerMajorIsRefused) {
  auto g = SmallGraph();
  auto sections = format::WriteGraphSections(*g);
  ASSERT_TRUE(sections.ok());
  std::vector<RawSection> raw(3);
  raw[0] = {1, 0, sections->graph, sections->graph.size()};
  raw[1] = {2, 0, sections->weights, sections->weights.size()};
  raw[2] = {42, 7, {1, 2, 3}, 3};  // a future kind with a future compression
  const std::vector<uint8_t> newer_unsigned = AssembleContainer(raw, format::kMinorVersion + 1);
  auto newer = SignModelImage(newer_unsigned.data(), newer_unsigned.size(), *key_);
  ASSERT_TRUE(newer.ok()) << newer.status().ToString();
  auto model = Model::Load(Write(*newer, "newer_minor.kiln"), trust_);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().sections.back().kind, "unknown(42)");

  // The same unknown kind in a file claiming this reader's version is malformed.
  const std::vector<uint8_t> same_unsigned = AssembleContainer(raw);
  auto same = SignModelImage(same_unsigned.data(), same_unsigned.size(), *key_);
  ASSERT_FALSE(same.ok());  // the signer already refuses it
  EXPECT_NE(same.status().message().find("unknown section kind 42"), std::string::npos);

  std::vector<uint8_t> major = *newer;
  format::StoreU16(major.data() + 8, 2);
  auto refused = Model::Load(Write(major, "major2.kiln"), trust_);
  ASSERT_FALSE(refused.ok());
  const std::string newer_minor = std::to_string(format::kMinorVersion + 1);
  EXPECT_NE(refused.status().message().find("version 2." + newer_minor), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("1." + std::to_string(format::kMinorVersion)),
            std::string::npos);
}

TEST(GraphSectionTest, AttributesQuantAndLayoutRoundTrip) {
  Graph g;
  Value v;
  v.name = "q";
  v.dtype = DType::kI8;
  v.shape = {1, 4};
  v.shape_known = true;
  v.layout = Layout::kNHWC;
  v.quant.scales = {0.5f, 0.25f};
  v.quant.zero_points = {1, -2};
  v.quant.axis = 1;
  const ValueId in = g.AddValue(v);
  Value o;
  o.name = "o";
  const ValueId out = g.AddValue(o);
  Node n;
  n.name = "n";
  n.op = OpType::kIdentity;
  n.inputs = {in, kNoValue};
  n.outputs = {out};
  n.placement = "cpu";
  n.attrs.Set("i", int64_t{-3});
  n.attrs.Set("f", 1.5f);
  n.attrs.Set("s", std::string("hello"));
  n.attrs.Set("is", std::vector<int64_t>{1, 2, 3});
  n.attrs.Set("fs", std::vector<float>{0.5f});
  n.attrs.Set("ss", std::vector<std::string>{"a", ""});
  TensorAttr t;
  t.dtype = DType::kF32;
  t.shape = {2};
  const float tv[2] = {3.f, 4.f};
  t.bytes = ConstantBytes::Copy(tv, sizeof(tv));
  n.attrs.Set("t", t);
  g.AddNode(n);
  g.inputs() = {in};
  g.outputs() = {out};

  auto sections = format::WriteGraphSections(g);
  ASSERT_TRUE(sections.ok());
  format::SectionBytes gb{nullptr, sections->graph.data(), sections->graph.size()};
  format::SectionBytes wb{nullptr, sections->weights.data(), sections->weights.size()};
  auto back = format::ReadGraph(gb, wb);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const Value& q = back->value(0);
  EXPECT_EQ(q.layout, Layout::kNHWC);
  EXPECT_EQ(q.quant.scales, v.quant.scales);
  EXPECT_EQ(q.quant.zero_points, v.quant.zero_points);
  EXPECT_EQ(q.quant.axis, 1);
  const Node& bn = back->node(0);
  EXPECT_EQ(bn.inputs, (std::vector<ValueId>{in, kNoValue}));
  EXPECT_EQ(bn.placement, "cpu");
  EXPECT_EQ(bn.attrs.GetInt("i", 0), -3);
  EXPECT_EQ(bn.attrs.GetFloat("f", 0), 1.5f);
  EXPECT_EQ(bn.attrs.GetString("s", ""), "hello");
  EXPECT_EQ(bn.attrs.GetInts("is"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(bn.attrs.GetFloats("fs"), (std::vector<float>{0.5f}));
  ASSERT_NE(bn.attrs.Find("ss"), nullptr);
  EXPECT_EQ(std::get<std::vector<std::string>>(*bn.attrs.Find("ss")),
            (std::vector<std::string>{"a", ""}));
  const TensorAttr* bt = bn.attrs.GetTensor("t");
  ASSERT_NE(bt, nullptr);
  EXPECT_EQ(bt->shape, (Shape{2}));
  EXPECT_EQ(std::memcmp(bt->bytes.data(), tv, sizeof(tv)), 0);
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// Overwrites the weights section of the file at `path` in place (same inode, so a mapping of
// the file sees the change) with 0x3f bytes: every weight becomes 0.747...
void TamperWeightsInPlace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> image((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  auto view = format::ParseContainer(image.data(), image.size());
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  const format::SectionEntry* w = view->Find(format::SectionKind::kWeights);
  ASSERT_NE(w, nullptr);
  ASSERT_GT(w->stored_size, 0u);
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(w->offset));
  const std::vector<char> junk(w->stored_size, 0x3f);
  f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  f.flush();
  ASSERT_TRUE(f.good());
}

// Issue 11, item "weights the runtime uses are the weights it verified": a session holding an
// uncompressed model keeps computing the same outputs after the file is modified in place; with
// map_weights (zero-copy) the change shows, which is why that mode is only for read-only storage.
TEST_F(ModelTest, ModifyingTheFileInPlaceWhileASessionHoldsItChangesNothing) {
  WriteOptions options;
  options.signing_key = key_.get();
  for (bool map_weights : {false, true}) {
    const std::string path = dir_ + (map_weights ? "/mapped.kiln" : "/copied.kiln");
    ASSERT_TRUE(WriteModelFile(*SmallGraph(), options, path).ok());
    LoadOptions load;
    load.map_weights = map_weights;
    auto model = Model::Load(path, trust_, load);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_EQ((*model)->info().weights_mapped, map_weights);
    auto session = Session::Create((*model)->graph());
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    auto before = (*session)->Run({SmallInput()});
    ASSERT_TRUE(before.ok()) << before.status().ToString();

    TamperWeightsInPlace(path);
    auto after = (*session)->Run({SmallInput()});
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    if (map_weights) {
      EXPECT_NE((*after)[0].bytes, (*before)[0].bytes) << "the mapping sees the new bytes";
    } else {
      EXPECT_EQ((*after)[0].bytes, (*before)[0].bytes) << "the verified copy is what runs";
    }
    // A fresh load of the modified file is refused either way.
    auto reloaded = Model::Load(path, trust_, load);
    ASSERT_FALSE(reloaded.ok());
    EXPECT_NE(reloaded.status().message().find("section hash of weights does not match"),
              std::string::npos)
        << reloaded.status().ToString();
  }
}

}  // namespace
}  // namespace kiln
