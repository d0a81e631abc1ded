// Graph text dump.
#include "ir/text_dump.h"

#include <sstream>

namespace kiln {
namespace {

std::string TypeText(const Value& v) {
  std::string s = std::string(DTypeName(v.dtype)) + (v.shape_known ? ShapeToString(v.shape) : "[?]");
  if (v.layout != Layout::kPlain) s += " layout=" + std::string(LayoutName(v.layout));
  if (!v.quant.empty()) {
    s += " quant(scale=" + std::to_string(v.quant.scales[0]);
    if (!v.quant.zero_points.empty()) s += ",zp=" + std::to_string(v.quant.zero_points[0]);
    if (v.quant.per_axis()) s += ",axis=" + std::to_string(v.quant.axis);
    s += ")";
  }
  return s;
}

template <typename T>
std::string ListText(const std::vector<T>& xs) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < xs.size(); ++i) os << (i ? "," : "") << xs[i];
  os << "]";
  return os.str();
}

std::string AttrText(const AttrValue& a) {
  struct Visitor {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(float v) const {
      std::ostringstream os;
      os << v;
      return os.str();
    }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(const std::vector<int64_t>& v) const { return ListText(v); }
    std::string operator()(const std::vector<float>& v) const { return ListText(v); }
    std::string operator()(const std::vector<std::string>& v) const { return ListText(v); }
    std::string operator()(const TensorAttr& t) const {
      return "tensor<" + std::string(DTypeName(t.dtype)) + ShapeToString(t.shape) + ">";
    }
  };
  return std::visit(Visitor{}, a);
}

}  // namespace

std::string GraphToText(const Graph& g) {
  std::ostringstream os;
  os << "graph " << (g.name.empty() ? "main" : g.name) << "(";
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Value& v = g.value(g.inputs()[i]);
    os << (i ? ", " : "") << "%" << v.name << ": " << TypeText(v);
  }
  os << ") -> (";
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const Value& v = g.value(g.outputs()[i]);
    os << (i ? ", " : "") << "%" << v.name << ": " << TypeText(v);
  }
  os << ")\n";
  for (const Value& v : g.values()) {
    if (v.is_constant()) {
      os << "  const %" << v.name << ": " << TypeText(v) << " (" << v.constant->size()
         << " bytes)\n";
    }
  }
  for (const Node& n : g.nodes()) {
    os << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      os << (i ? ", " : "");
      if (n.outputs[i] == kNoValue) {
        os << "_";
      } else {
        os << "%" << g.value(n.outputs[i]).name;
      }
    }
    os << " = " << OpTypeName(n.op) << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      os << (i ? ", " : "");
      if (n.inputs[i] == kNoValue) {
        os << "_";
      } else {
        os << "%" << g.value(n.inputs[i]).name;
      }
    }
    os << ")";
    if (n.attrs.size()) {
      os << " {";
      bool first = true;
      for (const auto& [name, value] : n.attrs.all()) {
        os << (first ? "" : ", ") << name << "=" << AttrText(value);
        first = false;
      }
      os << "}";
    }
    if (!n.placement.empty()) os << " @" << n.placement;
    os << " :";
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] != kNoValue) os << " " << TypeText(g.value(n.outputs[i]));
    }
    os << "  # " << n.name;
    if (!(n.sources.size() == 1 && n.sources[0] == n.name)) {
      os << " <-";
      for (size_t i = 0; i < n.sources.size(); ++i) os << (i ? ", " : " ") << n.sources[i];
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace kiln
