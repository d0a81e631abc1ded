// Per-op profile tables of `kiln bench --profile` (MACE style): every op in run order with its
// ONNX sources, time, share, cumulative share, MACs and GMAC/s; the slowest ops; a summary by
// op type. Text and JSON from the same rows.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/session.h"

namespace kiln::cli {

struct OpProfileRow {
  std::string type, name, executor, output_shape;
  std::vector<std::string> sources;
  double avg_ms = 0;
  double percent = 0;
  double cdf_percent = 0;
  int64_t macs = 0;
  double gmacs_per_s = 0;
};

struct OpTypeSummary {
  std::string type;
  int64_t count = 0;
  double ms = 0;
  double percent = 0;
  int64_t macs = 0;
  double gmacs_per_s = 0;
};

struct ProfileReport {
  std::vector<OpProfileRow> ops;  // run order
  std::vector<OpTypeSummary> by_type;  // slowest type first
  double total_ms = 0;
};

// Builds the report from a session's per-node profile (summed over runs).
ProfileReport BuildProfileReport(const Graph& graph, const std::vector<NodeProfile>& profile);
std::string FormatProfileText(const ProfileReport& report, size_t slowest = 10);
std::string FormatProfileJson(const ProfileReport& report);

}  // namespace kiln::cli
