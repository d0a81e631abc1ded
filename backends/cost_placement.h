// Cost-aware placement over an ordered backend preference (--device dsp,gpu,cpu): nodes first go
// to the first backend that claims them; then every connected island of nodes on one
// accelerator is kept there only when its estimated compute plus the transfers at its edges
// beats running it on the CPU, so a tiny DSP island between CPU ops stays on the CPU. Costs are
// the backends' own (Backend::Claim, Backend::TransferUs). Every fallback and every decision is
// recorded for `kiln inspect`.
#pragma once

#include <string>
#include <vector>

#include "backends/backend_options.h"
#include "ir/graph.h"

namespace kiln {

// Rough work of a node, for backends' cost estimates: the multiply-accumulates of the linear
// ops (Conv, Gemm, MatMul and their fused and quantized forms), else one element operation per
// output element.
struct NodeWork {
  double macs = 0, elems = 0;
};
NodeWork EstimateNodeWork(const Graph& graph, const Node& node);

struct PlacementDecision {
  std::string executor;       // the accelerator that claims the island's nodes
  std::vector<NodeId> nodes;  // the island
  double accel_us = 0;        // compute on the accelerator
  double transfer_us = 0;     // hand-offs / copies at the island's edges
  double cpu_us = 0;          // the same nodes on the CPU
  bool kept = false;          // stays on the accelerator
};

struct PlacementFallback {
  NodeId node = kNoNode;
  std::string executor;  // the preferred backend that cannot run it
  std::string reason;
};

struct CostPlacement {
  std::vector<std::string> placement;  // executor per node; "-" for skipped nodes
  std::vector<PlacementDecision> decisions;
  std::vector<PlacementFallback> fallbacks;
  double estimated_us = 0;     // this placement, by the cost models
  double support_only_us = 0;  // every node on the first backend that claims it
};

// `preference`: backend names in order ("dsp", "opencl", "cpu"; aliases and "name:N" devices
// as SessionOptions::executors takes them); the CPU is appended when missing. A node no backend
// claims is placed on the CPU, whose session then names it. `options`: the backends' own
// (their scratchpads, cost models). Nodes marked in `skip` (elided by the memory plan) are not
// placed.
Expected<CostPlacement> PlaceByCost(const Graph& graph, const std::vector<std::string>& preference,
                                    const BackendOptions& options,
                                    const std::vector<bool>& skip = {});

// The estimated time of `graph` under `placement` (node costs plus boundary transfers).
double EstimatePlacementUs(const Graph& graph, const std::vector<std::string>& placement,
                           const BackendOptions& options);

// "dsp island of 3 nodes (conv1 .. add2): dsp 12.0 us + transfers 30.0 us vs cpu 8.1 us -> cpu"
std::string DescribeDecision(const Graph& graph, const PlacementDecision& d);

}  // namespace kiln
