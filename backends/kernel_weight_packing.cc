// PackWeightsForKernels: the registry lookup per node, the [K, N] transpose, the packed constant.
#include "backends/kernel_weight_packing.h"

#include <cstring>

namespace kiln {
namespace {

// B[K, N] -> B'[N, K] of any element type; per-column quantization (axis 1) becomes per-row.
ValueId TransposedConstant(GraphRewriter& rw, ValueId b) {
  const Value& v = rw.value(b);
  const int64_t k = v.shape[0], n = v.shape[1];
  const size_t elem = DTypeSize(v.dtype);
  const uint8_t* src = v.constant->data();
  std::vector<uint8_t> t(static_cast<size_t>(k * n) * elem);
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      std::memcpy(&t[static_cast<size_t>(j * k + i) * elem],
                  src + static_cast<size_t>(i * n + j) * elem, elem);
    }
  }
  QuantParams q = v.quant;
  if (q.axis == 1) q.axis = 0;
  const DType dtype = v.dtype;
  const ValueId out =
      rw.AddConstant(v.name + ".t", dtype, {n, k}, ConstantBytes::FromVector(std::move(t)));
  rw.value(out).quant = std::move(q);
  return out;
}

bool PlacedOn(const Node& node, std::string_view backend) {
  return node.placement == backend || (node.placement.empty() && backend == kExecutorCpu);
}

}  // namespace

Status PackWeightsForKernels(WeightPackingContext& ctx, std::string_view backend, Isa max_isa) {
  GraphRewriter& rw = ctx.rw;
  const KernelRegistry& registry = KernelRegistry::Global();
  for (NodeId id : rw.LiveNodes()) {
    if (!PlacedOn(rw.node(id), backend)) continue;
    const KernelRegistry::Entry* e =
        registry.FindPackingEntry(rw.graph(), rw.node(id), backend, max_isa);
    if (!e || !e->traits.packing) continue;
    const WeightPacking spec = *e->traits.packing;
    Node& node = rw.node(id);
    if (spec.input >= node.inputs.size() || node.inputs[spec.input] == kNoValue) continue;
    ValueId w = node.inputs[spec.input];
    const DType wt = rw.value(w).dtype;
    if (!rw.value(w).is_constant() || rw.value(w).layout != Layout::kPlain ||
        (wt != DType::kF32 && wt != DType::kI8 && wt != DType::kU8)) {
      continue;
    }
    // A weight shared with a node packed otherwise keeps its plain constant for that one.
    if ((node.op == OpType::kFusedGemm || node.op == OpType::kQGemm) && spec.input == 1 &&
        node.attrs.GetInt("transB", 0) == 0 && rw.value(w).shape.size() == 2) {
      w = TransposedConstant(rw, w);
      rw.node(id).attrs.Set("transB", int64_t{1});
      ctx.Count("transposed");
    }
    const Value& plain = rw.value(w);
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> packed,
                          PackLayout(spec.layout, plain.dtype, plain.shape, plain.constant->data(),
                                     plain.constant->size()));
    const std::string packed_name = plain.name + "." + std::string(LayoutName(spec.layout));
    const Shape shape = plain.shape;
    const DType dtype = plain.dtype;
    const QuantParams quant = plain.quant;  // int8 weights keep their zero points
    const ValueId p =
        rw.AddConstant(packed_name, dtype, shape, ConstantBytes::FromVector(std::move(packed)));
    rw.value(p).layout = spec.layout;
    rw.value(p).quant = quant;
    rw.SetInput(id, spec.input, p);
    ctx.Count(std::string(LayoutName(spec.layout)));
  }
  return Status::Ok();
}

}  // namespace kiln
