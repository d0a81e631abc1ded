// Per-tensor SQNR and cosine of an int8 graph against its float graph.
#include "quantizer/accuracy_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "calibration/observer.h"
#include "calibration/progress.h"

namespace kiln::quant {
namespace {

bool IsQuantizedValue(const Value& v) {
  return (v.dtype == DType::kU8 || v.dtype == DType::kI8 || v.dtype == DType::kI16) &&
         !v.is_constant() && v.quant.scales.size() == 1;
}

// Element i of a tensor as its real value.
double RealValue(const HostTensor& t, const QuantParams& q, int64_t i) {
  switch (t.dtype) {
    case DType::kF32:
      return t.data<float>()[i];
    case DType::kU8:
      return q.scales[0] * (static_cast<double>(t.data<uint8_t>()[i]) - q.zero_points[0]);
    case DType::kI8:
      return q.scales[0] * (static_cast<double>(t.data<int8_t>()[i]) - q.zero_points[0]);
    case DType::kI16:
      return q.scales[0] * (static_cast<double>(t.data<int16_t>()[i]) - q.zero_points[0]);
    default:
      return 0;
  }
}

struct Accum {
  double signal = 0, noise = 0, dot = 0, qq = 0;
};

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

}  // namespace

Expected<AccuracyReport> MeasureAccuracy(const Graph& float_graph, const Graph& quant_graph,
                                         const calib::SampleSource& source,
                                         const std::vector<size_t>& samples, int threads,
                                         bool progress) {
  // Pairs: float value name -> quantized graph value.
  std::map<std::string, ValueId> float_ids;
  for (size_t v = 0; v < float_graph.num_values(); ++v) {
    const Value& val = float_graph.value(static_cast<ValueId>(v));
    if (calib::IsFloatActivation(val)) float_ids[val.name] = static_cast<ValueId>(v);
  }
  std::map<std::string, std::string> counterpart;  // float name -> quant graph name
  for (size_t v = 0; v < quant_graph.num_values(); ++v) {
    const Value& val = quant_graph.value(static_cast<ValueId>(v));
    if (val.producer == kNoNode) continue;
    const Node& p = quant_graph.node(val.producer);
    if (IsQuantizedValue(val) && val.name.size() > 2 &&
        val.name.compare(val.name.size() - 2, 2, ".q") == 0 && p.op != OpType::kQuantizeLinear) {
      const std::string base = val.name.substr(0, val.name.size() - 2);
      if (float_ids.count(base)) counterpart[base] = val.name;
    }
  }
  for (ValueId o : quant_graph.outputs()) {
    const std::string& name = quant_graph.value(o).name;
    if (float_ids.count(name) && !counterpart.count(name)) counterpart[name] = name;
  }
  auto observe_quant = [&](const Value& v) {
    for (const auto& [f, q] : counterpart) {
      if (q == v.name) return true;
    }
    return false;
  };
  auto observe_float = [&](const Value& v) { return counterpart.count(v.name) > 0; };
  KILN_ASSIGN_OR_RETURN(auto fs, calib::ObservedSession::Create(float_graph, observe_float, threads));
  KILN_ASSIGN_OR_RETURN(auto qs, calib::ObservedSession::Create(quant_graph, observe_quant, threads));
  std::map<std::string, size_t> f_index, q_index;
  for (size_t i = 0; i < fs->size(); ++i) f_index[fs->name(i)] = i;
  for (size_t i = 0; i < qs->size(); ++i) q_index[qs->name(i)] = i;
  std::map<std::string, Accum> acc;
  calib::Progress bar("measuring", samples.size(), progress);
  for (size_t s : samples) {
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> inputs, source.Load(s));
    KILN_RETURN_IF_ERROR(fs->Run(inputs));
    KILN_RETURN_IF_ERROR(qs->Run(inputs));
    for (const auto& [fname, qname] : counterpart) {
      auto fi = f_index.find(fname);
      auto qi = q_index.find(qname);
      if (fi == f_index.end() || qi == q_index.end()) continue;
      const HostTensor& ft = fs->tensor(fi->second);
      const HostTensor& qt = qs->tensor(qi->second);
      if (ft.num_elements() != qt.num_elements()) continue;
      const QuantParams& qp = qs->graph().value(*qs->graph().FindValue(qname)).quant;
      Accum& a = acc[fname];
      for (int64_t i = 0; i < ft.num_elements(); ++i) {
        const double f = ft.data<float>()[i];
        const double q = RealValue(qt, qp, i);
        a.signal += f * f;
        a.noise += (q - f) * (q - f);
        a.dot += f * q;
        a.qq += q * q;
      }
    }
    bar.Advance();
  }
  bar.Finish();
  AccuracyReport report;
  report.samples = samples.size();
  std::vector<bool> is_output(float_graph.num_values(), false);
  for (ValueId o : float_graph.outputs()) is_output[static_cast<size_t>(o)] = true;
  for (const auto& [fname, a] : acc) {
    TensorAccuracy t;
    t.name = fname;
    const ValueId fid = float_ids[fname];
    t.model_output = is_output[static_cast<size_t>(fid)];
    const Value& fv = float_graph.value(fid);
    if (fv.producer != kNoNode) t.sources = float_graph.node(fv.producer).sources;
    const auto qid = quant_graph.FindValue(counterpart[fname]);
    if (qid && quant_graph.value(*qid).producer != kNoNode) {
      const Node& p = quant_graph.node(quant_graph.value(*qid).producer);
      t.op = std::string(OpTypeName(p.op));
      for (ValueId in : p.inputs) {
        if (in == kNoValue) continue;
        const std::string& n = quant_graph.value(in).name;
        if (n.size() > 2 && n.compare(n.size() - 2, 2, ".q") == 0) t.inputs.push_back(n.substr(0, n.size() - 2));
      }
      // The ops reading the quantized tensor (a DequantizeLinear feeds float readers, which do
      // not need it quantized).
      std::set<std::string> readers;
      for (const Node& n : quant_graph.nodes()) {
        if (n.op == OpType::kDequantizeLinear) continue;
        if (std::find(n.inputs.begin(), n.inputs.end(), *qid) == n.inputs.end()) continue;
        readers.insert(n.sources.begin(), n.sources.end());
        if (n.sources.empty() && !n.name.empty()) readers.insert(n.name);
      }
      t.readers.assign(readers.begin(), readers.end());
    }
    t.sqnr_db = a.noise > 0 ? 10 * std::log10(a.signal / a.noise)
                            : std::numeric_limits<double>::infinity();
    t.cosine = a.signal > 0 && a.qq > 0 ? a.dot / std::sqrt(a.signal * a.qq) : 1.0;
    report.tensors.push_back(std::move(t));
  }
  std::stable_sort(report.tensors.begin(), report.tensors.end(),
                   [](const TensorAccuracy& x, const TensorAccuracy& y) { return x.sqnr_db < y.sqnr_db; });
  return report;
}

std::string FormatReportText(const AccuracyReport& report) {
  std::ostringstream os;
  os << "# int8 vs float on " << report.samples << " held-back sample(s); worst SQNR first\n";
  char line[512];
  std::snprintf(line, sizeof(line), "%9s %9s  %-20s %-40s %s\n", "sqnr_db", "cosine", "op",
                "tensor", "source nodes");
  os << line;
  for (const TensorAccuracy& t : report.tensors) {
    std::string sources;
    for (const auto& s : t.sources) sources += (sources.empty() ? "" : ",") + s;
    std::snprintf(line, sizeof(line), "%9.2f %9.6f  %-20s %-40s %s%s\n", t.sqnr_db, t.cosine,
                  t.op.c_str(), t.name.c_str(), sources.c_str(), t.model_output ? "  [output]" : "");
    os << line;
  }
  return os.str();
}

std::string FormatReportJson(const AccuracyReport& report) {
  std::ostringstream os;
  os << "{\"samples\": " << report.samples << ", \"tensors\": [";
  for (size_t i = 0; i < report.tensors.size(); ++i) {
    const TensorAccuracy& t = report.tensors[i];
    os << (i ? ",\n  " : "\n  ") << "{\"tensor\": \"" << JsonEscape(t.name) << "\", \"op\": \""
       << t.op << "\", \"sqnr_db\": ";
    if (std::isfinite(t.sqnr_db)) {
      os << t.sqnr_db;
    } else {
      os << "null";
    }
    os << ", \"cosine\": " << t.cosine << ", \"output\": " << (t.model_output ? "true" : "false")
       << ", \"sources\": [";
    for (size_t k = 0; k < t.sources.size(); ++k) {
      os << (k ? ", " : "") << "\"" << JsonEscape(t.sources[k]) << "\"";
    }
    os << "]}";
  }
  os << "\n]}\n";
  return os.str();
}

}  // namespace kiln::quant

namespace kiln::quant {
namespace {

// Class probabilities of a score vector: itself when it already is a distribution, else its
// softmax.
std::vector<double> Probabilities(const HostTensor& t) {
  const int64_t n = t.num_elements();
  const float* x = t.data<float>();
  double sum = 0, mn = 0, mx = -1e300;
  for (int64_t i = 0; i < n; ++i) {
    sum += x[i];
    mn = std::min<double>(mn, x[i]);
    mx = std::max<double>(mx, x[i]);
  }
  std::vector<double> p(static_cast<size_t>(n));
  if (mn >= 0 && std::fabs(sum - 1) < 1e-3) {
    for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = x[i];
    return p;
  }
  double z = 0;
  for (int64_t i = 0; i < n; ++i) z += p[static_cast<size_t>(i)] = std::exp(x[i] - mx);
  for (double& v : p) v /= z;
  return p;
}

bool LooksLikeScores(const Shape& s) {
  int64_t big = 0, n = 1;
  for (int64_t d : s) {
    n *= d;
    if (d > 1) ++big;
  }
  return big == 1 && n >= 10;
}

}  // namespace

Expected<double> PredictionDivergence(const Graph& float_graph, const Graph& quant_graph,
                                      const calib::SampleSource& source,
                                      const std::vector<size_t>& samples, int threads) {
  SessionOptions so;
  so.num_threads = threads;
  KILN_ASSIGN_OR_RETURN(auto fs, Session::Create(std::make_shared<const Graph>(float_graph), so));
  KILN_ASSIGN_OR_RETURN(auto qs, Session::Create(std::make_shared<const Graph>(quant_graph), so));
  double total = 0;
  for (size_t s : samples) {
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> in, source.Load(s));
    KILN_ASSIGN_OR_RETURN(auto fo, fs->Run(in));
    KILN_ASSIGN_OR_RETURN(auto qo, qs->Run(in));
    for (size_t o = 0; o < fo.size() && o < qo.size(); ++o) {
      if (fo[o].dtype != DType::kF32 || qo[o].dtype != DType::kF32 ||
          fo[o].num_elements() != qo[o].num_elements()) {
        continue;
      }
      if (LooksLikeScores(fo[o].shape)) {
        const auto p = Probabilities(fo[o]), q = Probabilities(qo[o]);
        double kl = 0;
        for (size_t i = 0; i < p.size(); ++i) {
          if (p[i] > 0) kl += p[i] * std::log(p[i] / std::max(q[i], 1e-12));
        }
        total += kl;
      } else {
        double sig = 0, err = 0;
        for (int64_t i = 0; i < fo[o].num_elements(); ++i) {
          const double f = fo[o].data<float>()[i], q = qo[o].data<float>()[i];
          sig += f * f;
          err += (q - f) * (q - f);
        }
        total += sig > 0 ? err / sig : err;
      }
    }
  }
  return samples.empty() ? 0.0 : total / static_cast<double>(samples.size());
}

}  // namespace kiln::quant
