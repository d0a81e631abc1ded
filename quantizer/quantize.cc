// Quantize: the request checked, the model imported and compiled for calibration, the
// statistics made or merged, then the int8 compile, the budget and the report.
#include "quantizer/quantize.h"

#include <map>
#include <set>

#include "calibration/image_preprocess.h"
#include "compiler/frontend.h"
#include "quantizer/calibration_set.h"
#include "quantizer/quantize_driver.h"
#include "quantizer/top1_agreement.h"
#include "serializer/signing.h"

namespace kiln::quant {
namespace {

bool Measures(const QuantizeRequest& r) {
  return r.accuracy_report || r.budget.kind != BudgetSpec::kNone;
}

// What the request alone decides, before any work: what a front end should have refused.
Status CheckRequest(const QuantizeRequest& r) {
  if (r.model.empty()) return InvalidArgument("QuantizeRequest::model is empty");
  if (r.shard) {
    if (r.shard->count < 1 || r.shard->index < 0 || r.shard->index >= r.shard->count) {
      return InvalidArgument("QuantizeRequest::shard " + std::to_string(r.shard->index) + "/" +
                             std::to_string(r.shard->count) +
                             ": expected index/count with 0 <= index < count");
    }
    if (r.stats_out.empty()) {
      return InvalidArgument(
          "QuantizeRequest::shard: a shard's statistics are its result: set "
          "QuantizeRequest::stats_out");
    }
  }
  if (!r.shard && !r.compile && r.stats_out.empty()) {
    return InvalidArgument(
        "nothing to do: QuantizeRequest::compile is false and QuantizeRequest::stats_out empty");
  }
  if (r.threads < 1) return InvalidArgument("QuantizeRequest::threads must be at least 1");
  if (r.samples.empty() && (r.stats_files.empty() || Measures(r))) {
    return InvalidArgument(
        "QuantizeRequest::samples is empty: calibrating, the accuracy report and the budget need "
        "calibration data");
  }
  const bool compiles = r.compile && !r.shard;
  if (compiles && r.samples.empty() && r.auto_range && r.config.act != ActMode::kSymI16) {
    return InvalidArgument(
        "QuantizeRequest::auto_range measures on calibration samples: set "
        "QuantizeRequest::samples");
  }
  if (compiles && r.budget.kind == BudgetSpec::kTop1 && r.budget_images.empty()) {
    return InvalidArgument(
        "a top1 budget measures top-1 agreement with the float model: set "
        "QuantizeRequest::budget_images");
  }
  return Status::Ok();
}

// Every name is an ONNX node of the model (a typo would otherwise silently change nothing);
// kInt16Depthwise stands for every depthwise convolution.
Status CheckNodeNames(const Graph& g, const std::set<std::string>& names,
                      const std::string& field) {
  std::set<std::string> known;
  for (const Node& n : g.nodes()) {
    known.insert(n.name);
    known.insert(n.sources.begin(), n.sources.end());
  }
  for (const std::string& name : names) {
    if (name == kInt16Depthwise || known.count(name)) continue;
    return InvalidArgument(field + ": the model has no node named '" + name + "'");
  }
  return Status::Ok();
}

// The statistics: merged from the request's files, or collected over the calibration samples
// (one shard of them when asked), then written where asked.
Expected<std::shared_ptr<const calib::CalibrationStats>> MakeStatistics(const QuantizeRequest& r,
                                                                        const Graph& float_graph,
                                                                        const CalibrationSet& set,
                                                                        const std::string& key) {
  auto stats = std::make_shared<calib::CalibrationStats>();
  if (!r.stats_files.empty()) {
    KILN_ASSIGN_OR_RETURN(*stats, calib::ReadStatsFile(r.stats_files[0]));
    for (size_t i = 1; i < r.stats_files.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(calib::CalibrationStats more, calib::ReadStatsFile(r.stats_files[i]));
      KILN_RETURN_IF_ERROR(stats->Merge(more).WithContext(r.stats_files[i]));
    }
    if (set.source && stats->key != key) {
      return InvalidArgument(
          "the statistics were made for another model, preprocessing or "
          "calibration set (key '" +
          stats->key + "', expected '" + key + "')");
    }
  } else {
    CalibrationRun run;
    run.source = set.source.get();
    run.samples =
        r.shard ? ShardOf(set.calibration, r.shard->index, r.shard->count) : set.calibration;
    run.threads = r.threads;
    run.progress = r.progress;
    KILN_ASSIGN_OR_RETURN(*stats, CollectStatistics(float_graph, run, key));
    if (r.shard && r.hooks.shard_calibrated) {
      r.hooks.shard_calibrated(*r.shard, run.samples.size(), set.calibration.size());
    }
  }
  if (!r.stats_out.empty()) {
    KILN_RETURN_IF_ERROR(calib::WriteStatsFile(r.stats_out, *stats));
    if (r.hooks.statistics_written) r.hooks.statistics_written(r.stats_out, *stats);
  }
  return std::shared_ptr<const calib::CalibrationStats>(std::move(stats));
}

// Keeps the worst layers int16 or float until the budget holds; result.config records them.
Status RunBudget(const QuantizeRequest& r, const Graph& imported, const Graph& float_graph,
                 const CalibrationSet& set, const PreprocessSpec& spec, QuantizeResult& result) {
  BudgetContext ctx;
  ctx.imported = &imported;
  ctx.options = r.options;
  ctx.config = result.config;
  ctx.stats = result.stats;
  ctx.float_graph = &float_graph;
  ctx.source = set.source.get();
  ctx.held_back = set.held_back;
  ctx.threads = r.threads;
  ctx.progress = r.progress;
  ctx.int16_first = r.budget_int16_first;
  std::unique_ptr<calib::SampleSource> images;
  if (r.budget.kind == BudgetSpec::kTop1) {
    KILN_ASSIGN_OR_RETURN(
        images, calib::OpenSampleSource(r.budget_images, spec, SampleInputsOf(float_graph)));
    ctx.agreement = [&](const Graph& q) {
      return TopOneAgreement(float_graph, q, *images, r.threads);
    };
  }
  KILN_ASSIGN_OR_RETURN(BudgetResult budget,
                        RunAccuracyBudget(ctx, r.budget, std::move(*result.model)));
  result.model = std::move(budget.model);
  // What the budget kept float or made int16 is part of how the model was quantized.
  result.config.keep_float.insert(budget.kept_float.begin(), budget.kept_float.end());
  result.config.int16_nodes.insert(budget.int16.begin(), budget.int16.end());
  if (r.hooks.budget_done) r.hooks.budget_done(budget, r.budget);
  result.budget = std::move(budget);
  return Status::Ok();
}

}  // namespace

Expected<QuantizeResult> Quantize(const QuantizeRequest& r) {
  KILN_RETURN_IF_ERROR(CheckRequest(r));
  KILN_ASSIGN_OR_RETURN(PreprocessSpec spec, ParsePreprocessSpec(r.preprocess));
  std::map<std::string, std::vector<int64_t>> input_shapes;
  for (const auto& [name, dims] : r.input_shapes) {
    if (!input_shapes.emplace(name, dims).second) {
      return InvalidArgument("QuantizeRequest::input_shapes: '" + name + "' given twice");
    }
  }
  auto import = [&]() -> Expected<Graph> {
    if (IsTfliteFile(r.model)) return ImportTflite(r.model, TfliteParseOptions{input_shapes});
    OnnxParseOptions parse;
    parse.input_shapes = input_shapes;
    return ImportOnnx(r.model, parse);
  };
  KILN_ASSIGN_OR_RETURN(Graph imported, import());
  KILN_RETURN_IF_ERROR(CheckNodeNames(imported, r.config.keep_float, r.names.keep_float));
  KILN_RETURN_IF_ERROR(CheckNodeNames(imported, r.config.int16_nodes, r.names.int16_nodes));
  KILN_ASSIGN_OR_RETURN(CompiledModel float_model,
                        CompileForCalibration(imported, r.options, r.config));

  CalibrationSet set;
  if (!r.samples.empty()) {
    KILN_ASSIGN_OR_RETURN(
        auto source, calib::OpenSampleSource(r.samples, spec, SampleInputsOf(float_model.graph)));
    KILN_ASSIGN_OR_RETURN(
        set, SplitSamples(std::move(source), r.sample_count, r.holdout, r.names.holdout));
  }
  if (Measures(r) && set.held_back.empty()) {
    return InvalidArgument(r.names.accuracy_report +
                           " and the accuracy budget need held-back samples (" + r.names.holdout +
                           " N)");
  }

  QuantizeResult result;
  KILN_ASSIGN_OR_RETURN(result.model_sha256, signing::Sha256FileHex(r.model));
  const std::string key =
      StatisticsKey({result.model_sha256, r.preprocess, r.options.equalize, r.input_shapes}, set);
  KILN_ASSIGN_OR_RETURN(result.stats, MakeStatistics(r, float_model.graph, set, key));
  if (r.shard || !r.compile) return result;

  result.config = r.config;
  if (r.auto_range && r.config.act == ActMode::kSymI16) {
    // int16 activations take the whole observed range whatever the algorithm.
    result.config.range = *ParseRangeSpec("minmax");
  } else if (r.auto_range) {
    KILN_ASSIGN_OR_RETURN(
        RangeChoice choice,
        ChooseRange(imported, r.options, result.config, result.stats, float_model.graph,
                    *set.source, set.calibration, r.threads, r.hooks.range_tried));
    result.config.range = choice.range;
    if (r.hooks.range_chosen) r.hooks.range_chosen(choice);
    result.range_choice = std::move(choice);
  }
  KILN_ASSIGN_OR_RETURN(result.model,
                        CompileQuantized(imported, r.options, result.config, result.stats));
  if (r.hooks.compiled) r.hooks.compiled(*result.model);

  if (r.budget.kind != BudgetSpec::kNone) {
    KILN_RETURN_IF_ERROR(RunBudget(r, imported, float_model.graph, set, spec, result));
  }
  if (r.accuracy_report) {
    KILN_ASSIGN_OR_RETURN(result.report,
                          MeasureAccuracy(float_model.graph, result.model->graph, *set.source,
                                          set.held_back, r.threads, r.progress));
  }
  return result;
}

}  // namespace kiln::quant
