// Reads the deploy YAML with yaml-cpp; unknown keys are errors (a typo must not silently
// change a model).
#include "tools/kiln/deploy_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;

Status CheckKeys(const YAML::Node& map, const std::set<std::string>& known, const std::string& where) {
  if (!map.IsMap()) return InvalidArgument(where + " must be a mapping");
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return InvalidArgument(where + ": unknown key '" + key + "' (known: " + list + ")");
    }
  }
  return Status::Ok();
}

template <typename T>
void Read(const YAML::Node& map, const char* key, std::optional<T>* out) {
  if (map[key]) *out = map[key].as<T>();
}

}  // namespace

Expected<DeployConfig> ReadDeployConfig(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    return InvalidArgument("--config '" + path + "': " + e.what());
  }
  DeployConfig c;
  try {
    KILN_RETURN_IF_ERROR(CheckKeys(root,
                                   {"model", "output", "inputs", "preprocess", "calibration",
                                    "quantization", "report", "budget", "sign_key", "compress",
                                    "threads"},
                                   path));
    Read(root, "model", &c.model);
    Read(root, "output", &c.output);
    Read(root, "preprocess", &c.preprocess);
    Read(root, "report", &c.report);
    Read(root, "sign_key", &c.sign_key);
    Read(root, "compress", &c.compress);
    Read(root, "threads", &c.threads);
    if (const YAML::Node in = root["inputs"]) {
      KILN_RETURN_IF_ERROR(in.IsMap() ? Status::Ok() : InvalidArgument(path + ": inputs must map names to shapes"));
      for (const auto& kv : in) c.input_shapes[kv.first.as<std::string>()] = kv.second.as<std::vector<int64_t>>();
    }
    if (const YAML::Node cal = root["calibration"]) {
      KILN_RETURN_IF_ERROR(CheckKeys(cal, {"data", "count", "holdout", "stats", "stats_out"}, path + ": calibration"));
      Read(cal, "data", &c.calib);
      Read(cal, "count", &c.calib_count);
      Read(cal, "holdout", &c.holdout);
      Read(cal, "stats", &c.stats);
      Read(cal, "stats_out", &c.stats_out);
    }
    if (const YAML::Node q = root["quantization"]) {
      KILN_RETURN_IF_ERROR(CheckKeys(
          q, {"algo", "act", "weights", "equalize", "bias_correct", "keep_float", "int16"},
          path + ": quantization"));
      Read(q, "algo", &c.algo);
      Read(q, "act", &c.act);
      Read(q, "weights", &c.weights);
      Read(q, "equalize", &c.equalize);
      Read(q, "bias_correct", &c.bias_correct);
      if (q["keep_float"]) c.keep_float = q["keep_float"].as<std::vector<std::string>>();
      if (q["int16"]) c.int16 = q["int16"].as<std::vector<std::string>>();
    }
    if (const YAML::Node b = root["budget"]) {
      KILN_RETURN_IF_ERROR(CheckKeys(b, {"max_sqnr_drop", "top1", "images"}, path + ": budget"));
      Read(b, "max_sqnr_drop", &c.max_sqnr_drop);
      if (b["top1"]) c.budget = "top1:" + b["top1"].as<std::string>();
      Read(b, "images", &c.budget_images);
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument("--config '" + path + "': " + e.what());
  }
  // Paths relative to the file's folder.
  const fs::path dir = fs::path(path).parent_path();
  for (std::optional<std::string>* p : {&c.model, &c.output, &c.calib, &c.report, &c.sign_key,
                                        &c.stats, &c.stats_out, &c.budget_images}) {
    if (*p && !(*p)->empty() && fs::path(**p).is_relative()) **p = (dir / **p).string();
  }
  return c;
}

}  // namespace kiln::cli
