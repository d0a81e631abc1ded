// Cost-aware placement over an ordered device preference (--device dsp,gpu,cpu): nodes first go
// to the first executor that supports them; then every connected island of nodes on one
// accelerator is kept there only when its estimated compute plus the transfers at its edges
// beats running it on the CPU, so a tiny DSP island between CPU ops stays on the CPU. Every
// fallback and every decision is recorded for `kiln inspect`.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/dsp_options.h"

namespace kiln {

// Declared costs of the executors other than the DSP (whose model is DspCostModel).
struct PlacementCosts {
  DspOptions dsp;                  // scratchpad size and cost model of the DSP
  double cpu_macs_per_us = 16000;  // int8/f32 multiply-accumulates per microsecond, one core
  double cpu_elems_per_us = 4000;  // element operations per microsecond
  double cpu_node_us = 1;          // fixed cost per CPU kernel
  double gpu_macs_per_us = 400000;
  double gpu_elems_per_us = 100000;
  double gpu_node_us = 10;         // kernel launch
  double gpu_bytes_per_us = 8000;  // host <-> GPU copies
  // A value handed between the CPU and the DSP: cache maintenance and signalling (the bytes
  // themselves move by the DSP's own DMA, which its node costs already count).
  double dsp_handoff_us = 15;
};

struct PlacementDecision {
  std::string executor;       // the accelerator that supports the island's nodes
  std::vector<NodeId> nodes;  // the island
  double accel_us = 0;        // compute on the accelerator
  double transfer_us = 0;     // hand-offs / copies at the island's edges
  double cpu_us = 0;          // the same nodes on the CPU
  bool kept = false;          // stays on the accelerator
};

struct PlacementFallback {
  NodeId node = kNoNode;
  std::string executor;  // the preferred executor that cannot run it
  std::string reason;
};

struct CostPlacement {
  std::vector<std::string> placement;  // executor per node; "-" for skipped nodes
  std::vector<PlacementDecision> decisions;
  std::vector<PlacementFallback> fallbacks;
  double estimated_us = 0;     // this placement, by the cost models
  double support_only_us = 0;  // every node on the first executor that supports it
};

// `preference`: executor names in order ("dsp", "opencl", "cpu"); the CPU is appended when
// missing. Nodes marked in `skip` (elided by the memory plan) are not placed.
Expected<CostPlacement> PlaceByCost(const Graph& graph, const std::vector<std::string>& preference,
                                    const PlacementCosts& costs,
                                    const std::vector<bool>& skip = {});

// The estimated time of `graph` under `placement` (node costs plus boundary transfers).
double EstimatePlacementUs(const Graph& graph, const std::vector<std::string>& placement,
                           const PlacementCosts& costs);

// "dsp island of 3 nodes (conv1 .. add2): dsp 12.0 us + transfers 30.0 us vs cpu 8.1 us -> cpu"
std::string DescribeDecision(const Graph& graph, const PlacementDecision& d);

}  // namespace kiln
