// Where accuracy goes: every quantized tensor of an int8 graph against the same tensor of the
// float graph on held-back samples (SQNR in dB and cosine similarity), with the source ONNX
// nodes that produced it, worst first. `kiln quantize --report FILE` writes it; the accuracy
// budget ranks layers with it.
#pragma once

#include <string>
#include <vector>

#include "calibration/sample_source.h"
#include "ir/graph.h"

namespace kiln::quant {

struct TensorAccuracy {
  std::string name;                  // the float graph's value name
  std::string op;                    // the integer op producing it ("QConv", ...)
  std::vector<std::string> sources;  // ONNX nodes
  double sqnr_db = 0;                // 10 log10(sum f^2 / sum (q - f)^2); inf when exact
  double cosine = 1;
  bool model_output = false;
  std::vector<std::string> inputs;   // float names of the quantized tensors it reads
  std::vector<std::string> readers;  // ONNX nodes of the integer ops reading it
};

struct AccuracyReport {
  std::vector<TensorAccuracy> tensors;  // worst SQNR first
  size_t samples = 0;
};

// Runs both graphs on `samples` of `source`. A tensor of the int8 graph is matched to the float
// one it stands for: "<name>.q" (an integer value, dequantized with its parameters) or a float
// value of the same name (model outputs, float regions).
Expected<AccuracyReport> MeasureAccuracy(const Graph& float_graph, const Graph& quant_graph,
                                         const calib::SampleSource& source,
                                         const std::vector<size_t>& samples, int threads,
                                         bool progress);

std::string FormatReportText(const AccuracyReport& report);
std::string FormatReportJson(const AccuracyReport& report);

}  // namespace kiln::quant

namespace kiln::quant {

// How far the int8 graph's predictions are from the float graph's on `samples`, for choosing
// between quantization settings: for class-score outputs ([1, C], C >= 10, or [1, C, 1, 1])
// the mean KL divergence of the float softmax from the int8 softmax (probabilities are used as
// they are), else the mean squared error relative to the float output's power. Smaller is
// better; summed over the outputs.
Expected<double> PredictionDivergence(const Graph& float_graph, const Graph& quant_graph,
                                      const calib::SampleSource& source,
                                      const std::vector<size_t>& samples, int threads);

}  // namespace kiln::quant
