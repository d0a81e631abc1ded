// Kernel registry lookups and the registrations: the reference kernels, then every backend's.
#include "kernels/kernel_registry.h"

namespace kiln {

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterReferenceNnKernels(*r);
    RegisterReferenceElementwiseKernels(*r);
    RegisterReferenceTensorKernels(*r);
    RegisterReferenceQuantizedKernels(*r);
    RegisterBackendKernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::Register(KernelKey key, KernelFactory factory, KernelTraits traits) {
  entries_.push_back({key, std::move(factory), std::move(traits)});
}

bool KernelRegistry::LayoutsMatch(const KernelTraits& traits, const Graph& graph,
                                  const Node& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoValue) continue;
    const Layout layout = graph.value(node.inputs[i]).layout;
    if (traits.packing && i == traits.packing->input) {
      if (layout != traits.packing->layout) return false;
    } else if (traits.any_weight_layout && i == 1) {
      continue;
    } else if (traits.any_data_layout) {
      continue;
    } else if (!LayoutsShareBytes(layout, traits.data_layout, graph.value(node.inputs[i]).shape) &&
               !(layout == Layout::kPlain && graph.value(node.inputs[i]).shape.size() <= 1)) {
      return false;
    }
  }
  return true;
}

DType KernelRegistry::DispatchDType(const Graph& graph, const Node& node) {
  for (ValueId in : node.inputs) {
    if (in != kNoValue) return graph.value(in).dtype;
  }
  for (ValueId out : node.outputs) {
    if (out != kNoValue) return graph.value(out).dtype;
  }
  return DType::kUndefined;
}

namespace {

// The best entry for the node whose key names `layout` (the output's), among those `usable`
// admits.
template <typename Usable>
const KernelRegistry::Entry* Best(const std::vector<KernelRegistry::Entry>& entries,
                                  const Graph& graph, const Node& node, std::string_view backend,
                                  Isa max_isa, Layout layout, Usable usable) {
  const DType dtype = KernelRegistry::DispatchDType(graph, node);
  const KernelRegistry::Entry* best = nullptr;
  auto rank = [&](const KernelRegistry::Entry& e) {
    // exact dtype beats wildcard; then higher isa
    return (e.key.dtype == dtype ? 1000 : 0) + static_cast<int>(e.key.isa);
  };
  for (const auto& e : entries) {
    if (e.key.op != node.op || e.key.backend != backend || e.key.layout != layout) continue;
    if (static_cast<int>(e.key.isa) > static_cast<int>(max_isa)) continue;
    if (e.key.dtype != dtype && e.key.dtype != DType::kUndefined) continue;
    if (best && rank(e) <= rank(*best)) continue;
    if (e.traits.accepts && !e.traits.accepts(graph, node)) continue;
    if (usable(e)) best = &e;
  }
  return best;
}

Layout OutputLayout(const Graph& graph, const Node& node) {
  return node.outputs.empty() || node.outputs[0] == kNoValue ? Layout::kPlain
                                                             : graph.value(node.outputs[0]).layout;
}

}  // namespace

const KernelRegistry::Entry* KernelRegistry::FindEntry(const Graph& graph, const Node& node,
                                                       std::string_view backend,
                                                       Isa max_isa) const {
  return Best(entries_, graph, node, backend, max_isa, OutputLayout(graph, node),
              [&](const Entry& e) { return LayoutsMatch(e.traits, graph, node); });
}

bool KernelRegistry::SupportsLayouts(const Graph& graph, const Node& node, std::string_view backend,
                                     Isa min_isa, Isa max_isa, Layout out_layout,
                                     Layout data_layout) const {
  auto usable = [&](const Entry& e) {
    if (static_cast<int>(e.key.isa) < static_cast<int>(min_isa)) return false;
    if (!e.traits.any_data_layout && e.traits.data_layout != data_layout) return false;
    const auto& packing = e.traits.packing;
    if (!packing || packing->input >= node.inputs.size() ||
        node.inputs[packing->input] == kNoValue) {
      return true;
    }
    const Layout w = graph.value(node.inputs[packing->input]).layout;
    return w == packing->layout || w == Layout::kPlain;
  };
  return Best(entries_, graph, node, backend, max_isa, out_layout, usable) != nullptr;
}

const KernelRegistry::Entry* KernelRegistry::FindPackingEntry(const Graph& graph, const Node& node,
                                                              std::string_view backend,
                                                              Isa max_isa) const {
  return Best(entries_, graph, node, backend, max_isa, OutputLayout(graph, node),
              [](const Entry& e) { return e.traits.packing.has_value(); });
}

}  // namespace kiln
