// Opset differences of the ops Kiln imports, each at the old and the new opset: the two forms
// import to the same computation (checked by running both), and a form used at the wrong opset
// is refused. Also the ops added for current exporters (LayerNormalization-17, Gelu-20).
#include "parsers/onnx/onnx_op_versions.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "compiler/frontend.h"
#include "runtime/session.h"

namespace kiln {
namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

// A one-node model: float graph input "x" of `shape`, initializers, one node, outputs y0..yN.
class OneOp {
 public:
  OneOp(const std::string& op, int64_t opset, Shape x_shape, int outputs = 1) {
    m_.set_ir_version(opset >= 21 ? 10 : 8);
    m_.add_opset_import()->set_version(opset);
    g_ = m_.mutable_graph();
    g_->set_name("g");
    auto* x = g_->add_input();
    x->set_name("x");
    auto* tt = x->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(TensorProto::FLOAT);
    for (int64_t d : x_shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
    n_ = g_->add_node();
    n_->set_op_type(op);
    n_->set_name(op);
    n_->add_input("x");
    for (int i = 0; i < outputs; ++i) {
      const std::string name = std::string("y").append(std::to_string(i));
      n_->add_output(name);
      auto* y = g_->add_output();
      y->set_name(name);
      y->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
    }
  }
  OneOp& Ints(const std::string& name, std::vector<int64_t> v) {
    auto* a = Attr(name, AttributeProto::INTS);
    for (int64_t i : v) a->add_ints(i);
    return *this;
  }
  OneOp& Floats(const std::string& name, std::vector<float> v) {
    auto* a = Attr(name, AttributeProto::FLOATS);
    for (float f : v) a->add_floats(f);
    return *this;
  }
  OneOp& Int(const std::string& name, int64_t v) {
    Attr(name, AttributeProto::INT)->set_i(v);
    return *this;
  }
  OneOp& Float(const std::string& name, float v) {
    Attr(name, AttributeProto::FLOAT)->set_f(v);
    return *this;
  }
  OneOp& Str(const std::string& name, const std::string& v) {
    Attr(name, AttributeProto::STRING)->set_s(v);
    return *this;
  }
  // An i64 (or f32) initializer as the next node input; "" for an omitted input.
  OneOp& InputInts(std::vector<int64_t> v) { return Init(TensorProto::INT64, v, {}); }
  OneOp& InputFloats(std::vector<float> v) { return Init(TensorProto::FLOAT, {}, v); }
  OneOp& Skip() {
    n_->add_input("");
    return *this;
  }

  Expected<std::vector<HostTensor>> Run(const std::vector<float>& x_values) const {
    std::string bytes;
    m_.SerializeToString(&bytes);
    KILN_ASSIGN_OR_RETURN(Graph g, ImportOnnxBytes(bytes, ".", {}));
    const Value& x = g.value(g.inputs()[0]);
    HostTensor in("x", DType::kF32, x.shape);
    if (x_values.size() != static_cast<size_t>(NumElements(x.shape))) {
      return InvalidArgument("test input has the wrong size");
    }
    std::copy(x_values.begin(), x_values.end(), in.data<float>());
    KILN_ASSIGN_OR_RETURN(auto session,
                          Session::Create(std::make_shared<const Graph>(std::move(g))));
    return session->Run({in});
  }

 private:
  AttributeProto* Attr(const std::string& name, AttributeProto::AttributeType type) {
    auto* a = n_->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  }
  OneOp& Init(int32_t type, const std::vector<int64_t>& ints, const std::vector<float>& floats) {
    const std::string name = "c" + std::to_string(g_->initializer_size());
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    t->add_dims(static_cast<int64_t>(type == TensorProto::INT64 ? ints.size() : floats.size()));
    for (int64_t i : ints) t->add_int64_data(i);
    for (float f : floats) t->add_float_data(f);
    n_->add_input(name);
    return *this;
  }

  onnx::ModelProto m_;
  onnx::GraphProto* g_ = nullptr;
  onnx::NodeProto* n_ = nullptr;
};

std::vector<float> Values(const HostTensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

// Runs both, expects success and identical outputs (shape and values).
void ExpectSame(const OneOp& old_form, const OneOp& new_form, const std::vector<float>& x) {
  auto a = old_form.Run(x);
  auto b = new_form.Run(x);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].shape, (*b)[i].shape) << "output " << i;
    EXPECT_EQ(Values((*a)[i]), Values((*b)[i])) << "output " << i;
  }
}

void ExpectRefused(const OneOp& op, const std::string& needle, const std::vector<float>& x) {
  auto r = op.Run(x);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().ToString();
}

const std::vector<float> k6 = {1, -2, 3, -4, 5, -6};

TEST(OnnxOpVersions, ReduceAxesAttributeThenInputAt18) {
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"}) {
    ExpectSame(OneOp(op, 13, {2, 3}).Ints("axes", {1}), OneOp(op, 18, {2, 3}).InputInts({1}), k6);
    ExpectRefused(OneOp(op, 13, {2, 3}).InputInts({1}), "needs opset 18", k6);
    ExpectRefused(OneOp(op, 18, {2, 3}).Ints("axes", {1}), "removed at opset 18", k6);
  }
  ExpectSame(OneOp("ReduceSum", 11, {2, 3}).Ints("axes", {0}),
             OneOp("ReduceSum", 13, {2, 3}).InputInts({0}), k6);
  // Opset 18: an empty axes list with noop_with_empty_axes=1 reduces nothing.
  auto noop = OneOp("ReduceMean", 18, {2, 3}).InputInts({}).Int("noop_with_empty_axes", 1).Run(k6);
  ASSERT_TRUE(noop.ok()) << noop.status().ToString();
  EXPECT_EQ(Values((*noop)[0]), k6);
}

TEST(OnnxOpVersions, SplitAttributeInputAndNumOutputs) {
  ExpectSame(OneOp("Split", 11, {6}, 2).Ints("split", {2, 4}),
             OneOp("Split", 13, {6}, 2).InputInts({2, 4}), k6);
  // Split-18 num_outputs: ceil(5 / 3) = 2 per output, the last one smaller.
  auto r = OneOp("Split", 18, {5}, 3).Int("num_outputs", 3).Run({1, 2, 3, 4, 5});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values((*r)[1]), (std::vector<float>{3, 4}));
  EXPECT_EQ(Values((*r)[2]), (std::vector<float>{5}));
  ExpectRefused(OneOp("Split", 13, {6}, 2).Int("num_outputs", 2), "num_outputs needs opset 18", k6);
  ExpectRefused(OneOp("Split", 18, {6}, 2).Int("num_outputs", 3), "differs from the node's 2", k6);
}

TEST(OnnxOpVersions, PadAttributesInputsAxesAndWrap) {
  ExpectSame(OneOp("Pad", 2, {2, 3}).Ints("pads", {0, 1, 1, 0}).Float("value", 7.f),
             OneOp("Pad", 11, {2, 3}).InputInts({0, 1, 1, 0}).InputFloats({7.f}), k6);
  // Pad-18 axes: only axis 1 padded.
  ExpectSame(OneOp("Pad", 13, {2, 3}).InputInts({0, 2, 0, 1}),
             OneOp("Pad", 18, {2, 3}).InputInts({2, 1}).Skip().InputInts({1}), k6);
  ExpectRefused(OneOp("Pad", 13, {2, 3}).InputInts({2, 1}).Skip().InputInts({1}),
                "axes input needs opset 18", k6);
  auto wrap = OneOp("Pad", 19, {2, 3}).Str("mode", "wrap").InputInts({0, 1, 0, 1}).Run(k6);
  ASSERT_TRUE(wrap.ok()) << wrap.status().ToString();
  EXPECT_EQ(Values((*wrap)[0]), (std::vector<float>{3, 1, -2, 3, 1, -6, -4, 5, -6, -4}));
  ExpectRefused(OneOp("Pad", 18, {2, 3}).Str("mode", "wrap").InputInts({0, 1, 0, 1}),
                "'wrap' needs opset 19", k6);
}

TEST(OnnxOpVersions, SqueezeUnsqueezeSliceClipForms) {
  ExpectSame(OneOp("Unsqueeze", 11, {2, 3}).Ints("axes", {0, 3}),
             OneOp("Unsqueeze", 13, {2, 3}).InputInts({0, 3}), k6);
  ExpectSame(OneOp("Squeeze", 11, {1, 6}).Ints("axes", {0}),
             OneOp("Squeeze", 13, {1, 6}).InputInts({0}), k6);
  ExpectRefused(OneOp("Squeeze", 13, {1, 6}).Ints("axes", {0}), "removed at opset 13", k6);
  ExpectSame(OneOp("Slice", 9, {2, 3}).Ints("starts", {1}).Ints("ends", {3}).Ints("axes", {1}),
             OneOp("Slice", 10, {2, 3}).InputInts({1}).InputInts({3}).InputInts({1}), k6);
  ExpectSame(OneOp("Clip", 6, {2, 3}).Float("min", -3.f).Float("max", 2.f),
             OneOp("Clip", 11, {2, 3}).InputFloats({-3.f}).InputFloats({2.f}), k6);
  ExpectRefused(OneOp("Clip", 11, {2, 3}).Float("min", -3.f), "inputs since opset 11", k6);
}

TEST(OnnxOpVersions, SoftmaxBefore13FlattensTheTail) {
  // Same result on a rank-2 input (axis 1 is the last axis either way) ...
  ExpectSame(OneOp("Softmax", 11, {2, 3}), OneOp("Softmax", 13, {2, 3}).Int("axis", 1), k6);
  // ... different on rank 3 with axis 1: opset 11 normalises over 6 elements, 13 over 2.
  auto old_sm = OneOp("Softmax", 11, {1, 2, 3}).Int("axis", 1).Run(k6);
  auto new_sm = OneOp("Softmax", 13, {1, 2, 3}).Int("axis", 1).Run(k6);
  ASSERT_TRUE(old_sm.ok() && new_sm.ok());
  float old_sum = 0, new_sum = 0;
  for (float v : Values((*old_sm)[0])) old_sum += v;
  for (float v : Values((*new_sm)[0])) new_sum += v;
  EXPECT_NEAR(old_sum, 1.f, 1e-5);
  EXPECT_NEAR(new_sum, 3.f, 1e-5);
}

TEST(OnnxOpVersions, UpsampleResize10AndResize18Axes) {
  const std::vector<float> x4 = {1, 2, 3, 4};
  ExpectSame(OneOp("Upsample", 7, {1, 1, 2, 2}).Floats("scales", {1, 1, 2, 2}),
             OneOp("Upsample", 9, {1, 1, 2, 2}).InputFloats({1, 1, 2, 2}), x4);
  // Resize-10 is Upsample's mapping (asymmetric, floor).
  ExpectSame(OneOp("Upsample", 9, {1, 1, 2, 2}).InputFloats({1, 1, 2, 2}),
             OneOp("Resize", 10, {1, 1, 2, 2}).InputFloats({1, 1, 2, 2}), x4);
  // Resize-18 axes: scales for axes 2, 3 only.
  ExpectSame(OneOp("Resize", 13, {1, 1, 2, 2}).Skip().InputFloats({1, 1, 2, 3}),
             OneOp("Resize", 18, {1, 1, 2, 2}).Skip().InputFloats({2, 3}).Ints("axes", {2, 3}), x4);
  ExpectRefused(OneOp("Resize", 13, {1, 1, 2, 2}).Skip().InputFloats({2, 3}).Ints("axes", {2, 3}),
                "need opset 18", x4);
  ExpectRefused(
      OneOp("Resize", 13, {1, 1, 2, 2}).Skip().InputFloats({1, 1, 2, 2}).Int("antialias", 1),
      "need opset 18", x4);
}

TEST(OnnxOpVersions, ResizeKeepAspectRatioPolicy) {
  // sizes [3, 6] on a 2x2 input: not_larger scales both axes by min(3/2, 6/2) = 1.5 -> 3x3,
  // not_smaller by 3 -> 6x6.
  for (const auto& [policy, extent] :
       std::vector<std::pair<std::string, int64_t>>{{"not_larger", 3}, {"not_smaller", 6}}) {
    auto r = OneOp("Resize", 18, {1, 1, 2, 2})
                 .Skip()
                 .Skip()
                 .InputInts({3, 6})
                 .Ints("axes", {2, 3})
                 .Str("keep_aspect_ratio_policy", policy)
                 .Run({1, 2, 3, 4});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, (Shape{1, 1, extent, extent})) << policy;
  }
}

TEST(OnnxOpVersions, DropoutAndQuantizeForms) {
  ExpectSame(OneOp("Dropout", 7, {2, 3}).Float("ratio", 0.3f), OneOp("Dropout", 12, {2, 3}), k6);
  // QuantizeLinear-21 output_dtype INT8 without a zero point quantizes to int8.
  OneOp q("QuantizeLinear", 21, {2, 3});
  q.InputFloats({0.5f}).Int("output_dtype", TensorProto::INT8);
  auto r = q.Run(k6);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].dtype, DType::kI8);
  EXPECT_EQ((*r)[0].data<int8_t>()[1], -4);
  ExpectRefused(OneOp("QuantizeLinear", 21, {2, 3}).InputFloats({0.5f}).Int("block_size", 2),
                "block-wise quantization", k6);
}

TEST(OnnxOpVersions, LayerNormalizationAndGelu) {
  OneOp ln("LayerNormalization", 17, {2, 3});
  ln.InputFloats({1, 2, 0.5f}).InputFloats({0, 1, 0}).Float("epsilon", 0.f);
  auto r = ln.Run(k6);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int row = 0; row < 2; ++row) {
    double mean = 0, var = 0;
    for (int i = 0; i < 3; ++i) mean += k6[row * 3 + i] / 3.0;
    for (int i = 0; i < 3; ++i) var += (k6[row * 3 + i] - mean) * (k6[row * 3 + i] - mean) / 3.0;
    const float scale[3] = {1, 2, 0.5f}, bias[3] = {0, 1, 0};
    for (int i = 0; i < 3; ++i) {
      const double want = (k6[row * 3 + i] - mean) / std::sqrt(var) * scale[i] + bias[i];
      EXPECT_NEAR((*r)[0].data<float>()[row * 3 + i], want, 1e-5);
    }
  }
  for (const char* approx : {"none", "tanh"}) {
    auto g = OneOp("Gelu", 20, {2, 3}).Str("approximate", approx).Run(k6);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    for (int i = 0; i < 6; ++i) {
      const double x = k6[i];
      const double want =
          std::string(approx) == "none"
              ? 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))
              : 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      EXPECT_NEAR((*g)[0].data<float>()[i], want, 1e-5) << approx << " " << x;
    }
  }
}

TEST(OnnxOpVersions, CurrentOpsetsAndIr10Import) {
  for (int64_t opset : {18, 19, 20, 21, 22, 23}) {
    auto r = OneOp("Relu", opset, {2, 3}).Run(k6);
    ASSERT_TRUE(r.ok()) << opset << ": " << r.status().ToString();
    EXPECT_EQ(Values((*r)[0]), (std::vector<float>{1, 0, 3, 0, 5, 0}));
  }
}

TEST(OnnxOpVersions, OpsOfIssue39AtAndBeforeTheirFirstOpset) {
  // GreaterOrEqual-12 and LessOrEqual-12 against a constant; IsNaN-9; IsInf-10.
  auto ge = OneOp("GreaterOrEqual", 12, {2, 3}).InputFloats({1.f}).Run(k6);
  ASSERT_TRUE(ge.ok()) << ge.status().ToString();
  const HostTensor& t = (*ge)[0];
  EXPECT_EQ(std::vector<uint8_t>(t.bytes.begin(), t.bytes.end()),
            (std::vector<uint8_t>{1, 0, 1, 0, 1, 0}));
  ExpectRefused(OneOp("GreaterOrEqual", 11, {2, 3}).InputFloats({1.f}), "needs opset 12", k6);
  ExpectRefused(OneOp("LessOrEqual", 11, {2, 3}).InputFloats({1.f}), "needs opset 12", k6);
  ExpectRefused(OneOp("IsNaN", 8, {2, 3}), "needs opset 9", k6);
  ExpectRefused(OneOp("IsInf", 9, {2, 3}), "needs opset 10", k6);
  auto inf = OneOp("IsInf", 10, {2, 3}).Int("detect_negative", 0).Run(k6);
  ASSERT_TRUE(inf.ok()) << inf.status().ToString();
  // GatherND-11 has no batch_dims; GatherND-12 does.
  ExpectRefused(OneOp("GatherND", 11, {2, 3}).InputInts({1}).Int("batch_dims", 0),
                "batch_dims needs opset 12", k6);
  auto nd = OneOp("GatherND", 12, {2, 3}).InputInts({1}).Int("batch_dims", 0).Run(k6);
  ASSERT_TRUE(nd.ok()) << nd.status().ToString();
  EXPECT_EQ(Values((*nd)[0]), (std::vector<float>{-4, 5, -6}));
}

TEST(OnnxOpVersions, ScatterReductionsTriluCumSumModOpsets) {
  // reduction: add/mul need opset 16, max/min 18.
  ExpectRefused(
      OneOp("ScatterElements", 15, {6}).InputInts({0}).InputFloats({9}).Str("reduction", "add"),
      "reduction needs opset 16", k6);
  ExpectRefused(OneOp("ScatterND", 16, {6}).InputInts({0}).InputFloats({9}).Str("reduction", "max"),
                "reduction 'max' needs opset 18", k6);
  auto max = OneOp("ScatterElements", 18, {6})
                 .InputInts({-1})
                 .InputFloats({9})
                 .Str("reduction", "max")
                 .Run(k6);
  ASSERT_TRUE(max.ok()) << max.status().ToString();
  EXPECT_EQ(Values((*max)[0]), (std::vector<float>{1, -2, 3, -4, 5, 9}));
  ExpectRefused(OneOp("Trilu", 13, {2, 3}), "needs opset 14", k6);
  auto upper = OneOp("Trilu", 14, {2, 3}).Run(k6);
  ASSERT_TRUE(upper.ok()) << upper.status().ToString();
  EXPECT_EQ(Values((*upper)[0]), (std::vector<float>{1, -2, 3, 0, 5, -6}));
  ExpectRefused(OneOp("CumSum", 10, {6}).InputInts({0}), "needs opset 11", k6);
  auto sums = OneOp("CumSum", 11, {6}).InputInts({0}).Run(k6);
  ASSERT_TRUE(sums.ok()) << sums.status().ToString();
  EXPECT_EQ(Values((*sums)[0]), (std::vector<float>{1, -1, 2, -2, 3, -3}));
  ExpectRefused(OneOp("Mod", 9, {6}).InputFloats({4}).Int("fmod", 1), "needs opset 10", k6);
  ExpectRefused(OneOp("Mod", 13, {6}).InputFloats({4}), "fmod must be 1", k6);
}

}  // namespace
}  // namespace kiln
