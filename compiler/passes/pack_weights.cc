// Pass pack-weights: for every node, asks the kernel registry which kernel would run it on its
// placement (the OpenCL executor for nodes place-nodes put on the GPU, else the CPU at the
// target ISA); when that kernel wants its weights in a packed layout, rewrites the constant
// into that layout now, so the runtime binds it in place from the file (no repacking at load).
// A FusedGemm or QGemm whose B is [K, N] is first transposed to [N, K] (transB = 1) so that
// output features lead, as every packed layout expects.
#include <cstring>

#include "compiler/passes/passes.h"
#include "ir/rewriter.h"
#include "kernels/kernel_registry.h"

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

class PackWeightsPass : public Pass {
 public:
  std::string_view name() const override { return "pack-weights"; }
  std::string_view summary() const override {
    return "pack constant weights into the layouts the target's kernels bind in place";
  }
  int min_opt_level() const override { return 2; }
  bool Enabled(const CompileOptions& options) const override {
    return options.target_isa != Isa::kReference || options.target_backend == kExecutorOpenCL;
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    const KernelRegistry& registry = KernelRegistry::Global();
    for (NodeId id : rw.LiveNodes()) {
      const bool gpu = rw.node(id).placement == kExecutorOpenCL;
      const KernelRegistry::Entry* e = registry.FindPackingEntry(
          graph, rw.node(id), gpu ? ExecutorKind::kOpenCL : ExecutorKind::kCpu,
          gpu ? Isa::kOpenCL : ctx.options().target_isa);
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
                            PackLayout(spec.layout, plain.dtype, plain.shape,
                                       plain.constant->data(), plain.constant->size()));
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
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePackWeightsPass() { return std::make_unique<PackWeightsPass>(); }

}  // namespace kiln
