// Tests for ValidateOnnxStructure and its place in the importer: malformed graphs are refused
// with a clear error before anything else reads them (the test_gather_0 crash of issue 11).
#include "parsers/onnx/onnx_structure.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/frontend.h"
#include "parsers/onnx/onnx_parser.h"

namespace kiln {
namespace {

onnx::ValueInfoProto* Tensor(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                             const std::string& name, std::vector<int64_t> dims,
                             int32_t type = onnx::TensorProto::FLOAT) {
  auto* vi = list->Add();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  return vi;
}

// x[2] -> Relu -> y, at opset 13, IR 8.
onnx::ModelProto Relu() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* imp = m.add_opset_import();
  imp->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("relu");
  Tensor(g->mutable_input(), "x", {2});
  Tensor(g->mutable_output(), "y", {2});
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  return m;
}

std::string Message(const onnx::ModelProto& m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  auto g = ImportOnnxBytes(bytes, ".", {});
  return g.ok() ? "" : g.status().ToString();
}

void ExpectRefused(const onnx::ModelProto& m, const std::string& needle) {
  const std::string msg = Message(m);
  EXPECT_NE(msg.find(needle), std::string::npos) << "got: '" << msg << "'";
}

TEST(OnnxStructure, AcceptsAWellFormedModel) { EXPECT_EQ(Message(Relu()), ""); }

TEST(OnnxStructure, GraphOutputNotProduced) {
  onnx::ModelProto m = Relu();
  m.mutable_graph()->mutable_output(0)->set_name("G");
  ExpectRefused(m, "graph output 'G' is not produced");
}

// The crash of issue 11: ONNX's own test_gather_0 with its output `y` renamed to `G` used to
// pass the onnx checker and segfault in onnx::graphProtoToGraph (the version converter).
TEST(OnnxStructure, Gather0WithRenamedOutputIsRefusedNotACrash) {
  const std::string path = "/usr/share/libonnx-testdata/data/node/test_gather_0/model.onnx";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << path << " not installed (libonnx-testdata)";
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromIstream(&in));
  ASSERT_EQ(m.graph().output(0).name(), "y");
  m.mutable_graph()->mutable_output(0)->set_name("G");
  ExpectRefused(m, "graph output 'G' is not produced by any node");
}

TEST(OnnxStructure, UndefinedNodeInput) {
  onnx::ModelProto m = Relu();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nope");
  ExpectRefused(m, "input 'nope' is not defined");
}

TEST(OnnxStructure, ValueDefinedTwice) {
  onnx::ModelProto m = Relu();
  *m.mutable_graph()->add_node() = m.graph().node(0);
  ExpectRefused(m, "output 'y' is already defined (by another node)");
  onnx::ModelProto shadow = Relu();
  shadow.mutable_graph()->mutable_node(0)->set_output(0, "x");
  shadow.mutable_graph()->mutable_output(0)->set_name("x");
  ExpectRefused(shadow, "output 'x' is already defined (by a graph input)");
}

TEST(OnnxStructure, DuplicateNames) {
  onnx::ModelProto in = Relu();
  Tensor(in.mutable_graph()->mutable_input(), "x", {2});
  ExpectRefused(in, "graph input 'x' is listed twice");
  onnx::ModelProto out = Relu();
  Tensor(out.mutable_graph()->mutable_output(), "y", {2});
  ExpectRefused(out, "graph output 'y' is listed twice");
  onnx::ModelProto attrs = Relu();
  auto* n = attrs.mutable_graph()->mutable_node(0);
  n->set_op_type("LeakyRelu");
  for (int i = 0; i < 2; ++i) {
    auto* a = n->add_attribute();
    a->set_name("alpha");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(0.1f);
  }
  ExpectRefused(attrs, "attribute 'alpha' is given twice");
}

TEST(OnnxStructure, InitializerFaults) {
  onnx::ModelProto m = Relu();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_op_type("Add");
  g->mutable_node(0)->add_input("w");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_float_data(1.f);  // one element for dims [2]
  ExpectRefused(m, "initializer 'w' (FLOAT) declares 2 elements but holds 1");
  w->add_float_data(2.f);
  EXPECT_EQ(Message(m), "");
  w->clear_float_data();
  w->set_raw_data(std::string(7, '\0'));
  ExpectRefused(m, "holds 7 bytes of raw data, expected 8");
  w->set_raw_data(std::string(8, '\0'));
  *g->add_initializer() = *w;
  ExpectRefused(m, "initializer 'w' is defined twice");
  g->mutable_initializer()->RemoveLast();
  w->set_dims(0, -3);
  ExpectRefused(m, "negative dimension -3");
}

TEST(OnnxStructure, IrVersions) {
  onnx::ModelProto m = Relu();
  m.set_ir_version(12);
  ExpectRefused(m, "model IR version 12 is newer than Kiln imports (1..11)");
  m.set_ir_version(0);
  ExpectRefused(m, "has no ir_version");
}

}  // namespace
}  // namespace kiln
