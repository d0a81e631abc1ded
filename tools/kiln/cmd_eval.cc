// kiln eval MODEL --images DIR --labels FILE --preprocess SPEC [--compare OTHER] [--json]:
// top-1/top-5 accuracy of a model (.onnx or .kiln) on a labelled image set, and with --compare
// the other model's accuracy and the top-1 agreement of the two. --shard I/N --partial FILE
// evaluates every N-th image and writes per-image results; --merge FILE... combines partial
// files into exactly the figures of one pass.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "calibration/progress.h"
#include "quantizer/quantize_driver.h"
#include "serializer/signing.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/eval_set.h"
#include "tools/kiln/session_setup.h"

namespace kiln::cli {
namespace {

struct EvalArgs {
  std::string model, compare, images, labels, preprocess, shard, partial, isa = "auto";
  std::vector<std::string> merge;
  int count = 0, threads = 1;
  bool json = false, quiet = false;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

// One image's result: its label and both models' top-5.
struct Record {
  size_t index = 0;
  int label = -1;
  std::vector<int> top5, compare_top5;
};

struct Totals {
  size_t count = 0, labelled = 0, top1 = 0, top5 = 0, ctop1 = 0, ctop5 = 0, agree = 0;
  bool compare = false;
};

Totals Summarize(const std::vector<Record>& records, bool compare) {
  Totals t;
  t.compare = compare;
  for (const Record& r : records) {
    ++t.count;
    auto hit = [&](const std::vector<int>& top, size_t k) {
      for (size_t i = 0; i < std::min(k, top.size()); ++i) {
        if (top[i] == r.label) return true;
      }
      return false;
    };
    if (r.label >= 0) {
      ++t.labelled;
      t.top1 += hit(r.top5, 1);
      t.top5 += hit(r.top5, 5);
      if (compare) {
        t.ctop1 += hit(r.compare_top5, 1);
        t.ctop5 += hit(r.compare_top5, 5);
      }
    }
    if (compare && !r.top5.empty() && !r.compare_top5.empty())
      t.agree += r.top5[0] == r.compare_top5[0];
  }
  return t;
}

double Frac(size_t a, size_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

void Print(const Totals& t, const EvalArgs& a) {
  if (a.json) {
    std::printf("{\"count\": %zu, \"top1\": %.6f, \"top5\": %.6f", t.count,
                Frac(t.top1, t.labelled), Frac(t.top5, t.labelled));
    if (t.compare) {
      std::printf(", \"compare\": {\"top1\": %.6f, \"top5\": %.6f, \"agreement_top1\": %.6f}",
                  Frac(t.ctop1, t.labelled), Frac(t.ctop5, t.labelled), Frac(t.agree, t.count));
    }
    std::printf("}\n");
    return;
  }
  std::printf("%s: %zu images (%zu labelled)\n", a.model.empty() ? "merged" : a.model.c_str(),
              t.count, t.labelled);
  std::printf("  top-1 %.2f %%  top-5 %.2f %%\n", 100 * Frac(t.top1, t.labelled),
              100 * Frac(t.top5, t.labelled));
  if (t.compare) {
    std::printf("%s:\n  top-1 %.2f %%  top-5 %.2f %%\n",
                a.compare.empty() ? "compare" : a.compare.c_str(), 100 * Frac(t.ctop1, t.labelled),
                100 * Frac(t.ctop5, t.labelled));
    std::printf("top-1 agreement %.2f %% (%zu/%zu)\n", 100 * Frac(t.agree, t.count), t.agree,
                t.count);
  }
}

std::string IntList(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// Partial files: a header line with the key, then one line per image:
// "<index> <label> <top5 comma list> <compare top5 comma list or ->".
Status WritePartial(const std::string& path, const std::string& key, const std::vector<Record>& rs,
                    bool compare) {
  std::ofstream f(path + ".tmp");
  if (!f) return InvalidArgument("--partial '" + path + "': cannot write");
  f << "kiln-eval-partial 1 " << (compare ? "compare" : "single") << " " << key << "\n";
  for (const Record& r : rs) {
    f << r.index << " " << r.label << " " << IntList(r.top5) << " "
      << (compare ? IntList(r.compare_top5) : "-") << "\n";
  }
  f.close();
  if (!f || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    return InvalidArgument("--partial '" + path + "': cannot write");
  }
  return Status::Ok();
}

Expected<std::vector<int>> ParseList(const std::string& s) {
  std::vector<int> out;
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return InvalidArgument("bad list");
  std::stringstream ss(s.substr(1, s.size() - 2));
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty() || item.size() > 9 ||
        item.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("bad list item");
    }
    out.push_back(std::stoi(item));
  }
  return out;
}

Status Merge(const EvalArgs& a) {
  std::string key, mode;
  std::map<size_t, Record> all;
  for (const std::string& path : a.merge) {
    std::ifstream f(path);
    if (!f) return NotFound("--merge '" + path + "' not found");
    std::string magic, version, m, k;
    f >> magic >> version >> m >> k;
    if (magic != "kiln-eval-partial" || version != "1") {
      return InvalidArgument("--merge '" + path + "' is not a kiln eval partial file");
    }
    if (key.empty()) {
      key = k;
      mode = m;
    } else if (k != key || m != mode) {
      return InvalidArgument("--merge '" + path +
                             "' is of another model, image set or preprocessing");
    }
    size_t index;
    std::string label, top, ctop;
    while (f >> index >> label >> top >> ctop) {
      Record r;
      r.index = index;
      r.label = std::stoi(label);
      KILN_ASSIGN_OR_RETURN(r.top5, ParseList(top));
      if (ctop != "-") {
        KILN_ASSIGN_OR_RETURN(r.compare_top5, ParseList(ctop));
      }
      if (!all.emplace(index, std::move(r)).second) {
        return InvalidArgument("image " + std::to_string(index) + " appears in two partial files");
      }
    }
  }
  std::vector<Record> records;
  for (auto& [i, r] : all) records.push_back(std::move(r));
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].index != i) {
      return InvalidArgument("the partial files miss image " + std::to_string(i) + " (a shard?)");
    }
  }
  Print(Summarize(records, mode == "compare"), a);
  return Status::Ok();
}

Expected<std::string> ModelKey(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string sha, signing::Sha256FileHex(path));
  return sha.substr(0, 16);
}

Status Eval(EvalArgs& a) {
  if (!a.merge.empty()) return Merge(a);
  if (a.model.empty() || a.images.empty()) {
    return InvalidArgument("give MODEL and --images DIR (or --merge FILES)");
  }
  KILN_RETURN_IF_ERROR(ParseInputShapes(a.raw_shapes, &a.source));
  KILN_ASSIGN_OR_RETURN(PreprocessSpec spec, ParsePreprocessSpec(a.preprocess));
  KILN_ASSIGN_OR_RETURN(Isa isa, ParseIsa(a.isa));
  a.source.compile.target_isa = isa;
  std::pair<int, int> shard{0, 1};
  if (!a.shard.empty()) {
    auto parsed = quant::ParseShard(a.shard);
    if (!parsed.ok()) return parsed.status().WithContext("--shard");
    shard = *parsed;
    if (a.partial.empty())
      return InvalidArgument("--shard writes per-image results: give --partial FILE");
  }
  KILN_ASSIGN_OR_RETURN(LoadedModel model, LoadModel(a.model, a.source));
  std::vector<calib::SampleInput> inputs;
  for (ValueId id : model.graph->inputs()) {
    const Value& v = model.graph->value(id);
    inputs.push_back({v.name, v.dtype, v.shape});
  }
  KILN_ASSIGN_OR_RETURN(auto set, OpenEvalSet(a.images, a.labels, spec, inputs));
  KILN_ASSIGN_OR_RETURN(auto session, CreateSession(model, isa, a.threads));
  std::unique_ptr<Session> other;
  if (!a.compare.empty()) {
    KILN_ASSIGN_OR_RETURN(LoadedModel cm, LoadModel(a.compare, a.source));
    KILN_ASSIGN_OR_RETURN(other, CreateSession(cm, isa, a.threads));
  }
  size_t n = set->source->size();
  if (a.count > 0) n = std::min(n, static_cast<size_t>(a.count));
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  const std::vector<size_t> mine = quant::ShardOf(all, shard.first, shard.second);
  std::vector<Record> records;
  calib::Progress progress("evaluating", mine.size(), !a.quiet && !a.json);
  for (size_t i : mine) {
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> in, set->source->Load(i));
    Record r;
    r.index = i;
    r.label = set->labels[i];
    KILN_ASSIGN_OR_RETURN(auto out, session->Run(in));
    if (out.empty() || out[0].dtype != DType::kF32)
      return InvalidArgument("the model's first output is not float");
    r.top5 = TopIndices(out[0], 5);
    if (other) {
      KILN_ASSIGN_OR_RETURN(auto co, other->Run(in));
      if (co.empty() || co[0].dtype != DType::kF32)
        return InvalidArgument("--compare model's first output is not float");
      r.compare_top5 = TopIndices(co[0], 5);
    }
    records.push_back(std::move(r));
    progress.Advance();
  }
  progress.Finish();
  if (!a.partial.empty()) {
    std::string ids;
    for (size_t i = 0; i < n; ++i) ids += set->source->id(i) + "\n";
    const auto digest = signing::Sha256(ids.data(), ids.size());
    char hex[17];
    for (int i = 0; i < 8; ++i)
      std::snprintf(hex + 2 * i, 3, "%02x", digest[static_cast<size_t>(i)]);
    KILN_ASSIGN_OR_RETURN(std::string mk, ModelKey(a.model));
    std::string key = mk + ":" + hex + ":" + std::to_string(n);
    if (other) {
      KILN_ASSIGN_OR_RETURN(std::string ck, ModelKey(a.compare));
      key += ":" + ck;
    }
    key += ":" + std::to_string(std::hash<std::string>{}(
                     a.preprocess + "|" + a.labels.substr(a.labels.find_last_of('/') + 1)));
    KILN_RETURN_IF_ERROR(WritePartial(a.partial, key, records, other != nullptr));
    if (!a.json) {
      std::printf("wrote %s (%zu of %zu images, shard %d/%d)\n", a.partial.c_str(), records.size(),
                  n, shard.first, shard.second);
    }
    if (!a.shard.empty()) return Status::Ok();
  }
  Print(Summarize(records, other != nullptr), a);
  return Status::Ok();
}

}  // namespace

void RegisterEval(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "eval", "Top-1/top-5 accuracy on labelled images; agreement of two models");
  auto a = std::make_shared<EvalArgs>();
  cmd->add_option("model", a->model, "Model (.onnx or .kiln)");
  cmd->add_option("--images", a->images, "Folder of images (or an MNIST idx image file)");
  cmd->add_option(
      "--labels", a->labels,
      "labels.txt ('<relative path> <class index> [synset]' lines) or an idx label file");
  cmd->add_option("--preprocess", a->preprocess,
                  "Image preprocessing SPEC (docs/preprocessing.md)");
  cmd->add_option("--compare", a->compare, "A second model: its accuracy and top-1 agreement");
  cmd->add_option("--count", a->count, "Evaluate the first N images only");
  cmd->add_flag("--json", a->json,
                "Print {\"count\", \"top1\", \"top5\", \"compare\": {\"top1\", \"top5\", "
                "\"agreement_top1\"}} (fractions)");
  cmd->add_option("--shard", a->shard, "Evaluate only shard I of N (every N-th image from I)");
  cmd->add_option("--partial", a->partial, "Write the per-image results here (for --merge)");
  cmd->add_option("--merge", a->merge, "Combine partial files into the figures of one pass")
      ->expected(1, -1);
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  AddIsaFlag(*cmd, &a->isa);
  AddThreadsFlag(*cmd, &a->threads);
  AddModelSourceFlags(*cmd, &a->source, &a->raw_shapes);
  cmd->callback([a, exit_code] { RunCommand("eval", exit_code, [&] { return Eval(*a); }); });
}

}  // namespace kiln::cli
