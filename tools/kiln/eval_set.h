// Labelled evaluation sets for `kiln eval`: an image folder (or MNIST idx image file) with labels
// from an ImageNet-style labels.txt ("<relative path> <class index> [synset]" per line, matched
// by path or file name) or an idx label file; and the top-k of a model's first output.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibration/sample_source.h"
#include "ir/graph.h"

namespace kiln::cli {

struct EvalSet {
  std::unique_ptr<calib::SampleSource> source;
  std::vector<int> labels;  // by sample; -1 where unknown (or no labels file)
};

Expected<std::unique_ptr<EvalSet>> OpenEvalSet(const std::string& images, const std::string& labels,
                                               const PreprocessSpec& spec,
                                               const std::vector<calib::SampleInput>& inputs);

// Indices of the k largest scores, ties to the lower index (output_report.h TopK).
std::vector<int> TopIndices(const HostTensor& scores, int k);

}  // namespace kiln::cli
