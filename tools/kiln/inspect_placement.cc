// Placement explanation for kiln inspect.
#include "tools/kiln/inspect_placement.h"

#include <cstdio>
#include <sstream>

#include "backends/cost_placement.h"
#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_chain.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "runtime/model.h"
#include "runtime/placement.h"
#include "tools/kiln/cli_util.h"

namespace kiln::cli {
namespace {

struct Placed {
  CostPlacement placement;
  bool cost = true;
  std::string order;
};

Expected<Placed> Place(const LoadedModel& m, const DeviceArgs& device) {
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> names, device.Executors());
  BackendOptions options;
  KILN_ASSIGN_OR_RETURN(options.Mutable<DspOptions>().scratch_bytes, device.DspScratchBytes());
  Placed p;
  KILN_ASSIGN_OR_RETURN(p.cost, device.CostPlacement());
  std::vector<bool> elided(m.graph->num_nodes(), false);
  for (NodeId e : m.plan->memory.elided) elided[static_cast<size_t>(e)] = true;
  KILN_ASSIGN_OR_RETURN(p.placement, PlaceByCost(*m.graph, names, options, elided));
  if (!p.cost) {  // support-only: undo the island decisions
    for (auto& d : p.placement.decisions) {
      for (NodeId id : d.nodes) p.placement.placement[static_cast<size_t>(id)] = d.executor;
      d.kept = true;
    }
    p.placement.estimated_us = p.placement.support_only_us;
  }
  for (const auto& n : names) p.order += (p.order.empty() ? "" : ",") + n;
  return p;
}

struct ChainLine {
  std::vector<std::string> members;
  int64_t fused_cycles = 0, member_cycles = 0;
};

// The fused DSP chains compiled into a .kiln file, with their estimated cycles against their
// members' own programs.
std::vector<ChainLine> Chains(const LoadedModel& m) {
  std::vector<ChainLine> out;
  if (!m.kiln || !m.kiln->dsp_programs()) return out;
  const Graph& g = *m.graph;
  const DspProgramSet& set = *m.kiln->dsp_programs();
  const DspCostModel cost;
  for (const auto& entry : set.chains) {
    const DspProgram& program = entry.second;
    // Programs from a file are estimated only once they validate (as the executor does).
    auto chain = MakeDspChain(g, program.members);
    if (!chain.ok() ||
        !ValidateDspProgram(program, **chain, DspChainOperandBytes(g, program.members),
                            (*chain)->num_inputs())
             .ok()) {
      continue;
    }
    ChainLine c;
    c.fused_cycles = DspProgramCycles(program, **chain, cost);
    bool valid = true;
    for (int32_t id : program.members) {
      const Node& node = g.node(id);
      c.members.push_back(node.name);
      auto op = MakeDspOp(g, node);
      auto own = set.by_node.find(id);
      valid =
          valid && op.ok() && own != set.by_node.end() &&
          ValidateDspProgram(own->second, **op, DspOperandBytes(g, node), node.inputs.size()).ok();
      if (valid) c.member_cycles += DspProgramCycles(own->second, **op, cost);
    }
    if (valid) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Expected<std::string> PlacementText(const LoadedModel& m, const DeviceArgs& device) {
  KILN_ASSIGN_OR_RETURN(Placed p, Place(m, device));
  const Graph& g = *m.graph;
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof(line), "placement (%s, by %s): %s\n", p.order.c_str(),
                p.cost ? "estimated cost" : "support only",
                PlacementSummary(p.placement.placement).c_str());
  os << line;
  std::snprintf(line, sizeof(line), "estimated time: %.1f us (support-only placement: %.1f us)\n",
                p.placement.estimated_us, p.placement.support_only_us);
  os << line;
  if (!p.placement.fallbacks.empty()) os << "fallbacks (node, op, device: reason):\n";
  for (const auto& f : p.placement.fallbacks) {
    const Node& n = g.node(f.node);
    os << "  " << n.name << "  " << OpTypeName(n.op) << "  " << f.executor << ": " << f.reason
       << "\n";
  }
  if (!p.placement.decisions.empty()) os << "island decisions (compute + transfers vs cpu):\n";
  for (const auto& d : p.placement.decisions) os << "  " << DescribeDecision(g, d) << "\n";
  const std::vector<ChainLine> chains = Chains(m);
  if (!chains.empty()) {
    os << "dsp fused chains (members: estimated cycles fused vs. each on its own):\n";
  }
  for (const ChainLine& c : chains) {
    std::string names;
    for (const auto& n : c.members) names += (names.empty() ? "" : " -> ") + n;
    os << "  " << names << ": " << GroupDigits(c.fused_cycles) << " vs "
       << GroupDigits(c.member_cycles) << "\n";
  }
  return os.str();
}

Expected<std::string> PlacementJson(const LoadedModel& m, const DeviceArgs& device) {
  KILN_ASSIGN_OR_RETURN(Placed p, Place(m, device));
  const Graph& g = *m.graph;
  std::ostringstream os;
  os << "{\"devices\": " << JsonString(p.order)
     << ", \"by\": " << JsonString(p.cost ? "cost" : "support")
     << ", \"summary\": " << JsonString(PlacementSummary(p.placement.placement))
     << ", \"estimated_us\": " << JsonNumber(p.placement.estimated_us)
     << ", \"support_only_us\": " << JsonNumber(p.placement.support_only_us)
     << ", \"fallbacks\": [";
  for (size_t i = 0; i < p.placement.fallbacks.size(); ++i) {
    const auto& f = p.placement.fallbacks[i];
    os << (i ? ", " : "") << "{\"node\": " << JsonString(g.node(f.node).name)
       << ", \"device\": " << JsonString(f.executor) << ", \"reason\": " << JsonString(f.reason)
       << "}";
  }
  os << "], \"decisions\": [";
  for (size_t i = 0; i < p.placement.decisions.size(); ++i) {
    const auto& d = p.placement.decisions[i];
    os << (i ? ", " : "") << "{\"device\": " << JsonString(d.executor)
       << ", \"nodes\": " << d.nodes.size()
       << ", \"first\": " << JsonString(g.node(d.nodes.front()).name)
       << ", \"accel_us\": " << JsonNumber(d.accel_us)
       << ", \"transfer_us\": " << JsonNumber(d.transfer_us)
       << ", \"cpu_us\": " << JsonNumber(d.cpu_us) << ", \"kept\": " << (d.kept ? "true" : "false")
       << "}";
  }
  os << "], \"dsp_chains\": [";
  const std::vector<ChainLine> chains = Chains(m);
  for (size_t i = 0; i < chains.size(); ++i) {
    os << (i ? ", " : "") << "{\"members\": [";
    for (size_t k = 0; k < chains[i].members.size(); ++k) {
      os << (k ? ", " : "") << JsonString(chains[i].members[k]);
    }
    os << "], \"fused_cycles\": " << chains[i].fused_cycles
       << ", \"member_cycles\": " << chains[i].member_cycles << "}";
  }
  os << "]}";
  return os.str();
}

}  // namespace kiln::cli
