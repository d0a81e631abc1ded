// kiln quantize MODEL.onnx --calib PATH -o OUT.kiln: post-training int8 quantization. The flags
// (and the deploy file of --config) become a quant::QuantizeRequest; quant::Quantize
// (quantizer/quantize.h) does the work; this file prints its steps, writes the --report file and
// the (signed) .kiln file. docs/quantization.md describes every flag.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "backends/dsp/dsp_options.h"
#include "calibration/image_preprocess.h"
#include "quantizer/accuracy_budget.h"
#include "quantizer/accuracy_report.h"
#include "quantizer/quantize.h"
#include "quantizer/quantize_driver.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/deploy_config.h"
#include "tools/kiln/identity_flags.h"
#include "tools/kiln/kiln_output.h"
#include "tools/kiln/model_source.h"
#include "tools/kiln/session_setup.h"

namespace kiln::cli {
namespace {

struct QuantizeArgs {
  std::string model, out, calib, preprocess, algo = "auto", act = "asym-u8",
                                             weights = "per-channel";
  std::string report, config, sign_key, compress = "none", target = "cpu";
  std::string dsp_scratch;
  std::string shard, stats_out, stats_in, budget, budget_images;
  std::vector<std::string> merge_stats, keep_float, int16, raw_shapes, disabled_passes;
  int calib_count = 0, holdout = -1, threads = 1;
  double max_sqnr_drop = -1;
  bool equalize = false, bias_correct = false, verbose = false, quiet = false;
  bool budget_float = false;
  ModelIdentityArgs identity;  // --model-id, --model-version, --not-before, --not-after
};

// Fills what the command line left unset from the deploy file.
Status ApplyConfig(QuantizeArgs& a, const CLI::App& cmd) {
  if (a.config.empty()) return Status::Ok();
  KILN_ASSIGN_OR_RETURN(DeployConfig c, ReadDeployConfig(a.config));
  auto unset = [&](const char* flag) { return cmd.count(flag) == 0; };
  auto take = [&](const char* flag, std::string& dst, const std::optional<std::string>& v) {
    if (v && unset(flag)) dst = *v;
  };
  if (c.model && a.model.empty()) a.model = *c.model;
  take("--out", a.out, c.output);
  take("--preprocess", a.preprocess, c.preprocess);
  take("--calib", a.calib, c.calib);
  take("--algo", a.algo, c.algo);
  take("--act", a.act, c.act);
  take("--weights", a.weights, c.weights);
  take("--report", a.report, c.report);
  take("--budget", a.budget, c.budget);
  take("--budget-images", a.budget_images, c.budget_images);
  take("--sign-key", a.sign_key, c.sign_key);
  take("--compress", a.compress, c.compress);
  take("--stats", a.stats_in, c.stats);
  take("--stats-out", a.stats_out, c.stats_out);
  if (c.calib_count && unset("--calib-count")) a.calib_count = *c.calib_count;
  if (c.holdout && unset("--holdout")) a.holdout = *c.holdout;
  if (c.threads && unset("--threads")) a.threads = *c.threads;
  if (c.max_sqnr_drop && unset("--max-sqnr-drop")) a.max_sqnr_drop = *c.max_sqnr_drop;
  if (c.equalize && unset("--equalize")) a.equalize = *c.equalize;
  if (c.bias_correct && unset("--bias-correct")) a.bias_correct = *c.bias_correct;
  if (unset("--keep-float")) a.keep_float = c.keep_float;
  if (unset("--int16")) a.int16 = c.int16;
  if (unset("--input-shape")) {
    for (const auto& [name, dims] : c.input_shapes) {
      std::string s = name + "=";
      for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
      a.raw_shapes.push_back(s);
    }
  }
  return Status::Ok();
}

Expected<quant::QuantizeConfig> MakeConfig(const QuantizeArgs& a) {
  quant::QuantizeConfig c;
  if (a.algo != "auto") {
    auto range = quant::ParseRangeSpec(a.algo);
    if (!range.ok()) return range.status().WithContext("--algo");
    c.range = *range;
  }
  if (a.act == "asym-u8") {
    c.act = quant::ActMode::kAsymU8;
  } else if (a.act == "sym-i8") {
    c.act = quant::ActMode::kSymI8;
  } else if (a.act == "sym-i16") {
    c.act = quant::ActMode::kSymI16;
  } else {
    return InvalidArgument("--act '" + a.act + "': expected asym-u8, sym-i8 or sym-i16");
  }
  if (a.weights != "per-channel" && a.weights != "per-tensor") {
    return InvalidArgument("--weights '" + a.weights + "': expected per-channel or per-tensor");
  }
  c.per_channel_weights = a.weights == "per-channel";
  c.bias_correct = a.bias_correct;
  auto split = [](const std::vector<std::string>& lists, std::set<std::string>& out) {
    for (const std::string& list : lists) {
      std::stringstream ss(list);
      std::string node;
      while (std::getline(ss, node, ',')) {
        if (!node.empty()) out.insert(node);
      }
    }
  };
  split(a.keep_float, c.keep_float);
  split(a.int16, c.int16_nodes);
  return c;
}

// Node counts of the compiled int8 graph: integer ops, float ops, Q/DQ at the edges.
std::string Composition(const Graph& g) {
  int integer = 0, floating = 0, edges = 0;
  for (const Node& n : g.nodes()) {
    if (n.op == OpType::kQuantizeLinear || n.op == OpType::kDequantizeLinear) {
      ++edges;
    } else if (!n.outputs.empty() && n.outputs[0] != kNoValue &&
               g.value(n.outputs[0]).dtype == DType::kF32) {
      ++floating;
    } else {
      ++integer;
    }
  }
  return std::to_string(integer) + " integer, " + std::to_string(floating) + " float, " +
         std::to_string(edges) + " quantize/dequantize";
}

// The compile options of --target, --dsp-scratch, --equalize and --disable-pass.
Expected<CompileOptions> CompileOptionsOf(const QuantizeArgs& a) {
  CompileOptions options;
  options.equalize = a.equalize;
  options.disabled_passes.insert(a.disabled_passes.begin(), a.disabled_passes.end());
  KILN_RETURN_IF_ERROR(CheckCompileFlags(options));
  if (a.target == "cpu") {
    options.target_isa = kBestCpuIsa;
  } else if (a.target == "reference" || a.target == "dsp") {
    options.target_isa = Isa::kReference;  // the DSP reads plain weights
  } else {
    return InvalidArgument("--target '" + a.target + "': expected cpu, dsp or reference");
  }
  if (!a.dsp_scratch.empty() && a.target != "dsp") {
    return InvalidArgument("--dsp-scratch needs --target dsp");
  }
  if (a.target == "dsp") {
    options.target_backend = kExecutorDsp;
    DeviceArgs scratch;
    scratch.dsp_scratch = a.dsp_scratch;
    KILN_ASSIGN_OR_RETURN(options.backend_options.Mutable<DspOptions>().scratch_bytes,
                          scratch.DspScratchBytes());
  }
  return options;
}

// --max-sqnr-drop, else --budget (none when neither is given).
Expected<quant::BudgetSpec> BudgetOf(const QuantizeArgs& a) {
  quant::BudgetSpec budget;
  if (a.max_sqnr_drop >= 0) {
    budget.kind = quant::BudgetSpec::kSqnrDrop;
    budget.value = a.max_sqnr_drop;
  } else if (!a.budget.empty()) {
    auto parsed = quant::ParseBudget(a.budget);
    if (!parsed.ok()) return parsed.status().WithContext("--budget");
    budget = *parsed;
  }
  return budget;
}

// The request of the flags. What the flags alone decide is refused here, naming the flags (the
// library would refuse the same by its field names).
Expected<quant::QuantizeRequest> RequestOf(const QuantizeArgs& a) {
  quant::QuantizeRequest r;
  r.model = a.model;
  KILN_ASSIGN_OR_RETURN(r.config, MakeConfig(a));
  r.auto_range = a.algo == "auto";
  KILN_RETURN_IF_ERROR(ParsePreprocessSpec(a.preprocess).status());
  r.preprocess = a.preprocess;
  if (!a.shard.empty()) {
    auto parsed = quant::ParseShard(a.shard);
    if (!parsed.ok()) return parsed.status().WithContext("--shard");
    r.shard = quant::Shard{parsed->first, parsed->second};
    if (a.stats_out.empty()) return InvalidArgument("--shard writes statistics: give --stats-out");
  }
  if (!r.shard && a.out.empty() && a.stats_out.empty()) {
    return InvalidArgument("give -o OUT.kiln (or --stats-out FILE)");
  }
  if (a.threads < 1) return InvalidArgument("--threads must be at least 1");
  ModelSourceOptions source;
  KILN_RETURN_IF_ERROR(ParseInputShapes(a.raw_shapes, &source));
  for (const std::string& raw : a.raw_shapes) {  // in the order given: the statistics key's
    const std::string name = raw.substr(0, raw.rfind('='));
    r.input_shapes.emplace_back(name, source.input_shapes.at(name));
  }
  KILN_ASSIGN_OR_RETURN(r.options, CompileOptionsOf(a));

  r.samples = a.calib;
  r.sample_count = a.calib_count;
  r.holdout = a.holdout;
  if (!a.stats_in.empty()) r.stats_files.push_back(a.stats_in);
  r.stats_files.insert(r.stats_files.end(), a.merge_stats.begin(), a.merge_stats.end());
  r.stats_out = a.stats_out;
  r.compile = !a.out.empty();
  r.accuracy_report = !a.report.empty();
  const bool measure = r.accuracy_report || a.max_sqnr_drop >= 0 || !a.budget.empty();
  if (a.calib.empty() && (r.stats_files.empty() || measure)) {
    return InvalidArgument("give --calib PATH (calibration data)");
  }
  const bool compiles = r.compile && !r.shard;
  if (compiles && r.auto_range && r.config.act != quant::ActMode::kSymI16 && a.calib.empty()) {
    return InvalidArgument("--algo auto measures on calibration samples: give --calib");
  }
  KILN_ASSIGN_OR_RETURN(r.budget, BudgetOf(a));
  if (compiles && r.budget.kind == quant::BudgetSpec::kTop1 && a.budget_images.empty()) {
    return InvalidArgument(
        "--budget top1:PP measures top-1 agreement with the float model on "
        "--budget-images DIR");
  }
  r.budget_images = a.budget_images;
  r.budget_int16_first = !a.budget_float;
  r.threads = a.threads;
  r.progress = !a.quiet;
  r.names = {"--keep-float", "--int16", "--holdout", "--report"};
  return r;
}

// Each step's lines on stdout as it finishes.
quant::QuantizeHooks PrintingHooks(const QuantizeArgs& a) {
  quant::QuantizeHooks h;
  h.shard_calibrated = [](const quant::Shard& s, size_t samples, size_t of) {
    std::cout << "shard " << s.index << "/" << s.count << ": " << samples << " of " << of
              << " calibration samples\n";
  };
  h.statistics_written = [](const std::string& path, const calib::CalibrationStats& stats) {
    std::cout << "wrote statistics " << path << " (" << stats.samples << " samples, "
              << stats.tensors.size() << " tensors)\n";
  };
  if (!a.quiet) {
    h.range_tried = [](const quant::RangeCandidate& c) {
      std::printf("algo auto: %-18s divergence %.6g\n", quant::RangeSpecName(c.range).c_str(),
                  c.divergence);
    };
  }
  h.range_chosen = [](const quant::RangeChoice& c) {
    std::printf(
        "algo auto: chose %s (mean KL divergence of the predictions from float %.6g on %zu "
        "calibration samples)\n",
        quant::RangeSpecName(c.range).c_str(), c.divergence, c.samples);
  };
  if (a.verbose) {
    h.compiled = [](const CompiledModel& m) { std::cout << FormatPassReports(m.reports); };
  }
  h.budget_done = [](const quant::BudgetResult& r, const quant::BudgetSpec& spec) {
    std::cout << quant::FormatBudget(r, spec);
  };
  return h;
}

Status WriteReport(const std::string& path, const quant::AccuracyReport& report) {
  const bool json = path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  std::ofstream f(path);
  if (!f) return InvalidArgument("--report '" + path + "': cannot write");
  f << (json ? quant::FormatReportJson(report) : quant::FormatReportText(report));
  std::cout << "wrote report " << path << " (" << report.tensors.size() << " tensors, "
            << report.samples << " held-back samples)";
  for (const auto& t : report.tensors) {
    if (t.model_output) std::printf("; output %s SQNR %.2f dB", t.name.c_str(), t.sqnr_db);
  }
  std::cout << "\n";
  return Status::Ok();
}

// The file's record of how it was made.
Expected<ModelMetadata> MetadataOf(const QuantizeArgs& a, const quant::QuantizeResult& q) {
  const quant::QuantizeConfig& config = q.config;
  ModelMetadata meta;
  KILN_RETURN_IF_ERROR(a.identity.Apply(&meta));
  meta.source_sha256 = q.model_sha256;
  meta.source_name = std::filesystem::path(a.model).filename().string();
  meta.compile_options.emplace_back("quantize", "int8");
  meta.compile_options.emplace_back(
      "algo", (a.algo == "auto" ? "auto:" : "") + quant::RangeSpecName(config.range));
  meta.compile_options.emplace_back("act", a.act);
  meta.compile_options.emplace_back("weights", a.weights);
  meta.compile_options.emplace_back("calibration-samples", std::to_string(q.stats->samples));
  if (a.equalize) meta.compile_options.emplace_back("equalize", "yes");
  if (a.bias_correct) meta.compile_options.emplace_back("bias-correct", "yes");
  for (const auto& k : config.keep_float) meta.compile_options.emplace_back("keep-float", k);
  for (const auto& k : config.int16_nodes) {
    if (!config.keep_float.count(k)) meta.compile_options.emplace_back("int16", k);
  }
  const DspProgramSet* dsp = q.model->payloads.dsp_programs.get();
  if (a.target == "dsp") {
    meta.compile_options.emplace_back("dsp-scratch",
                                      a.dsp_scratch.empty() ? "256K" : a.dsp_scratch);
    meta.compile_options.emplace_back("dsp-programs",
                                      std::to_string(dsp ? dsp->by_node.size() : 0));
    meta.compile_options.emplace_back("dsp-chains", std::to_string(dsp ? dsp->chains.size() : 0));
  }
  return meta;
}

Status RunQuantize(QuantizeArgs& a, const CLI::App& cmd) {
  KILN_RETURN_IF_ERROR(ApplyConfig(a, cmd));
  if (a.model.empty()) return InvalidArgument("no model given (positional MODEL or --config)");
  KILN_ASSIGN_OR_RETURN(quant::QuantizeRequest request, RequestOf(a));
  request.hooks = PrintingHooks(a);
  KILN_ASSIGN_OR_RETURN(quant::QuantizeResult q, quant::Quantize(request));
  if (!q.model) return Status::Ok();  // statistics only
  if (q.report) KILN_RETURN_IF_ERROR(WriteReport(a.report, *q.report));

  const CompiledModel& model = *q.model;
  KILN_ASSIGN_OR_RETURN(ModelMetadata meta, MetadataOf(a, q));
  KILN_ASSIGN_OR_RETURN(
      WrittenModel written,
      WriteKilnModel(model.graph, model.plan, meta,
                     {a.out, a.compress, a.sign_key, nullptr, model.payloads.dsp_programs.get()}));
  std::cout << "wrote " << a.out << " (" << written.bytes << " bytes, " << model.graph.num_nodes()
            << " nodes: " << Composition(model.graph) << "; " << q.stats->samples
            << " calibration samples, " << quant::RangeSpecName(q.config.range) << ", " << a.act
            << ", weights " << a.weights << (a.equalize ? ", equalized" : "")
            << (a.bias_correct ? ", bias-corrected" : "") << ", "
            << (written.key_id.empty() ? std::string("unsigned")
                                       : "signed by key id " + written.key_id)
            << ")\n";
  return Status::Ok();
}
}  // namespace

void RegisterQuantize(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("quantize", "Post-training int8 quantization into a .kiln file");
  auto a = std::make_shared<QuantizeArgs>();
  cmd->add_option("model", a->model, "Source model (.onnx)");
  cmd->add_option("-o,--out", a->out, "Output .kiln file");
  cmd->add_option("--calib", a->calib,
                  "Calibration data: a folder of images or .npy files, a list file of raw float32 "
                  "files (SNPE input_list), or an MNIST idx image file");
  cmd->add_option("--calib-count", a->calib_count, "Use the first N samples (default: all)");
  cmd->add_option("--holdout", a->holdout,
                  "Hold back the last N of those from calibration, for --report and the budget "
                  "(default: a tenth)");
  cmd->add_option("--preprocess", a->preprocess,
                  "Image preprocessing SPEC (docs/preprocessing.md)");
  cmd->add_option("--algo", a->algo,
                  "Range algorithm: auto (default: the one of mse, percentile:99.99, "
                  "percentile:99.999 whose predictions stay closest to float on the calibration "
                  "samples) | minmax | percentile[:P] | kl | mse")
      ->default_val("auto");
  cmd->add_option("--act", a->act,
                  "Activations: asym-u8 (scale + offset) | sym-i8 | sym-i16 (every activation "
                  "16-bit, weights still int8)")
      ->default_val("asym-u8");
  cmd->add_option("--weights", a->weights, "Weights (int8 symmetric): per-channel | per-tensor")
      ->default_val("per-channel");
  cmd->add_flag("--equalize", a->equalize, "Cross-layer equalization before calibration");
  cmd->add_flag("--bias-correct", a->bias_correct, "Correct the bias for the weight rounding");
  cmd->add_option("--keep-float", a->keep_float, "Keep these ONNX nodes in float (NODE[,NODE...])");
  cmd->add_option(
      "--int16", a->int16,
      "Make these ONNX nodes int16: the activations they read and write, and their weights "
      "(NODE[,NODE...]; @depthwise: every depthwise convolution)");
  cmd->add_option(
      "--report", a->report,
      "Write per-tensor SQNR/cosine on the held-back samples (text, or JSON for .json)");
  cmd->add_option("--max-sqnr-drop", a->max_sqnr_drop,
                  "Accuracy budget: give the worst layers int16 activations (then float) until "
                  "every output's SQNR is within DB of the 8-bit ideal (49.9 dB)");
  cmd->add_option("--budget", a->budget,
                  "Accuracy budget: top1:PP (top-1 agreement with float >= 100-PP % on "
                  "--budget-images) or sqnr:DB (output SQNR >= DB)");
  cmd->add_option("--budget-images", a->budget_images, "Images for --budget top1:PP");
  cmd->add_flag("--budget-float", a->budget_float,
                "Budget steps keep layers in float only (default: int16 activations first, float "
                "if the layer is still the worst)");
  cmd->add_option("--config", a->config, "YAML deploy file (flags override it)");
  cmd->add_option("--shard", a->shard, "Calibrate only shard I of N (writes --stats-out)");
  cmd->add_option("--stats-out", a->stats_out, "Write the calibration statistics here");
  cmd->add_option("--stats", a->stats_in, "Use these statistics instead of calibrating");
  cmd->add_option("--merge-stats", a->merge_stats, "Merge these statistics files (shards)")
      ->expected(1, -1);
  cmd->add_option("--sign-key", a->sign_key, "Ed25519 private key (PREFIX.key) to sign with");
  cmd->add_option("--compress", a->compress, "Section compression: none | zstd | zstd:LEVEL");
  cmd->add_option("--target", a->target,
                  "cpu (default), reference, or dsp (plain weights plus the DSP command streams, "
                  "docs/dsp-target.md)");
  cmd->add_option(
      "--dsp-scratch", a->dsp_scratch,
      "With --target dsp: the scratchpad size to tile for (bytes, or K/M; default 256K)");
  cmd->add_option("--input-shape", a->raw_shapes, "Fix an input's dims: NAME=D0,D1,...");
  cmd->add_option("--threads", a->threads, "Threads for calibration and measuring")->default_val(1);
  cmd->add_flag("-v,--verbose", a->verbose, "Print the compiler's pass table");
  cmd->add_option("--disable-pass", a->disabled_passes,
                  "Skip a compiler pass (e.g. lower-qdq: keep the Q/DQ float form, to bisect)");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  AddModelIdentityFlags(*cmd, &a->identity);
  cmd->callback([exit_code, a, cmd] {
    RunCommand("quantize", exit_code, [&] {
      ModelMetadata probe;  // bad identity flags fail before calibrating
      KILN_RETURN_IF_ERROR(a->identity.Apply(&probe));
      return RunQuantize(*a, *cmd);
    });
  });
}

}  // namespace kiln::cli
