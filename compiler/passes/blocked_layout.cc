// Pass blocked-layout (AVX2 and AVX-512 targets): stores the activations between CPU
// convolutions that have NCHW8c kernels (ir/layout.h: channels blocked by 8) in that layout, as
// ONNX Runtime's NCHWc transformer does. Region members are the nodes the kernel registry has
// a kernel for that writes NCHW8c: FusedConvs with a SIMD kernel reading NCHW8c, or reading
// plain data (the stems: a few input channels), squeeze-excite Muls, MaxPool / AveragePool
// and channel Concats (of multiples of 8 channels: usually elided, their inputs written in
// place). Sinks read NCHW8c and write plain (GlobalAveragePool). Where a member's output is
// read by anything else, or is a graph output, a Reorder makes a plain copy; where a member
// reads a plain value, a Reorder makes a blocked one (one per value), except for
// [N, C, 1, 1] vectors, whose bytes are the same in both layouts. Members joined through their
// data form regions; a region is kept only with at least kMembersPerReorder members per
// Reorder it needs (Zen 3, the pass on and off in two sessions alternating in one process:
// mobilenetv2, 52 convolutions and one Reorder, 1.22x at one thread; squeezenet's fire
// modules, before Concat and the 3x3 layers had NCHW8c kernels, 2 convolutions and 3 Reorders
// each, 0.97x). Logical shapes never change, so every other pass and report reads the graph
// as before.
#include <map>
#include <set>

#include "compiler/passes/passes.h"
#include "ir/rewriter.h"
#include "kernels/kernel_registry.h"

namespace kiln {
namespace {

constexpr size_t kMembersPerReorder = 2;

class BlockedLayoutPass : public Pass {
 public:
  std::string_view name() const override { return "blocked-layout"; }
  std::string_view summary() const override {
    return "store activations between CPU convolutions NCHW8c where its kernels run them";
  }
  int min_opt_level() const override { return 2; }
  // SIMD targets: below AVX2 the portable blocked kernels gain nothing. On AVX-512 the NCHW8c
  // kernels hold two blocks per vector (with the AVX2 ones there, the 16-wide plain kernels ran
  // mobilenetv2 faster: Xeon, one thread, plain 5.46 ms, NCHW8c 6.94; with them, Zen 5, 1.2x
  // faster than plain).
  bool Enabled(const CompileOptions& options) const override {
    return options.target_isa == Isa::kAvx2 || options.target_isa == Isa::kAvx512 ||
           options.target_isa == Isa::kAvx512Vnni;
  }

  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    const std::vector<NodeId> order = rw.LiveNodes();
    const Isa isa = ctx.options().target_isa;
    State st;
    for (NodeId id : order) {
      if (Member(rw, id, ctx.options(), Layout::kNCHW8c)) {
        st.region.insert(id);
      } else if (Member(rw, id, ctx.options(), Layout::kPlain)) {
        // A stem: reads plain, writes blocked.
        st.region.insert(id);
        st.plain_input.insert(id);
      } else if (Sink(rw, id, isa)) {
        st.sinks.insert(id);
      }
    }
    KeepPayingRegions(rw, st);
    if (st.region.empty()) return rw.Commit();

    // Outputs first: every value a member writes becomes blocked.
    for (NodeId id : order) {
      if (!st.region.count(id)) continue;
      const ValueId v = rw.node(id).outputs[0];
      rw.value(v).layout = Layout::kNCHW8c;
      if (NeedsPlainCopy(rw, st, st.region, v)) PlainCopy(rw, st, v, ctx);
    }
    // Then inputs: a member reading a plain value reads a blocked copy.
    std::map<ValueId, ValueId> blocked_copy;
    for (NodeId id : order) {
      if (!st.region.count(id)) continue;
      for (size_t slot : DataSlots(rw, st, id)) {
        const ValueId v = rw.node(id).inputs[slot];
        const Value& val = rw.value(v);
        if (LayoutsShareBytes(val.layout, Layout::kNCHW8c, val.shape)) continue;
        auto it = blocked_copy.find(v);
        if (it == blocked_copy.end()) {
          const ValueId b = rw.AddValue(CopyOf(val, ".nchw8c", Layout::kNCHW8c));
          AddReorder(rw, v, b, id);
          it = blocked_copy.emplace(v, b).first;
          ctx.Count("reorders to nchw8c");
        }
        rw.SetInput(id, slot, it->second);
      }
      ctx.Count(rw.node(id).op == OpType::kFusedConv ? "nchw8c convolutions" : "nchw8c other");
    }
    return rw.Commit();
  }

 private:
  struct State {
    std::set<NodeId> region, plain_input, sinks;
  };

  static bool OnCpu(const Node& node) {
    return node.placement.empty() || node.placement == kExecutorCpu;
  }

  // Whether `id` has a kernel writing NCHW8c from data in `data_layout`: at least AVX2 for
  // convolutions (what the layout is for), any flavour for the others. The pass runs before
  // the weights are packed: a convolution's must be constant f32 (packed then into Block16O),
  // and stay f32 (--weights-f16 keeps every convolution plain: the NCHW8c kernels read f32).
  static bool Member(const GraphRewriter& rw, NodeId id, const CompileOptions& options,
                     Layout data_layout) {
    const Node& node = rw.node(id);
    if (node.op != OpType::kFusedConv && node.op != OpType::kMul && node.op != OpType::kMaxPool &&
        node.op != OpType::kAveragePool && node.op != OpType::kConcat) {
      return false;
    }
    if (!OnCpu(node) || node.outputs.size() != 1 || node.inputs.empty()) return false;
    if (node.inputs[0] == kNoValue || rw.value(node.inputs[0]).is_constant()) return false;
    const Value& y = rw.value(node.outputs[0]);
    if (y.dtype != DType::kF32 || y.shape.size() != 4 || y.layout != Layout::kPlain) return false;
    const bool conv = node.op == OpType::kFusedConv;
    if (conv) {
      if (options.weights_f16 || node.inputs.size() < 2 || node.inputs[1] == kNoValue) return false;
      const Value& w = rw.value(node.inputs[1]);
      if (!w.is_constant() || w.dtype != DType::kF32) return false;
    }
    return KernelRegistry::Global().SupportsLayouts(
        rw.graph(), node, kExecutorCpu, conv ? Isa::kAvx2 : Isa::kScalar, options.target_isa,
        Layout::kNCHW8c, data_layout);
  }

  // Whether `id` has a kernel reading NCHW8c data and writing its output as it is (plain).
  static bool Sink(const GraphRewriter& rw, NodeId id, Isa target) {
    const Node& node = rw.node(id);
    if (!OnCpu(node) || node.outputs.size() != 1 || node.outputs[0] == kNoValue) return false;
    if (rw.value(node.outputs[0]).layout != Layout::kPlain) return false;
    return KernelRegistry::Global().SupportsLayouts(rw.graph(), node, kExecutorCpu, Isa::kScalar,
                                                    Isa::kAvx512Vnni, Layout::kPlain,
                                                    Layout::kNCHW8c);
  }

  // The input slots of member `id` that carry activations (non-constant rank-4 values; a
  // stem's X is read plain).
  static std::vector<size_t> DataSlots(const GraphRewriter& rw, const State& st, NodeId id) {
    std::vector<size_t> slots;
    const Node& node = rw.node(id);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) continue;
      const Value& v = rw.value(node.inputs[i]);
      if (v.is_constant() || v.shape.size() != 4) continue;
      if (i == 0 && st.plain_input.count(id)) continue;
      slots.push_back(i);
    }
    return slots;
  }

  static bool ReadsAsData(const GraphRewriter& rw, const State& st, NodeId reader, size_t slot) {
    for (size_t s : DataSlots(rw, st, reader)) {
      if (s == slot) return true;
    }
    return false;
  }

  // Whether `use` reads a blocked value as it is: a member of `members` reading it as data, or
  // a sink.
  static bool BlockedReader(const GraphRewriter& rw, const State& st,
                            const std::set<NodeId>& members, const GraphRewriter::Use& use) {
    return (members.count(use.node) && ReadsAsData(rw, st, use.node, use.index)) ||
           (st.sinks.count(use.node) && use.index == 0);
  }

  // Whether blocked `v`, written by a member of `members`, is a graph output or has a reader
  // that needs it plain.
  static bool NeedsPlainCopy(const GraphRewriter& rw, const State& st,
                             const std::set<NodeId>& members, ValueId v) {
    if (rw.IsGraphOutput(v)) return true;
    for (const auto& use : rw.uses(v)) {
      if (!BlockedReader(rw, st, members, use)) return true;
    }
    return false;
  }

  // Members `id` exchanges data with: the producers of its data inputs and its output's
  // readers.
  static std::vector<NodeId> Neighbours(const GraphRewriter& rw, const State& st, NodeId id) {
    std::vector<NodeId> out;
    for (size_t slot : DataSlots(rw, st, id)) {
      auto producer = rw.Producer(rw.node(id).inputs[slot]);
      if (producer && st.region.count(*producer)) out.push_back(*producer);
    }
    for (const auto& use : rw.uses(rw.node(id).outputs[0])) {
      if (st.region.count(use.node) && ReadsAsData(rw, st, use.node, use.index)) {
        out.push_back(use.node);
      }
    }
    return out;
  }

  // Splits the members into connected regions and keeps those with at least
  // kMembersPerReorder members per Reorder they need.
  static void KeepPayingRegions(const GraphRewriter& rw, State& st) {
    std::set<NodeId> kept, seen;
    for (NodeId start : st.region) {
      if (seen.count(start)) continue;
      std::vector<NodeId> members, stack = {start};
      seen.insert(start);
      while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        members.push_back(id);
        for (NodeId n : Neighbours(rw, st, id)) {
          if (seen.insert(n).second) stack.push_back(n);
        }
      }
      const std::set<NodeId> component(members.begin(), members.end());
      std::set<ValueId> to_blocked, to_plain;
      for (NodeId id : members) {
        for (size_t slot : DataSlots(rw, st, id)) {
          const ValueId v = rw.node(id).inputs[slot];
          auto producer = rw.Producer(v);
          if ((!producer || !component.count(*producer)) &&
              !LayoutsShareBytes(rw.value(v).layout, Layout::kNCHW8c, rw.value(v).shape)) {
            to_blocked.insert(v);
          }
        }
        const ValueId y = rw.node(id).outputs[0];
        if (NeedsPlainCopy(rw, st, component, y)) to_plain.insert(y);
      }
      const size_t reorders = to_blocked.size() + to_plain.size();
      if (members.size() >= kMembersPerReorder * reorders) {
        kept.insert(members.begin(), members.end());
      }
    }
    st.region = std::move(kept);
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

  // Readers of blocked `v` that need it plain (and the graph's outputs) read a plain copy.
  static void PlainCopy(GraphRewriter& rw, const State& st, ValueId v, PassContext& ctx) {
    const ValueId plain = rw.AddValue(CopyOf(rw.value(v), ".plain", Layout::kPlain));
    // Every reader and the graph output move to the copy (which takes the output's name),
    // then the region's blocked readers come back.
    rw.ReplaceAllUsesWith(v, plain);
    NodeId first_reader = kNoNode;
    const std::vector<GraphRewriter::Use> uses = rw.uses(plain);
    for (const auto& use : uses) {
      if (BlockedReader(rw, st, st.region, use)) {
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
