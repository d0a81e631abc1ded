// UpgradeNode / UpgradeTypedForms: ONNX opset differences of the ops Kiln imports.
#include "parsers/onnx/onnx_op_versions.h"

#include <cstring>
#include <limits>
#include <string>

#include "ir/op_schema.h"

namespace kiln {
namespace {

std::string Where(const Node& n) {
  return "node '" + n.name + "' (" + std::string(OpTypeName(n.op)) + "-" + std::to_string(n.opset) +
         ")";
}

std::string UniqueName(const Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 1; g.FindValue(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

ValueId AddInts(Graph& g, const std::string& base, const std::vector<int64_t>& v) {
  return g.AddConstant(UniqueName(g, base), DType::kI64, {static_cast<int64_t>(v.size())},
                       ConstantBytes::Copy(v.data(), v.size() * sizeof(int64_t)));
}

ValueId AddFloats(Graph& g, const std::string& base, const std::vector<float>& v) {
  return g.AddConstant(UniqueName(g, base), DType::kF32, {static_cast<int64_t>(v.size())},
                       ConstantBytes::Copy(v.data(), v.size() * sizeof(float)));
}

// A scalar of `dtype` (f32 or f16) holding `value`.
ValueId AddScalar(Graph& g, const std::string& base, DType dtype, float value) {
  if (dtype == DType::kF16) {
    const uint16_t h = FloatToHalf(value);
    return g.AddConstant(UniqueName(g, base), dtype, {}, ConstantBytes::Copy(&h, sizeof(h)));
  }
  return g.AddConstant(UniqueName(g, base), DType::kF32, {}, ConstantBytes::Copy(&value, 4));
}

void SetInput(Node& n, size_t slot, ValueId v) {
  if (n.inputs.size() <= slot) n.inputs.resize(slot + 1, kNoValue);
  n.inputs[slot] = v;
}

// Moves the ints attribute `attr` into constant input `slot` (when present).
Status IntsToInput(Graph& g, NodeId id, const char* attr, size_t slot, bool required) {
  Node& n = g.node(id);
  if (!n.attrs.Has(attr)) {
    if (required) return InvalidArgument(Where(n) + ": attribute '" + attr + "' is required");
    return Status::Ok();
  }
  if (n.inputs.size() > slot && n.inputs[slot] != kNoValue) {
    return InvalidArgument(Where(n) + ": '" + attr + "' is given both as attribute and input");
  }
  const std::vector<int64_t> v = n.attrs.GetInts(attr);
  const std::string base = n.name + "/" + attr;
  n.attrs.Erase(attr);
  const ValueId c = AddInts(g, base, v);
  SetInput(g.node(id), slot, c);
  return Status::Ok();
}

// A signature of opset `since` (an input at `slot`) used at an older opset, or the attribute
// it replaced used at a newer one.
Status CheckInputForm(const Node& n, int64_t since, size_t slot, const char* what) {
  const bool has_input = n.inputs.size() > slot && n.inputs[slot] != kNoValue;
  if (n.opset < since && has_input) {
    return InvalidArgument(Where(n) + ": " + what + " as an input needs opset " +
                           std::to_string(since) + " (before it is an attribute)");
  }
  if (n.opset >= since && n.attrs.Has(what)) {
    return InvalidArgument(Where(n) + ": attribute '" + what + "' was removed at opset " +
                           std::to_string(since) + " (it is an input since)");
  }
  return Status::Ok();
}

// An op used at an opset older than the one that introduced it (the model is malformed: ONNX
// has no such op there, so nothing says what it would compute).
Status CheckSince(const Node& n, int64_t since) {
  if (n.opset >= since) return Status::Ok();
  return InvalidArgument(Where(n) + ": " + std::string(OpTypeName(n.op)) + " needs opset " +
                         std::to_string(since));
}

bool IsReduce(OpType op) {
  return op == OpType::kReduceMean || op == OpType::kReduceMax || op == OpType::kReduceMin ||
         op == OpType::kReduceSum || op == OpType::kReduceProd || op == OpType::kReduceL2;
}

}  // namespace

Status UpgradeNode(Graph& g, NodeId id, int64_t opset) {
  Node& n = g.node(id);
  n.opset = opset;
  switch (n.op) {
    case OpType::kSlice:
      if (opset < 10) {
        KILN_RETURN_IF_ERROR(IntsToInput(g, id, "starts", 1, true));
        KILN_RETURN_IF_ERROR(IntsToInput(g, id, "ends", 2, true));
        KILN_RETURN_IF_ERROR(IntsToInput(g, id, "axes", 3, false));
      }
      return Status::Ok();
    case OpType::kSplit:
      if (opset < 13) return IntsToInput(g, id, "split", 1, false);
      if (opset < 18 && n.attrs.Has("num_outputs")) {
        return InvalidArgument(Where(n) + ": num_outputs needs opset 18");
      }
      return Status::Ok();
    case OpType::kSqueeze:
    case OpType::kUnsqueeze:
      if (opset < 13) return IntsToInput(g, id, "axes", 1, n.op == OpType::kUnsqueeze);
      return CheckInputForm(n, 13, 1, "axes");
    case OpType::kPad:
      if (opset < 11) {
        if (n.inputs.size() > 1) return InvalidArgument(Where(n) + ": Pad-2 has one input");
        return IntsToInput(g, id, "pads", 1, true);  // `value` waits for UpgradeTypedForms
      }
      if (opset < 18 && n.inputs.size() > 3) {
        return InvalidArgument(Where(n) + ": the axes input needs opset 18");
      }
      if (opset < 19 && n.attrs.GetString("mode", "constant") == "wrap") {
        return InvalidArgument(Where(n) + ": mode 'wrap' needs opset 19");
      }
      return Status::Ok();
    case OpType::kClip:
      if (opset >= 11 && (n.attrs.Has("min") || n.attrs.Has("max"))) {
        return InvalidArgument(Where(n) + ": min/max are inputs since opset 11");
      }
      if (opset < 11 && n.inputs.size() > 1) {
        return InvalidArgument(Where(n) + ": Clip-6 takes min/max as attributes");
      }
      return Status::Ok();
    case OpType::kUpsample:
      if (opset < 9) {
        if (!n.attrs.Has("scales")) {
          return InvalidArgument(Where(n) + ": attribute 'scales' is required");
        }
        const std::vector<float> s = n.attrs.GetFloats("scales");
        n.attrs.Erase("scales");
        const ValueId c = AddFloats(g, g.node(id).name + "/scales", s);
        SetInput(g.node(id), 1, c);
      }
      return Status::Ok();
    case OpType::kResize:
      if (opset < 11) {
        // Resize-10: (X, scales), Upsample's asymmetric mapping with floor for nearest.
        if (n.inputs.size() != 2) return InvalidArgument(Where(n) + ": Resize-10 has 2 inputs");
        const ValueId scales = n.inputs[1];
        n.inputs = {n.inputs[0], kNoValue, scales};
        n.attrs.Set("coordinate_transformation_mode", std::string("asymmetric"));
        n.attrs.Set("nearest_mode", std::string("floor"));
      }
      if (opset < 18 && (n.attrs.Has("antialias") || n.attrs.Has("axes") ||
                         n.attrs.Has("keep_aspect_ratio_policy"))) {
        return InvalidArgument(Where(n) +
                               ": antialias, axes and keep_aspect_ratio_policy need "
                               "opset 18");
      }
      if (opset < 19 &&
          n.attrs.GetString("coordinate_transformation_mode", "") == "half_pixel_symmetric") {
        return InvalidArgument(Where(n) + ": half_pixel_symmetric needs opset 19");
      }
      return Status::Ok();
    case OpType::kDropout:
      if (opset < 12) {
        n.attrs.Erase("ratio");  // inference: Dropout is the identity
        n.attrs.Erase("is_test");
      }
      return Status::Ok();
    case OpType::kBatchNormalization:
      if (opset < 9 && n.attrs.Has("spatial")) {
        if (n.attrs.GetInt("spatial", 1) != 1) {
          return Unsupported(Where(n) + ": spatial=0 (per-element statistics) is not supported");
        }
        n.attrs.Erase("spatial");
      }
      return Status::Ok();
    case OpType::kQuantizeLinear:
    case OpType::kDequantizeLinear:
      if (n.attrs.GetInt("block_size", 0) != 0) {
        return Unsupported(Where(n) + ": block-wise quantization (block_size) is not supported");
      }
      n.attrs.Erase("block_size");
      n.attrs.Erase("saturate");                  // only float8 outputs saturate
      if (n.attrs.GetInt("precision", 0) != 0) {  // QuantizeLinear-23, float8/float4 outputs
        return Unsupported(Where(n) + ": precision (float8/float4 quantization) is not supported");
      }
      n.attrs.Erase("precision");
      if (n.attrs.Has("output_dtype")) {
        const int64_t t = n.attrs.GetInt("output_dtype", 0);
        if (n.op == OpType::kDequantizeLinear) {
          if (t != 0 && t != 1) {
            return Unsupported(Where(n) + ": output_dtype " + std::to_string(t) +
                               " (Kiln dequantizes to FLOAT)");
          }
        } else if (t != 0) {
          if (t != 2 && t != 3) {
            return Unsupported(Where(n) + ": output_dtype " + std::to_string(t) +
                               " (Kiln quantizes to UINT8 or INT8)");
          }
          // Without a zero point the output type comes from output_dtype: add a zero point.
          if (n.inputs.size() < 3 || n.inputs[2] == kNoValue) {
            const uint8_t zero = 0;
            const ValueId zp =
                g.AddConstant(UniqueName(g, n.name + "/zero_point"),
                              t == 2 ? DType::kU8 : DType::kI8, {}, ConstantBytes::Copy(&zero, 1));
            SetInput(g.node(id), 2, zp);
          }
        }
        g.node(id).attrs.Erase("output_dtype");
      }
      return Status::Ok();
    case OpType::kCast:
      n.attrs.Erase("saturate");  // only float8 targets saturate
      return Status::Ok();
    case OpType::kAveragePool:
      if (opset < 19 && n.attrs.Has("dilations")) {
        return InvalidArgument(Where(n) + ": dilations need opset 19");
      }
      return Status::Ok();
    case OpType::kGreaterOrEqual:
    case OpType::kLessOrEqual:
      return CheckSince(n, 12);
    case OpType::kIsNaN:
      return CheckSince(n, 9);
    case OpType::kIsInf:
      return CheckSince(n, 10);
    case OpType::kGatherElements:
      return CheckSince(n, 11);
    case OpType::kGatherND:
      if (opset < 12 && n.attrs.Has("batch_dims")) {
        return InvalidArgument(Where(n) + ": batch_dims needs opset 12");
      }
      return CheckSince(n, 11);
    case OpType::kScatterND:
    case OpType::kScatterElements: {
      // reduction: add/mul since 16, max/min since 18.
      const std::string r = n.attrs.GetString("reduction", "none");
      if (opset < 16 && n.attrs.Has("reduction")) {
        return InvalidArgument(Where(n) + ": reduction needs opset 16");
      }
      if (opset < 18 && (r == "max" || r == "min")) {
        return InvalidArgument(Where(n) + ": reduction '" + r + "' needs opset 18");
      }
      return CheckSince(n, 11);
    }
    case OpType::kMod:
      return CheckSince(n, 10);
    case OpType::kTrilu:
      return CheckSince(n, 14);
    case OpType::kCumSum:
      return CheckSince(n, 11);
    default:
      break;
  }
  if (IsReduce(n.op)) return CheckInputForm(n, n.op == OpType::kReduceSum ? 13 : 18, 1, "axes");
  return Status::Ok();
}

namespace {

struct Known {
  DType dtype = DType::kUndefined;
  int64_t rank = -1;
};

// dtype and rank of every value a trial inference (no folding) can tell.
std::vector<Known> TrialInference(const Graph& g) {
  Graph trial = g;
  for (size_t i = 0; i < trial.num_nodes(); ++i) {
    (void)InferNode(trial, static_cast<NodeId>(i));  // failures leave outputs unknown
  }
  std::vector<Known> known(trial.num_values());
  for (size_t i = 0; i < trial.num_values(); ++i) {
    const Value& v = trial.value(static_cast<ValueId>(i));
    if (v.shape_known) known[i] = {v.dtype, static_cast<int64_t>(v.shape.size())};
  }
  return known;
}

// The generic Softmax-before-13 form; `id`'s node becomes the middle Softmax.
void ExpandLegacySoftmax(Graph& g, NodeId id, int64_t axis) {
  const Node original = g.node(id);
  const ValueId x = original.inputs[0];
  const ValueId y = original.outputs[0];
  auto value = [&](const std::string& suffix) {
    Value v;
    v.name = UniqueName(g, original.name + suffix);
    return g.AddValue(std::move(v));
  };
  const ValueId flat = value("/flat");
  const ValueId soft = value("/2d");
  const ValueId shape = value("/shape");
  Node& s = g.node(id);
  s.inputs = {flat};
  s.outputs = {soft};
  s.attrs.Set("axis", int64_t{-1});
  auto node = [&](const std::string& suffix, OpType op, std::vector<ValueId> inputs,
                  std::vector<ValueId> outputs) {
    Node n;
    n.name = original.name + suffix;
    n.op = op;
    n.opset = original.opset;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return n;
  };
  Node f = node("/flatten", OpType::kFlatten, {x}, {flat});
  f.attrs.Set("axis", axis);
  g.AddNode(std::move(f));
  g.AddNode(node("/shape", OpType::kShape, {x}, {shape}));
  g.AddNode(node("/reshape", OpType::kReshape, {soft, shape}, {y}));
}

}  // namespace

Status UpgradeTypedForms(Graph& g) {
  bool any = false;
  for (const Node& n : g.nodes()) {
    any |= (n.op == OpType::kSoftmax || n.op == OpType::kLogSoftmax) && n.opset < 13;
    any |= (n.op == OpType::kClip || n.op == OpType::kPad) && n.opset < 11;
  }
  if (!any) return Status::Ok();
  const std::vector<Known> known = TrialInference(g);
  const size_t original_nodes = g.num_nodes();
  for (size_t i = 0; i < original_nodes; ++i) {
    const NodeId id = static_cast<NodeId>(i);
    Node& n = g.node(id);
    if (n.opset >= 13 || n.inputs.empty() || n.inputs[0] == kNoValue) continue;
    const Known& x = known[static_cast<size_t>(n.inputs[0])];
    const DType dtype = x.dtype == DType::kF16 ? DType::kF16 : DType::kF32;
    if (n.op == OpType::kSoftmax || n.op == OpType::kLogSoftmax) {
      if (n.outputs.size() != 1 || n.outputs[0] == kNoValue) continue;  // the schema refuses
      int64_t axis = n.attrs.GetInt("axis", 1);
      if (x.rank >= 0) {
        if (axis < -x.rank || axis >= std::max<int64_t>(x.rank, 1)) {
          return InvalidArgument(Where(n) + ": axis " + std::to_string(axis) +
                                 " out of range for rank " + std::to_string(x.rank));
        }
        if (axis < 0) axis += x.rank;
        if (axis == x.rank - 1 || x.rank <= 1) {  // same meaning in both versions
          n.attrs.Set("axis", int64_t{-1});
          continue;
        }
      }
      ExpandLegacySoftmax(g, id, axis);
    } else if (n.op == OpType::kClip && n.opset < 11) {
      const float lo = n.attrs.GetFloat("min", std::numeric_limits<float>::lowest());
      const float hi = n.attrs.GetFloat("max", std::numeric_limits<float>::max());
      const std::string base = n.name;
      g.node(id).attrs.Erase("min");
      g.node(id).attrs.Erase("max");
      const ValueId lo_v = AddScalar(g, base + "/min", dtype, lo);
      const ValueId hi_v = AddScalar(g, base + "/max", dtype, hi);
      SetInput(g.node(id), 1, lo_v);
      SetInput(g.node(id), 2, hi_v);
    } else if (n.op == OpType::kPad && n.opset < 11) {
      const float value = n.attrs.GetFloat("value", 0.f);
      const std::string base = n.name;
      g.node(id).attrs.Erase("value");
      if (value != 0.f) SetInput(g.node(id), 2, AddScalar(g, base + "/value", dtype, value));
    }
  }
  return g.SortTopologically();
}

}  // namespace kiln
