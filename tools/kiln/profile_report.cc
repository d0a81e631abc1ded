// Profile tables: rows from the session's node profile, MACs from the graph.
#include "tools/kiln/profile_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "compiler/model_stats.h"
#include "tools/kiln/cli_util.h"

namespace kiln::cli {
namespace {

double Gmacs(int64_t macs, double ms) { return ms > 0 ? static_cast<double>(macs) / (ms * 1e6) : 0; }

std::string Joined(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
  return s;
}

std::string Clip(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

}  // namespace

ProfileReport BuildProfileReport(const Graph& graph, const std::vector<NodeProfile>& profile) {
  ProfileReport r;
  std::map<std::string, const Node*> by_name;
  for (const Node& n : graph.nodes()) by_name[n.name] = &n;
  for (const NodeProfile& p : profile) {
    OpProfileRow row;
    row.type = std::string(OpTypeName(p.op));
    row.name = p.node;
    row.executor = p.executor;
    row.avg_ms = p.runs ? p.total_ms / static_cast<double>(p.runs) : 0;
    if (auto it = by_name.find(p.node); it != by_name.end()) {
      const Node& n = *it->second;
      row.sources = n.sources;
      row.macs = std::max<int64_t>(0, NodeMacs(graph, n));
      if (!n.outputs.empty() && n.outputs[0] != kNoValue) {
        row.output_shape = ShapeToString(graph.value(n.outputs[0]).shape);
      }
    }
    r.total_ms += row.avg_ms;
    r.ops.push_back(std::move(row));
  }
  double cdf = 0;
  std::map<std::string, OpTypeSummary> types;
  for (OpProfileRow& row : r.ops) {
    row.percent = r.total_ms > 0 ? 100.0 * row.avg_ms / r.total_ms : 0;
    cdf += row.percent;
    row.cdf_percent = cdf;
    row.gmacs_per_s = Gmacs(row.macs, row.avg_ms);
    OpTypeSummary& t = types[row.type];
    t.type = row.type;
    t.count++;
    t.ms += row.avg_ms;
    t.macs += row.macs;
  }
  for (auto& [name, t] : types) {
    t.percent = r.total_ms > 0 ? 100.0 * t.ms / r.total_ms : 0;
    t.gmacs_per_s = Gmacs(t.macs, t.ms);
    r.by_type.push_back(t);
  }
  std::sort(r.by_type.begin(), r.by_type.end(),
            [](const OpTypeSummary& a, const OpTypeSummary& b) { return a.ms > b.ms; });
  return r;
}

std::string FormatProfileText(const ProfileReport& r, size_t slowest) {
  std::ostringstream os;
  char line[512];
  auto row_line = [&](size_t i, const OpProfileRow& o) {
    std::snprintf(line, sizeof(line), "%4zu  %-18s %-24s %-28s %9.4f %6.2f %6.2f %12s %8.2f  %s\n", i,
                  Clip(o.type, 18).c_str(), Clip(o.name, 24).c_str(),
                  Clip(Joined(o.sources), 28).c_str(), o.avg_ms, o.percent, o.cdf_percent,
                  GroupDigits(o.macs).c_str(), o.gmacs_per_s, o.output_shape.c_str());
    os << line;
  };
  const char* header = "%4s  %-18s %-24s %-28s %9s %6s %6s %12s %8s  %s\n";
  std::snprintf(line, sizeof(line), header, "#", "type", "name", "ONNX sources", "avg ms", "%",
                "cdf %", "MACs", "GMAC/s", "output");
  os << "ops in run order:\n" << line;
  for (size_t i = 0; i < r.ops.size(); ++i) row_line(i, r.ops[i]);
  std::vector<size_t> order(r.ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return r.ops[a].avg_ms > r.ops[b].avg_ms; });
  std::snprintf(line, sizeof(line), header, "#", "type", "name", "ONNX sources", "avg ms", "%",
                "cdf %", "MACs", "GMAC/s", "output");
  os << "\nthe " << std::min(slowest, order.size()) << " slowest ops:\n" << line;
  for (size_t k = 0; k < order.size() && k < slowest; ++k) row_line(order[k], r.ops[order[k]]);
  std::snprintf(line, sizeof(line), "%-20s %6s %10s %7s %14s %8s\n", "op type", "count", "ms",
                "%", "MACs", "GMAC/s");
  os << "\nby op type:\n" << line;
  for (const OpTypeSummary& t : r.by_type) {
    std::snprintf(line, sizeof(line), "%-20s %6lld %10.4f %7.2f %14s %8.2f\n", t.type.c_str(),
                  static_cast<long long>(t.count), t.ms, t.percent, GroupDigits(t.macs).c_str(),
                  t.gmacs_per_s);
    os << line;
  }
  std::snprintf(line, sizeof(line), "%-20s %6zu %10.4f\n", "total", r.ops.size(), r.total_ms);
  os << line;
  return os.str();
}

std::string FormatProfileJson(const ProfileReport& r) {
  std::ostringstream os;
  os << "{\"total_ms\": " << JsonNumber(r.total_ms) << ", \"ops\": [";
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const OpProfileRow& o = r.ops[i];
    os << (i ? ", " : "") << "{\"type\": " << JsonString(o.type) << ", \"name\": " << JsonString(o.name)
       << ", \"executor\": " << JsonString(o.executor) << ", \"sources\": [";
    for (size_t k = 0; k < o.sources.size(); ++k) os << (k ? ", " : "") << JsonString(o.sources[k]);
    os << "], \"avg_ms\": " << JsonNumber(o.avg_ms) << ", \"percent\": " << JsonNumber(o.percent)
       << ", \"cdf_percent\": " << JsonNumber(o.cdf_percent) << ", \"macs\": " << o.macs
       << ", \"gmacs_per_s\": " << JsonNumber(o.gmacs_per_s)
       << ", \"output_shape\": " << JsonString(o.output_shape) << "}";
  }
  os << "], \"by_type\": [";
  for (size_t i = 0; i < r.by_type.size(); ++i) {
    const OpTypeSummary& t = r.by_type[i];
    os << (i ? ", " : "") << "{\"type\": " << JsonString(t.type) << ", \"count\": " << t.count
       << ", \"ms\": " << JsonNumber(t.ms) << ", \"percent\": " << JsonNumber(t.percent)
       << ", \"macs\": " << t.macs << ", \"gmacs_per_s\": " << JsonNumber(t.gmacs_per_s) << "}";
  }
  os << "]}";
  return os.str();
}

}  // namespace kiln::cli
