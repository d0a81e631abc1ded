// ONNX parser tests: bad bytes, missing files, unsupported ops, opsets, external data,
// symbolic dims, Constant nodes, tensor files.
#include "parsers/onnx/onnx_parser.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "compiler/frontend.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/session.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

void AddOpset(onnx::ModelProto& m, int64_t version) {
  m.set_ir_version(8);
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(version);
  m.mutable_graph()->set_name("g");
}

void AddTensorInput(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
                    std::vector<std::string> params = {}, bool output = false) {
  auto* vi = output ? g->add_output() : g->add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* s = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = s->add_dim();
    if (i < params.size() && !params[i].empty()) {
      d->set_dim_param(params[i]);
    } else {
      d->set_dim_value(dims[i]);
    }
  }
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                         std::vector<std::string> out, const std::string& name = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}

// x[2,3] -> Relu -> y
onnx::ModelProto ReluModel(int64_t opset = 13) {
  onnx::ModelProto m;
  AddOpset(m, opset);
  auto* g = m.mutable_graph();
  g->set_name("relu");
  AddTensorInput(g, "x", {2, 3});
  AddTensorInput(g, "y", {2, 3}, {}, true);
  AddNode(g, "Relu", {"x"}, {"y"});
  return m;
}

std::string Serialize(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

fs::path TempDir(const std::string& tag) {
  fs::path dir =
      fs::temp_directory_path() / ("kiln_parser_" + tag + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(OnnxParser, ParsesSimpleModelAndNamesNodes) {
  auto g = ParseOnnxBytes(Serialize(ReluModel()), ".", {});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->num_nodes(), 1u);
  EXPECT_EQ(g->node(0).op, OpType::kRelu);
  EXPECT_EQ(g->node(0).name, "Relu_0");  // empty names are generated as <op>_<index>
  EXPECT_EQ(g->node(0).opset, 13);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->value(g->inputs()[0]).shape, (Shape{2, 3}));
}

TEST(OnnxParser, RejectsTruncatedBytes) {
  const std::string bytes = Serialize(ReluModel());
  auto g = ParseOnnxBytes(bytes.substr(0, bytes.size() - 7), ".", {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().code(), StatusCode::kOk);
}

TEST(OnnxParser, RejectsRandomBytes) {
  std::string bytes(512, '\0');
  uint32_t seed = 12345;
  for (char& c : bytes) {
    seed = seed * 1664525u + 1013904223u;
    c = static_cast<char>(seed >> 24);
  }
  auto g = ParseOnnxBytes(bytes, ".", {});
  EXPECT_FALSE(g.ok());
  auto empty = ParseOnnxBytes("", ".", {});
  EXPECT_FALSE(empty.ok());
}

TEST(OnnxParser, MissingFileIsNotFound) {
  auto g = ParseOnnxFile("/nonexistent/kiln/model.onnx", {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_NE(g.status().message().find("/nonexistent/kiln/model.onnx"), std::string::npos);
}

TEST(OnnxParser, ListsEveryUnsupportedOpInOneError) {
  onnx::ModelProto m;
  AddOpset(m, 13);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 3});
  AddTensorInput(g, "z", {2, 3}, {}, true);
  AddNode(g, "FrobnicateA", {"x"}, {"a"}, "first");
  AddNode(g, "Relu", {"a"}, {"b"});
  AddNode(g, "FrobnicateB", {"b"}, {"z"}, "second");
  auto r = ParseOnnxBytes(Serialize(m), ".", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("unsupported ops (2)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FrobnicateA (node 'first', opset 13)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FrobnicateB (node 'second', opset 13)"), std::string::npos) << msg;
}

TEST(OnnxParser, RejectsOpsetOutsideRange) {
  auto r = ParseOnnxBytes(Serialize(ReluModel(24)), ".", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("opset 24 of domain ai.onnx; Kiln imports opsets 7..23"),
            std::string::npos)
      << r.status().message();
  // Below 7 only when no op changed since: Add-6 had the broadcast attribute (Add-7 did not).
  onnx::ModelProto m;
  AddOpset(m, 6);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 3});
  AddTensorInput(g, "y", {2, 3}, {}, true);
  AddNode(g, "Add", {"x", "x"}, {"y"});
  auto old = ParseOnnxBytes(Serialize(m), ".", {});
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("changed: Add"), std::string::npos)
      << old.status().message();
  for (int64_t opset : {7, 13, 17, 18, 21, 23}) {
    auto ok = ParseOnnxBytes(Serialize(ReluModel(opset)), ".", {});
    EXPECT_TRUE(ok.ok()) << opset << ": " << ok.status().ToString();
  }
}

TEST(OnnxParser, ConvertsOldOpsetToCanonical) {
  // Opset 7 Relu imports and the node remembers its source opset.
  auto g = ParseOnnxBytes(Serialize(ReluModel(7)), ".", {});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->node(0).opset, 7);
}

TEST(OnnxParser, SymbolicBatchDimDefaultsToOneWithANotice) {
  onnx::ModelProto m;
  AddOpset(m, 13);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {0, 3}, {"batch"});
  AddTensorInput(g, "y", {0, 3}, {"batch"}, true);
  AddNode(g, "Relu", {"x"}, {"y"});
  std::vector<std::string> notices;
  OnnxParseOptions with_notice;
  with_notice.notice = [&](const std::string& n) { notices.push_back(n); };
  auto r = ParseOnnxBytes(Serialize(m), ".", with_notice);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->value(r->inputs()[0]).shape, (Shape{1, 3}));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0],
            "input 'x': symbolic batch dim 0 ('batch') set to 1 (pass --input-shape x=D0,D1,... "
            "for another size)");
}

TEST(OnnxParser, SymbolicInputDimNeedsInputShape) {
  onnx::ModelProto m;
  AddOpset(m, 13);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 0}, {"", "width"});  // not the batch dim: still asks
  AddTensorInput(g, "y", {2, 0}, {"", "width"}, true);
  AddNode(g, "Relu", {"x"}, {"y"});
  auto r = ParseOnnxBytes(Serialize(m), ".", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'x'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("dim 1 ('width')"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("--input-shape x="), std::string::npos);

  OnnxParseOptions opts;
  opts.input_shapes["x"] = {2, 3};
  auto ok = ParseOnnxBytes(Serialize(m), ".", opts);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->value(ok->inputs()[0]).shape, (Shape{2, 3}));

  opts.input_shapes["x"] = {4, 5};  // contradicts the fixed dim 0
  EXPECT_FALSE(ParseOnnxBytes(Serialize(m), ".", opts).ok());
  opts.input_shapes = {{"nope", {1, 3}}};
  auto bad = ParseOnnxBytes(Serialize(m), ".", opts);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("nope"), std::string::npos);
}

TEST(OnnxParser, ConstantNodesBecomeConstants) {
  onnx::ModelProto m;
  AddOpset(m, 13);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 3});
  AddTensorInput(g, "y", {2, 3}, {}, true);
  auto* c = AddNode(g, "Constant", {}, {"w"}, "const_w");
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(3);
  for (float f : {1.f, 2.f, 3.f}) a->mutable_t()->add_float_data(f);
  AddNode(g, "Add", {"x", "w"}, {"y"}, "add");
  auto r = ParseOnnxBytes(Serialize(m), ".", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->num_nodes(), 1u);  // the Constant node is gone
  const Value& w = r->value(r->node(0).inputs[1]);
  ASSERT_TRUE(w.is_constant());
  EXPECT_EQ(w.shape, (Shape{3}));
  EXPECT_EQ(w.constant->as<float>()[2], 3.f);
}

TEST(OnnxParser, ExternalDataIsReadRelativeToTheModel) {
  const fs::path dir = TempDir("ext");
  const std::vector<float> weights = {0.5f, -1.f, 2.f};
  {
    std::ofstream bin(dir / "weights.bin", std::ios::binary);
    const uint32_t pad = 0xdeadbeef;  // data starts at offset 4
    bin.write(reinterpret_cast<const char*>(&pad), 4);
    bin.write(reinterpret_cast<const char*>(weights.data()), 12);
  }
  auto make = [&](int64_t offset, int64_t length, const std::string& location) {
    onnx::ModelProto m;
    AddOpset(m, 13);
    auto* g = m.mutable_graph();
    AddTensorInput(g, "x", {3});
    AddTensorInput(g, "y", {3}, {}, true);
    auto* t = g->add_initializer();
    t->set_name("w");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(3);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add_kv = [&](const std::string& k, const std::string& v) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add_kv("location", location);
    add_kv("offset", std::to_string(offset));
    add_kv("length", std::to_string(length));
    AddNode(g, "Mul", {"x", "w"}, {"y"}, "mul");
    std::ofstream(dir / "model.onnx", std::ios::binary) << Serialize(m);
  };
  make(4, 12, "weights.bin");
  auto r = ParseOnnxFile((dir / "model.onnx").string(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Value& w = r->value(r->node(0).inputs[1]);
  ASSERT_TRUE(w.is_constant());
  EXPECT_EQ(w.constant->as<float>()[0], 0.5f);
  EXPECT_EQ(w.constant->as<float>()[2], 2.f);

  make(8, 12, "weights.bin");  // runs past the end of the 16-byte file
  auto past = ParseOnnxFile((dir / "model.onnx").string(), {});
  ASSERT_FALSE(past.ok());

  make(0, 12, "../weights.bin");  // escapes the model's folder
  EXPECT_FALSE(ParseOnnxFile((dir / "model.onnx").string(), {}).ok());
  fs::remove_all(dir);
}

TEST(TensorProto, ReadsTypedAndRawDataAndRejectsDouble) {
  onnx::TensorProto p;
  p.set_name("t");
  p.set_data_type(onnx::TensorProto::INT64);
  p.add_dims(2);
  p.add_int64_data(7);
  p.add_int64_data(-9);
  auto t = TensorProtoToHostTensor(p, ".");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype, DType::kI64);
  EXPECT_EQ(t->data<int64_t>()[1], -9);

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(3);
  for (int v : {1, 0, 1}) b.add_int32_data(v);
  auto bt = TensorProtoToHostTensor(b, ".");
  ASSERT_TRUE(bt.ok());
  EXPECT_EQ(bt->bytes, (std::vector<uint8_t>{1, 0, 1}));

  onnx::TensorProto short_raw;
  short_raw.set_data_type(onnx::TensorProto::FLOAT);
  short_raw.add_dims(4);
  short_raw.set_raw_data(std::string(12, '\0'));  // needs 16
  EXPECT_EQ(TensorProtoToHostTensor(short_raw, ".").status().code(), StatusCode::kDataLoss);

  onnx::TensorProto d;
  d.set_name("dbl");
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_dims(1);
  d.add_double_data(1.0);
  auto dt = TensorProtoToHostTensor(d, ".");
  ASSERT_FALSE(dt.ok());
  EXPECT_EQ(dt.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(dt.status().message().find("dbl"), std::string::npos);
  EXPECT_NE(dt.status().message().find("DOUBLE"), std::string::npos);
}

TEST(TensorProto, ReadsFileAndReportsMissing) {
  const fs::path dir = TempDir("pb");
  onnx::TensorProto p;
  p.set_name("in");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(1);
  p.add_dims(2);
  p.add_float_data(1.5f);
  p.add_float_data(2.5f);
  std::string s;
  p.SerializeToString(&s);
  std::ofstream(dir / "t.pb", std::ios::binary) << s;
  auto t = ReadTensorProtoFile((dir / "t.pb").string());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->shape, (Shape{1, 2}));
  EXPECT_EQ(t->data<float>()[1], 2.5f);
  EXPECT_EQ(ReadTensorProtoFile((dir / "missing.pb").string()).status().code(),
            StatusCode::kNotFound);
  fs::remove_all(dir);
}

TEST(Frontend, FoldsShapeArithmeticAndKeepsConstantOutputs) {
  // y = Reshape(x, Shape(x)) and s = Shape(x) as a graph output: s folds to a constant.
  onnx::ModelProto m;
  AddOpset(m, 13);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 3});
  AddTensorInput(g, "y", {2, 3}, {}, true);
  auto* so = g->add_output();
  so->set_name("s");
  so->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  so->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  AddNode(g, "Shape", {"x"}, {"s"}, "shape");
  AddNode(g, "Reshape", {"x", "s"}, {"y"}, "reshape");
  const fs::path dir = TempDir("fold");
  std::ofstream(dir / "m.onnx", std::ios::binary) << Serialize(m);
  auto r = ImportOnnx((dir / "m.onnx").string(), {});
  fs::remove_all(dir);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outputs().size(), 2u);
  const Value& s = r->value(r->outputs()[1]);
  ASSERT_TRUE(s.is_constant());
  EXPECT_EQ(s.shape, (Shape{2}));
  EXPECT_EQ(s.constant->as<int64_t>()[1], 3);
  for (const Node& n : r->nodes()) EXPECT_NE(n.op, OpType::kShape);
}

// Writes `m` to a temp file and imports it through the whole front end.
Expected<Graph> ImportModel(const onnx::ModelProto& m, const std::string& tag,
                            const OnnxParseOptions& opts = {}) {
  const fs::path dir = TempDir(tag);
  std::ofstream(dir / "m.onnx", std::ios::binary) << Serialize(m);
  auto r = ImportOnnx((dir / "m.onnx").string(), opts);
  fs::remove_all(dir);
  return r;
}

TEST(Frontend, OldSoftmaxNormalisesOverTheFlattenedTail) {
  // Opset 11 Softmax(axis=1) on [2,3,4] normalises over 12 elements per batch row, not 3.
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    onnx::ModelProto m;
    AddOpset(m, 11);
    auto* g = m.mutable_graph();
    AddTensorInput(g, "x", {2, 3, 4});
    AddTensorInput(g, "y", {2, 3, 4}, {}, true);
    auto* n = AddNode(g, op, {"x"}, {"y"}, "sm");
    auto* a = n->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(1);
    auto r = ImportModel(m, "softmax");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    HostTensor x("x", DType::kF32, {2, 3, 4});
    for (int i = 0; i < 24; ++i) x.data<float>()[i] = 0.1f * static_cast<float>(i % 7) - 0.2f;
    auto session = Session::Create(std::make_shared<const Graph>(std::move(r).value()));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    auto out = (*session)->Run({x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].shape, (Shape{2, 3, 4}));
    for (int b = 0; b < 2; ++b) {
      double denom = 0;
      for (int i = 0; i < 12; ++i) denom += std::exp(x.data<float>()[b * 12 + i]);
      for (int i = 0; i < 12; ++i) {
        const double sm = std::exp(x.data<float>()[b * 12 + i]) / denom;
        const double want = std::string(op) == "Softmax" ? sm : std::log(sm);
        EXPECT_NEAR((*out)[0].data<float>()[b * 12 + i], want, 1e-5) << op << " " << b << "," << i;
      }
    }
  }
}

TEST(OnnxParser, AcceptsPreOpset7ModelWhoseOpsAreUnchanged) {
  onnx::ModelProto m;
  AddOpset(m, 6);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 3});
  AddTensorInput(g, "y", {2, 3}, {}, true);
  AddNode(g, "Elu", {"x"}, {"y"}, "elu");  // Elu-6 is still current at opset 17
  auto r = ParseOnnxBytes(Serialize(m), ".", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->node(0).op, OpType::kElu);
}

TEST(Frontend, ImportsOldBatchNormDropoutAndUpsample) {
  onnx::ModelProto m;
  AddOpset(m, 7);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {1, 2, 2, 2});
  AddTensorInput(g, "y", {1, 2, 4, 4}, {}, true);
  for (const char* name : {"scale", "bias", "mean", "var"}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(2);
    t->add_float_data(std::string(name) == "var" ? 1.f : 0.5f);
    t->add_float_data(std::string(name) == "var" ? 1.f : 0.5f);
  }
  auto* bn = AddNode(g, "BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"b"}, "bn");
  auto* sp = bn->add_attribute();
  sp->set_name("spatial");
  sp->set_type(onnx::AttributeProto::INT);
  sp->set_i(1);
  AddNode(g, "Dropout", {"b"}, {"d"}, "drop");
  auto* up = AddNode(g, "Upsample", {"d"}, {"y"}, "up");
  auto* sc = up->add_attribute();
  sc->set_name("scales");
  sc->set_type(onnx::AttributeProto::FLOATS);
  for (float f : {1.f, 1.f, 2.f, 2.f}) sc->add_floats(f);
  auto r = ImportModel(m, "oldops");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->value(r->outputs()[0]).shape, (Shape{1, 2, 4, 4}));
  for (const Node& n : r->nodes()) {
    EXPECT_FALSE(n.attrs.Has("spatial")) << n.name;
    // Upsample-7's scales attribute became a constant input (folded away with the node).
    EXPECT_FALSE(n.attrs.Has("scales")) << n.name;
  }
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// A frozen input is bound as a constant when it determines a shape through other ops (here
// Reshape's shape = shape_in + (Shape(x) - Shape(x))), not only when it feeds the shape directly;
// the data input x, read only through Shape, stays a runtime input.
TEST(OnnxParser, FreezesInputsThatDetermineAShapeTransitively) {
  onnx::ModelProto m;
  AddOpset(m, 13);
  auto* g = m.mutable_graph();
  AddTensorInput(g, "x", {2, 3});
  auto* s = g->add_input();
  s->set_name("shape_in");
  s->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  s->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  AddTensorInput(g, "y", {3, 2}, {}, true);
  AddNode(g, "Shape", {"x"}, {"xs"});
  AddNode(g, "Sub", {"xs", "xs"}, {"zero"});
  AddNode(g, "Add", {"shape_in", "zero"}, {"target"});
  AddNode(g, "Reshape", {"x", "target"}, {"y"});
  OnnxParseOptions options;
  HostTensor shape_in("shape_in", DType::kI64, {2});
  shape_in.data<int64_t>()[0] = 3;
  shape_in.data<int64_t>()[1] = 2;
  options.frozen_inputs.push_back(shape_in);
  const fs::path dir = TempDir("transitive");
  const std::string path = (dir / "model.onnx").string();
  std::ofstream(path, std::ios::binary) << Serialize(m);
  auto r = ImportOnnx(path, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->inputs().size(), 1u);
  EXPECT_EQ(r->value(r->inputs()[0]).name, "x");
  EXPECT_EQ(r->value(r->outputs()[0]).shape, (Shape{3, 2}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
