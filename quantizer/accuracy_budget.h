// The accuracy budget of `kiln quantize`: starting from the fully quantized model, the tensor
// that loses most SQNR (its SQNR below its inputs') is made int16, one at a time, with the layer
// producing it and the layers reading it (their activations and weights: still integer, at
// most twice the layer's int8 size); a tensor that is still the worst after that is kept in
// float. Until the budget holds:
//   --max-sqnr-drop DB  every model output's SQNR (held-back samples) >= 49.9 dB - DB, 49.9 dB
//                       being the SQNR of an ideal 8-bit quantizer (6.02 * 8 + 1.76);
//   --budget sqnr:DB    every model output's SQNR >= DB;
//   --budget top1:PP    top-1 agreement with the float model >= 100 - PP percent on an image set.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "calibration/sample_source.h"
#include "compiler/pipeline.h"
#include "quant/quantize_config.h"
#include "quantizer/accuracy_report.h"

namespace kiln::quant {

inline constexpr double kIdeal8BitSqnrDb = 6.02 * 8 + 1.76;

struct BudgetSpec {
  enum Kind { kNone, kSqnrDrop, kSqnr, kTop1 } kind = kNone;
  double value = 0;
};
// "sqnr:DB" or "top1:PP".
Expected<BudgetSpec> ParseBudget(const std::string& text);

struct BudgetContext {
  const Graph* imported = nullptr;  // the import both compiles start from
  CompileOptions options;
  QuantizeConfig config;  // keep_float grows
  std::shared_ptr<const calib::CalibrationStats> stats;
  const Graph* float_graph = nullptr;
  const calib::SampleSource* source = nullptr;
  std::vector<size_t> held_back;
  int threads = 1;
  bool progress = true;
  bool int16_first = true;  // false (--budget-float): every step keeps float
  // top1 budgets: the agreement (fraction) of an int8 graph with the float model.
  std::function<Expected<double>(const Graph&)> agreement;
};

struct BudgetStep {
  std::vector<std::string> kept;  // the ONNX nodes kept in float (or int16) at this step
  bool int16 = false;             // the step gave them int16 activations
  std::string tensor;
  double drop_db = 0;  // how much SQNR that layer lost
  double metric = 0;   // the budget metric before keeping it
};

struct BudgetResult {
  CompiledModel model;
  std::vector<std::string> kept_float;
  std::vector<std::string> int16;  // nodes given int16 activations (and not kept float)
  std::vector<BudgetStep> steps;
  double final_metric = 0;
  bool met = false;
};

// The ONNX nodes a budget step keeps in float for tensor `t` of a report: the nodes producing
// it and those of every integer op reading it. Keeping only the producer in float would save
// little more than its weight rounding: an integer reader needs `t` quantized, so a
// QuantizeLinear with the same parameters would round it again.
std::vector<std::string> NodesKeepingFloat(const TensorAccuracy& t);

Expected<BudgetResult> RunAccuracyBudget(const BudgetContext& ctx, const BudgetSpec& spec,
                                         CompiledModel start);
std::string FormatBudget(const BudgetResult& r, const BudgetSpec& spec);

}  // namespace kiln::quant
