// Evaluation sets: sources plus labels; top-k.
#include "tools/kiln/eval_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "tools/kiln/output_report.h"

namespace kiln::cli {
namespace fs = std::filesystem;
namespace {

Expected<std::map<std::string, int>> ReadLabelsTxt(const std::string& path) {
  std::ifstream f(path);
  if (!f) return NotFound("labels file '" + path + "' not found");
  std::map<std::string, int> out;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    std::istringstream ss(line);
    std::string rel, idx;
    if (!(ss >> rel)) continue;
    if (!(ss >> idx) || idx.find_first_not_of("0123456789") != std::string::npos || idx.size() > 9) {
      return InvalidArgument(path + ":" + std::to_string(n) +
                             ": expected '<relative path> <class index> [synset]'");
    }
    out[rel] = std::stoi(idx);
    out[fs::path(rel).filename().string()] = std::stoi(idx);
  }
  return out;
}

}  // namespace

Expected<std::unique_ptr<EvalSet>> OpenEvalSet(const std::string& images, const std::string& labels,
                                               const PreprocessSpec& spec,
                                               const std::vector<calib::SampleInput>& inputs) {
  auto set = std::make_unique<EvalSet>();
  KILN_ASSIGN_OR_RETURN(set->source, calib::OpenSampleSource(images, spec, inputs));
  set->labels.assign(set->source->size(), -1);
  if (labels.empty()) return set;
  if (calib::IsIdxFile(labels, 2049)) {
    KILN_ASSIGN_OR_RETURN(std::vector<int> l, calib::ReadIdxLabels(labels));
    if (l.size() != set->source->size()) {
      return InvalidArgument("--labels '" + labels + "' has " + std::to_string(l.size()) +
                             " labels for " + std::to_string(set->source->size()) + " images");
    }
    set->labels = std::move(l);
    return set;
  }
  KILN_ASSIGN_OR_RETURN(auto map, ReadLabelsTxt(labels));
  const std::string folder = fs::path(images).filename().string();
  for (size_t i = 0; i < set->source->size(); ++i) {
    const std::string id = set->source->id(i);
    auto it = map.find(folder + "/" + id);
    if (it == map.end()) it = map.find(id);
    if (it == map.end()) {
      return InvalidArgument("--labels '" + labels + "' has no label for '" + id + "'");
    }
    set->labels[i] = it->second;
  }
  return set;
}

std::vector<int> TopIndices(const HostTensor& scores, int k) {
  std::vector<int> out;
  for (const auto& [index, score] : TopK(scores, k)) out.push_back(static_cast<int>(index));
  return out;
}

}  // namespace kiln::cli
