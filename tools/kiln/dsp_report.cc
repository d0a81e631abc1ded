// Formats the DSP executor's counters for kiln bench.
#include "tools/kiln/dsp_report.h"

#include <cstdio>
#include <sstream>

#include "backends/dsp/dsp_executor.h"
#include "tools/kiln/dsp_summary.h"
#include "tools/kiln/cli_util.h"

namespace kiln::cli {
namespace {

// The op, or for fused chains (backends/dsp/kernels/dsp_chain.h) the chain its row counts.
std::string OpLabel(const DspNodeStats& s) {
  if (s.chain_length > 0) return "chain of " + std::to_string(s.chain_length);
  if (!s.fused_into.empty()) return "(in chain)";
  return std::string(OpTypeName(s.op));
}

}  // namespace

std::string FormatDspProfileText(const Session& session, const std::vector<NodeProfile>& profile) {
  const Executor* dsp = session.executor(kExecutorDsp);
  const auto* stats = dsp ? DspStatsOf(*dsp) : nullptr;
  if (!stats || stats->empty()) return "";
  const DspCostModel cost;
  std::ostringstream os;
  char line[512];
  std::snprintf(
      line, sizeof(line),
      "DSP (cost model: %lld MAC/cycle, %lld elem/cycle, %lld DMA B/cycle, %lld cycles/command, "
      "%lld MHz)\n",
      static_cast<long long>(cost.macs_per_cycle), static_cast<long long>(cost.elems_per_cycle),
      static_cast<long long>(cost.dma_bytes_per_cycle),
      static_cast<long long>(cost.command_overhead_cycles), static_cast<long long>(cost.clock_mhz));
  os << line;
  std::snprintf(line, sizeof(line), "%-28s %-18s %9s %8s %12s %12s %14s %12s %10s %10s\n", "node",
                "op", "scratch", "commands", "DMA in B", "DMA out B", "MACs", "est cycles",
                "est ms", "host ms");
  os << line;
  double host_total = 0;
  for (const auto& s : *stats) {
    double host_ms = 0;
    for (const NodeProfile& p : profile) {
      if (p.node == s->node && p.executor == kExecutorDsp && p.runs > 0)
        host_ms = p.total_ms / p.runs;
    }
    host_total += host_ms;
    const int64_t cycles = s->cycles;
    std::snprintf(
        line, sizeof(line), "%-28.28s %-18.18s %9u %8lld %12s %12s %14s %12s %10.3f %10.3f\n",
        s->node.c_str(), OpLabel(*s).c_str(), s->scratch_bytes,
        static_cast<long long>(s->planned.commands), GroupDigits(s->planned.dma_in_bytes).c_str(),
        GroupDigits(s->planned.dma_out_bytes).c_str(), GroupDigits(s->planned.macs).c_str(),
        GroupDigits(cycles).c_str(), static_cast<double>(cycles) / (cost.clock_mhz * 1000.0),
        host_ms);
    os << line;
  }
  const DspTraffic t = SummarizeDspTraffic(session);
  const int64_t dma = t.per_inference.dma_in_bytes + t.per_inference.dma_out_bytes;
  std::snprintf(line, sizeof(line),
                "DSP per inference: %lld nodes, %s commands, %s MACs, DMA %s B (in %s, out %s)\n",
                static_cast<long long>(t.nodes), GroupDigits(t.per_inference.commands).c_str(),
                GroupDigits(t.per_inference.macs).c_str(), GroupDigits(dma).c_str(),
                GroupDigits(t.per_inference.dma_in_bytes).c_str(),
                GroupDigits(t.per_inference.dma_out_bytes).c_str());
  os << line;
  std::snprintf(
      line, sizeof(line),
      "DMA minimum (weights %s + boundary activations %s, once): %s B -> %.2fx; per-node floor (no "
      "fusion): %s B -> %.2fx\n",
      GroupDigits(t.weight_bytes).c_str(), GroupDigits(t.boundary_bytes).c_str(),
      GroupDigits(t.minimum_bytes).c_str(),
      t.minimum_bytes ? static_cast<double>(dma) / static_cast<double>(t.minimum_bytes) : 0.0,
      GroupDigits(t.per_node_floor_bytes).c_str(),
      t.per_node_floor_bytes
          ? static_cast<double>(dma) / static_cast<double>(t.per_node_floor_bytes)
          : 0.0);
  os << line;
  std::snprintf(line, sizeof(line),
                "fused chains: %lld (%lld nodes; intermediates kept in the scratchpad %s B); "
                "unfused single-reader DSP->DSP activations %s B\n",
                static_cast<long long>(t.chains), static_cast<long long>(t.chained_nodes),
                GroupDigits(t.fused_bytes).c_str(), GroupDigits(t.fusible_bytes).c_str());
  os << line;
  std::snprintf(line, sizeof(line),
                "estimated DSP time %.3f ms (%s cycles; %s if DMA never overlapped compute); host "
                "time of the DSP nodes %.3f ms\n",
                static_cast<double>(t.estimated_cycles) / (cost.clock_mhz * 1000.0),
                GroupDigits(t.estimated_cycles).c_str(), GroupDigits(t.serial_cycles).c_str(),
                host_total);
  os << line;
  return os.str();
}

std::string FormatDspProfileJson(const Session& session) {
  const DspTraffic t = SummarizeDspTraffic(session);
  std::ostringstream os;
  os << "{\"nodes\": " << t.nodes << ", \"commands\": " << t.per_inference.commands
     << ", \"macs\": " << t.per_inference.macs
     << ", \"dma_in_bytes\": " << t.per_inference.dma_in_bytes
     << ", \"dma_out_bytes\": " << t.per_inference.dma_out_bytes
     << ", \"weight_bytes\": " << t.weight_bytes << ", \"boundary_bytes\": " << t.boundary_bytes
     << ", \"minimum_bytes\": " << t.minimum_bytes
     << ", \"per_node_floor_bytes\": " << t.per_node_floor_bytes << ", \"chains\": " << t.chains
     << ", \"chained_nodes\": " << t.chained_nodes << ", \"fused_bytes\": " << t.fused_bytes
     << ", \"fusible_bytes\": " << t.fusible_bytes
     << ", \"estimated_cycles\": " << t.estimated_cycles
     << ", \"serial_cycles\": " << t.serial_cycles << "}";
  return os.str();
}

}  // namespace kiln::cli
