// Pass blocked-layout: stores the activations between CPU convolutions that have NCHW8c
// kernels (ir/layout.h: channels blocked by 8) in that layout, as ONNX Runtime's NCHWc
// transformer does. A FusedConv is a candidate when the kernel registry has a SIMD kernel
// writing it NCHW8c from NCHW8c data, or from plain data (the stems: a few input channels).
// Where a blocked value is read by anything else, or is a graph output, a Reorder makes a
// plain copy; where a blocked convolution reads a plain value, a Reorder makes a blocked one
// (one per value). Candidates joined through their data form regions; a region is kept only
// with at least kConvsPerReorder convolutions per Reorder it needs (Zen 3, the pass on and
// off in two sessions alternating in one process: mobilenetv2, 52 convolutions and one
// Reorder, 1.22x at one thread; squeezenet's fire modules, 2 convolutions and 3 Reorders each,
// 0.97x; efficientnet_b0's projections between SiLU layers, 1 and 2, 0.96x). Logical shapes
// never change, so every other pass and report reads the graph as before.
#include <algorithm>
#include <map>
#include <set>

#include "compiler/passes/passes.h"
#include "ir/rewriter.h"
#include "kernels/kernel_registry.h"

namespace kiln {
namespace {

constexpr size_t kConvsPerReorder = 2;

// Input slots of a FusedConv that hold activations: X and the residual.
bool IsDataSlot(size_t slot) { return slot == 0 || slot == 3; }

class BlockedLayoutPass : public Pass {
 public:
  std::string_view name() const override { return "blocked-layout"; }
  std::string_view summary() const override {
    return "store activations between CPU convolutions NCHW8c where its SIMD kernels pay";
  }
  int min_opt_level() const override { return 2; }
  bool Enabled(const CompileOptions& options) const override {
    return static_cast<int>(options.target_isa) >= static_cast<int>(Isa::kAvx2);
  }

  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    const std::vector<NodeId> order = rw.LiveNodes();
    std::set<NodeId> region, plain_input;
    for (NodeId id : order) {
      const Isa isa = ctx.options().target_isa;
      if (Candidate(rw, id, isa, Layout::kNCHW8c)) {
        region.insert(id);
      } else if (Candidate(rw, id, isa, Layout::kPlain)) {  // a stem: reads plain, writes blocked
        region.insert(id);
        plain_input.insert(id);
      }
    }
    KeepPayingRegions(rw, region, plain_input);
    if (region.empty()) return rw.Commit();

    // Outputs first: every value a region node writes becomes blocked.
    for (NodeId id : order) {
      if (!region.count(id)) continue;
      const ValueId v = rw.node(id).outputs[0];
      rw.value(v).layout = Layout::kNCHW8c;
      bool plain_reader = rw.IsGraphOutput(v);
      for (const auto& use : rw.uses(v)) {
        if (!region.count(use.node) || !IsDataSlot(use.index)) plain_reader = true;
      }
      if (plain_reader) PlainCopy(rw, region, v, ctx);
    }
    // Then inputs: a region node reading a plain value reads a blocked copy.
    std::map<ValueId, ValueId> blocked_copy;
    for (NodeId id : order) {
      if (!region.count(id)) continue;
      for (size_t slot : {size_t{0}, size_t{3}}) {
        if (slot == 0 && plain_input.count(id)) continue;
        const Node& node = rw.node(id);
        if (slot >= node.inputs.size() || node.inputs[slot] == kNoValue) continue;
        const ValueId v = node.inputs[slot];
        if (rw.value(v).layout == Layout::kNCHW8c) continue;
        auto it = blocked_copy.find(v);
        if (it == blocked_copy.end()) {
          Value copy = CopyOf(rw.value(v), ".nchw8c", Layout::kNCHW8c);
          const ValueId b = rw.AddValue(std::move(copy));
          AddReorder(rw, v, b, id);
          it = blocked_copy.emplace(v, b).first;
          ctx.Count("reorders to nchw8c");
        }
        rw.SetInput(id, slot, it->second);
      }
      ctx.Count("nchw8c convolutions");
    }
    return rw.Commit();
  }

 private:
  // Whether `id` has a SIMD kernel writing NCHW8c from data in `data_layout`.
  static bool Candidate(const GraphRewriter& rw, NodeId id, Isa target, Layout data_layout) {
    const Node& node = rw.node(id);
    if (node.op != OpType::kFusedConv || node.outputs.size() != 1) return false;
    if (!node.placement.empty() && node.placement != kExecutorCpu) return false;
    if (node.inputs.empty() || node.inputs[0] == kNoValue ||
        rw.value(node.inputs[0]).is_constant()) {
      return false;
    }
    const Value& y = rw.value(node.outputs[0]);
    if (y.dtype != DType::kF32 || y.shape.size() != 4 || y.layout != Layout::kPlain) return false;
    return KernelRegistry::Global().SupportsLayouts(
        rw.graph(), node, ExecutorKind::kCpu, Isa::kAvx2, target, Layout::kNCHW8c, data_layout);
  }

  // The region nodes `id` exchanges data with: the producers of its blocked inputs and the
  // readers of its output.
  static std::vector<NodeId> Neighbours(const GraphRewriter& rw, NodeId id,
                                        const std::set<NodeId>& region,
                                        const std::set<NodeId>& plain_input) {
    std::vector<NodeId> out;
    const Node& node = rw.node(id);
    for (size_t slot : {size_t{0}, size_t{3}}) {
      if (slot >= node.inputs.size() || node.inputs[slot] == kNoValue) continue;
      if (slot == 0 && plain_input.count(id)) continue;
      auto producer = rw.Producer(node.inputs[slot]);
      if (producer && region.count(*producer)) out.push_back(*producer);
    }
    for (const auto& use : rw.uses(node.outputs[0])) {
      if (region.count(use.node) && IsDataSlot(use.index)) out.push_back(use.node);
    }
    return out;
  }

  // Splits the candidates into connected regions and keeps those whose convolutions outnumber
  // the Reorders they need kConvsPerReorder to one.
  static void KeepPayingRegions(const GraphRewriter& rw, std::set<NodeId>& region,
                                const std::set<NodeId>& plain_input) {
    std::set<NodeId> kept, seen;
    for (NodeId start : region) {
      if (seen.count(start)) continue;
      std::vector<NodeId> members, stack = {start};
      seen.insert(start);
      while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        members.push_back(id);
        for (NodeId n : Neighbours(rw, id, region, plain_input)) {
          if (seen.insert(n).second) stack.push_back(n);
        }
      }
      const std::set<NodeId> component(members.begin(), members.end());
      std::set<ValueId> to_blocked, to_plain;
      for (NodeId id : members) {
        const Node& node = rw.node(id);
        for (size_t slot : {size_t{0}, size_t{3}}) {
          if (slot >= node.inputs.size() || node.inputs[slot] == kNoValue) continue;
          if (slot == 0 && plain_input.count(id)) continue;
          auto producer = rw.Producer(node.inputs[slot]);
          if (!producer || !component.count(*producer)) to_blocked.insert(node.inputs[slot]);
        }
        const ValueId y = node.outputs[0];
        bool plain_reader = rw.IsGraphOutput(y);
        for (const auto& use : rw.uses(y)) {
          if (!component.count(use.node) || !IsDataSlot(use.index)) plain_reader = true;
        }
        if (plain_reader) to_plain.insert(y);
      }
      const size_t reorders = to_blocked.size() + to_plain.size();
      if (members.size() >= kConvsPerReorder * reorders)
        kept.insert(members.begin(), members.end());
    }
    region = std::move(kept);
  }

  static Value CopyOf(const Value& v, const char* suffix, Layout layout) {
    Value copy;
    copy.name = v.name + suffix;
    copy.dtype = v.dtype;
    copy.shape = v.shape;
    copy.shape_known = v.shape_known;
    copy.quant = v.quant;
    copy.layout = layout;
    return copy;
  }

  static void AddReorder(GraphRewriter& rw, ValueId from, ValueId to, NodeId before) {
    Node r;
    r.name = rw.value(to).name + ".reorder";
    r.op = OpType::kReorder;
    r.inputs = {from};
    r.outputs = {to};
    r.placement = kExecutorCpu;
    rw.InsertNode(std::move(r), before);
  }

  // Readers of blocked `v` outside the region (and the graph's outputs) read a plain copy.
  static void PlainCopy(GraphRewriter& rw, const std::set<NodeId>& region, ValueId v,
                        PassContext& ctx) {
    const ValueId plain = rw.AddValue(CopyOf(rw.value(v), ".plain", Layout::kPlain));
    // Every reader and the graph output move to the copy (which takes the output's name),
    // then the region's readers come back.
    rw.ReplaceAllUsesWith(v, plain);
    NodeId first_reader = kNoNode;
    const std::vector<GraphRewriter::Use> uses = rw.uses(plain);
    for (const auto& use : uses) {
      if (region.count(use.node) && IsDataSlot(use.index)) {
        rw.SetInput(use.node, use.index, v);
      } else if (first_reader == kNoNode) {
        first_reader = use.node;
      }
    }
    AddReorder(rw, v, plain, first_reader);
    ctx.Count("reorders to plain");
  }
};

}  // namespace

std::unique_ptr<Pass> MakeBlockedLayoutPass() { return std::make_unique<BlockedLayoutPass>(); }

}  // namespace kiln
