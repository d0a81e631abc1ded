// QOperator nodes -> DequantizeLinear / float op / QuantizeLinear nodes (proto level).
#include "parsers/onnx/onnx_quantized_import.h"

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "parsers/onnx/tensor_proto.h"

namespace kiln {
namespace {

bool IsDefault(const std::string& d) { return d.empty() || d == "ai.onnx"; }

const std::set<std::string> kDefaultOps = {"QLinearConv", "QLinearMatMul", "ConvInteger",
                                           "MatMulInteger"};
const std::set<std::string> kMicrosoftOps = {
    "QLinearAdd",      "QLinearMul",     "QLinearConcat",     "QLinearGlobalAveragePool",
    "QLinearAveragePool", "QLinearSigmoid", "QLinearLeakyRelu"};

// Builds the replacement nodes of one QOperator node.
class Expander {
 public:
  Expander(onnx::GraphProto& g, const onnx::NodeProto& n, int index, const std::string& base_dir)
      : g_(g), n_(n), base_(n.name().empty() ? n.op_type() + "_q" + std::to_string(index) : n.name()),
        base_dir_(base_dir) {
    for (const auto& t : g.initializer()) inits_[t.name()] = &t;
  }

  std::vector<onnx::NodeProto> out;

  std::string In(int i) const { return i < n_.input_size() ? n_.input(i) : std::string(); }

  // A fresh value name.
  std::string Fresh(const std::string& what) { return base_ + "/kiln_" + what + std::to_string(counter_++); }

  // Number of elements of an initializer (-1 when it is not one).
  int64_t InitElements(const std::string& name) const {
    auto it = inits_.find(name);
    if (it == inits_.end()) return -1;
    int64_t n = 1;
    for (int64_t d : it->second->dims()) n *= d;
    return n;
  }

  onnx::NodeProto& Add(const std::string& op, std::vector<std::string> ins,
                       std::vector<std::string> outs) {
    onnx::NodeProto p;
    p.set_op_type(op);
    p.set_name(base_ + "/" + op + std::to_string(out.size()));
    for (auto& s : ins) p.add_input(s);
    for (auto& s : outs) p.add_output(s);
    out.push_back(std::move(p));
    return out.back();
  }

  // The node doing the original node's computation: it keeps the ONNX node's name, so
  // provenance, --keep-float and reports name the node as the model does.
  onnx::NodeProto& Main(const std::string& op, std::vector<std::string> ins,
                        std::vector<std::string> outs) {
    onnx::NodeProto& p = Add(op, std::move(ins), std::move(outs));
    p.set_name(base_);
    return p;
  }

  // DequantizeLinear(x, scale, zero point) -> new float value; per-axis along `axis` when the
  // scale has several elements.
  std::string Dq(const std::string& x, const std::string& scale, const std::string& zp, int64_t axis) {
    const std::string y = Fresh("dq");
    std::vector<std::string> ins = {x, scale};
    if (!zp.empty()) ins.push_back(zp);
    onnx::NodeProto& p = Add("DequantizeLinear", ins, {y});
    if (InitElements(scale) > 1) {
      auto* a = p.add_attribute();
      a->set_name("axis");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(axis);
    }
    return y;
  }

  void Q(const std::string& x, const std::string& scale, const std::string& zp, const std::string& y) {
    std::vector<std::string> ins = {x, scale};
    if (!zp.empty()) ins.push_back(zp);
    Add("QuantizeLinear", ins, {y});
  }

  // A float initializer holding the products a[i] * b[i] (one of them may be a scalar): the
  // scale of an int32 bias, x_scale * w_scale.
  Expected<std::string> ScaleProduct(const std::string& a, const std::string& b) {
    auto ia = inits_.find(a), ib = inits_.find(b);
    if (ia == inits_.end() || ib == inits_.end()) {
      return Unsupported("node '" + base_ + "': its scales must be initializers");
    }
    KILN_ASSIGN_OR_RETURN(HostTensor ta, TensorProtoToHostTensor(*ia->second, base_dir_));
    KILN_ASSIGN_OR_RETURN(HostTensor tb, TensorProtoToHostTensor(*ib->second, base_dir_));
    if (ta.dtype != DType::kF32 || tb.dtype != DType::kF32) {
      return Unsupported("node '" + base_ + "': scales must be float32");
    }
    const int64_t na = ta.num_elements(), nb = tb.num_elements();
    const int64_t n = std::max(na, nb);
    if (n == 0 || (na != 1 && na != n) || (nb != 1 && nb != n)) {
      return InvalidArgument("node '" + base_ + "': scales of " + std::to_string(na) + " and " +
                             std::to_string(nb) + " elements do not combine");
    }
    onnx::TensorProto* t = g_.add_initializer();
    t->set_name(Fresh("bias_scale"));
    t->set_data_type(onnx::TensorProto::FLOAT);
    if (n > 1) t->add_dims(n);
    for (int64_t i = 0; i < n; ++i) {
      t->add_float_data(ta.data<float>()[na == 1 ? 0 : i] * tb.data<float>()[nb == 1 ? 0 : i]);
    }
    inits_[t->name()] = t;
    return t->name();
  }

  // A float scalar initializer.
  std::string Scalar(float v) {
    onnx::TensorProto* t = g_.add_initializer();
    t->set_name(Fresh("one"));
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
    inits_[t->name()] = t;
    return t->name();
  }

  void CopyAttributes(onnx::NodeProto& to, const std::set<std::string>& skip = {}) const {
    for (const auto& a : n_.attribute()) {
      if (!skip.count(a.name())) *to.add_attribute() = a;
    }
  }

 private:
  onnx::GraphProto& g_;
  const onnx::NodeProto& n_;
  std::string base_;
  std::string base_dir_;  // for scales stored as external data
  int counter_ = 0;
  std::map<std::string, const onnx::TensorProto*> inits_;
};

Status Expand(Expander& e, const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  auto need = [&](int count) -> Status {
    if (n.input_size() < count) {
      return InvalidArgument("node '" + n.name() + "' (" + op + ") needs " + std::to_string(count) +
                             " inputs, has " + std::to_string(n.input_size()));
    }
    return Status::Ok();
  };
  if (n.output_size() < 1) return InvalidArgument("node '" + n.name() + "' has no output");
  const std::string y = n.output(0);
  if (op == "QLinearConv") {
    KILN_RETURN_IF_ERROR(need(8));
    const std::string x = e.Dq(e.In(0), e.In(1), e.In(2), 1);
    const std::string w = e.Dq(e.In(3), e.In(4), e.In(5), 0);
    std::vector<std::string> ins = {x, w};
    if (!e.In(8).empty()) {
      KILN_ASSIGN_OR_RETURN(std::string bs, e.ScaleProduct(e.In(1), e.In(4)));
      ins.push_back(e.Dq(e.In(8), bs, "", 0));
    }
    const std::string f = e.Fresh("conv");
    e.CopyAttributes(e.Main("Conv", ins, {f}));
    e.Q(f, e.In(6), e.In(7), y);
  } else if (op == "QLinearMatMul") {
    KILN_RETURN_IF_ERROR(need(8));
    const std::string a = e.Dq(e.In(0), e.In(1), e.In(2), 1);
    const std::string b = e.Dq(e.In(3), e.In(4), e.In(5), 1);  // per column of B [K, N]
    const std::string f = e.Fresh("matmul");
    e.Main("MatMul", {a, b}, {f});
    e.Q(f, e.In(6), e.In(7), y);
  } else if (op == "ConvInteger" || op == "MatMulInteger") {
    // int32 = sum (x - xz)(w - wz): DQ with scale 1, the float op, Cast to int32 (lower-qdq
    // lowers the pattern to the integer op's exact int32 accumulator).
    KILN_RETURN_IF_ERROR(need(2));
    const bool conv = op == "ConvInteger";
    if (e.InitElements(e.In(3)) > 1) {
      return Unsupported("node '" + n.name() + "' (" + op + "): per-channel zero points");
    }
    const std::string one = e.Scalar(1.f);
    const std::string x = e.Dq(e.In(0), one, e.In(2), 1);
    const std::string w = e.Dq(e.In(1), one, e.In(3), 0);
    const std::string f = e.Fresh(conv ? "conv" : "matmul");
    onnx::NodeProto& p = e.Main(conv ? "Conv" : "MatMul", {x, w}, {f});
    if (conv) e.CopyAttributes(p);
    onnx::NodeProto& c = e.Add("Cast", {f}, {y});
    auto* to = c.add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::INT32);
  } else if (op == "QLinearAdd" || op == "QLinearMul") {
    KILN_RETURN_IF_ERROR(need(7));
    const std::string a = e.Dq(e.In(0), e.In(1), e.In(2), 1);
    const std::string b = e.Dq(e.In(3), e.In(4), e.In(5), 1);
    const std::string f = e.Fresh("sum");
    e.Main(op == "QLinearAdd" ? "Add" : "Mul", {a, b}, {f});
    e.Q(f, e.In(6), e.In(7), y);
  } else if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu") {
    KILN_RETURN_IF_ERROR(need(4));
    const std::string x = e.Dq(e.In(0), e.In(1), e.In(2), 1);
    const std::string f = e.Fresh("act");
    e.CopyAttributes(e.Main(op == "QLinearSigmoid" ? "Sigmoid" : "LeakyRelu", {x}, {f}));
    e.Q(f, e.In(3), e.In(4), y);
  } else if (op == "QLinearGlobalAveragePool" || op == "QLinearAveragePool") {
    KILN_RETURN_IF_ERROR(need(4));
    for (const auto& a : n.attribute()) {
      if (a.name() == "channels_last" && a.i() != 0) {
        return Unsupported("node '" + n.name() + "' (" + op + "): channels_last");
      }
    }
    const std::string x = e.Dq(e.In(0), e.In(1), e.In(2), 1);
    const std::string f = e.Fresh("pool");
    const bool global = op == "QLinearGlobalAveragePool";
    e.CopyAttributes(e.Main(global ? "GlobalAveragePool" : "AveragePool", {x}, {f}),
                     {"channels_last"});
    e.Q(f, e.In(3), e.In(4), y);
  } else if (op == "QLinearConcat") {
    // (y_scale, y_zero_point, then (x, x_scale, x_zero_point) per input).
    KILN_RETURN_IF_ERROR(need(5));
    if ((n.input_size() - 2) % 3 != 0) {
      return InvalidArgument("node '" + n.name() + "' (QLinearConcat): inputs must come in triples");
    }
    std::vector<std::string> xs;
    for (int i = 2; i + 2 < n.input_size(); i += 3) xs.push_back(e.Dq(e.In(i), e.In(i + 1), e.In(i + 2), 1));
    const std::string f = e.Fresh("concat");
    e.CopyAttributes(e.Main("Concat", xs, {f}));
    e.Q(f, e.In(0), e.In(1), y);
  } else {
    return Unsupported("node '" + n.name() + "': " + op + " is not a supported QOperator op");
  }
  return Status::Ok();
}

}  // namespace

bool IsQuantizedOnnxOp(const std::string& domain, const std::string& op_type) {
  if (IsDefault(domain)) return kDefaultOps.count(op_type) > 0;
  return domain == "com.microsoft" && kMicrosoftOps.count(op_type) > 0;
}

Status ExpandQOperatorNodes(onnx::ModelProto& model, const std::string& base_dir) {
  onnx::GraphProto& g = *model.mutable_graph();
  bool any = false;
  for (const auto& n : g.node()) any |= IsQuantizedOnnxOp(n.domain(), n.op_type());
  if (!any) return Status::Ok();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g.mutable_node());
  int index = 0;
  for (const auto& n : nodes) {
    if (!IsQuantizedOnnxOp(n.domain(), n.op_type())) {
      *g.add_node() = n;
      ++index;
      continue;
    }
    Expander e(g, n, index++, base_dir);
    KILN_RETURN_IF_ERROR(Expand(e, n));
    for (auto& p : e.out) *g.add_node() = std::move(p);
  }
  return Status::Ok();
}

}  // namespace kiln
