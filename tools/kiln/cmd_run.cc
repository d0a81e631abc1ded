// kiln run MODEL --input NAME=FILE ...: runs a model on .npy/.pb/image inputs, prints output
// statistics (and top-5 classes for score vectors), writes outputs as .npy, times the run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "calibration/npy_io.h"
#include "runtime/placement.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/onnx_inputs.h"
#include "tools/kiln/output_report.h"
#include "tools/kiln/session_setup.h"
#include "tools/kiln/tensor_files.h"

namespace kiln::cli {
namespace {

struct RunArgs {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE
  std::string output_dir;
  std::string preprocess;
  std::string labels;
  int repeat = 1;
  int top = 5;
  std::string isa = "auto";
  int threads = 1;
  DeviceArgs device;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

// Input names in declaration order (for inputs given without NAME=).
Expected<std::vector<std::string>> DeclaredInputNames(const RunArgs& args) {
  std::vector<std::string> names;
  if (IsKilnFile(args.model)) {
    KILN_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(args.model, args.source));
    for (ValueId id : loaded.graph->inputs()) names.push_back(loaded.graph->value(id).name);
  } else {
    KILN_ASSIGN_OR_RETURN(names, ReadDeclaredInputNames(args.model));
  }
  return names;
}

Expected<std::vector<HostTensor>> LoadInputs(const RunArgs& args, const PreprocessSpec& spec) {
  std::vector<std::string> declared;
  for (const std::string& item : args.inputs) {
    if (item.find('=') == std::string::npos) {
      KILN_ASSIGN_OR_RETURN(declared, DeclaredInputNames(args));
      break;
    }
  }
  std::vector<HostTensor> tensors;
  std::set<std::string> names;
  for (const std::string& item : args.inputs) {
    // "NAME=FILE", or a bare FILE bound to the model's inputs in order.
    const size_t eq = item.find('=');
    const bool positional = eq == std::string::npos;
    if (!positional && (eq == 0 || eq + 1 == item.size()))
      return InvalidArgument("--input '" + item + "': expected NAME=FILE or FILE");
    std::string name = positional ? std::string() : item.substr(0, eq);
    const std::string path = positional ? item : item.substr(eq + 1);
    if (positional) {
      if (tensors.size() >= declared.size())
        return InvalidArgument("--input '" + item + "': the model has only " +
                               std::to_string(declared.size()) + " input(s)");
      name = declared[tensors.size()];
    }
    if (!names.insert(name).second) return InvalidArgument("--input '" + name + "' given twice");
    auto t = LoadTensorFile(path, spec);
    if (!t.ok()) return t.status().WithContext("--input '" + name + "'");
    t->name = name;
    tensors.push_back(std::move(t).value());
  }
  return tensors;
}

bool AnyImage(const RunArgs& args) {
  for (const std::string& item : args.inputs) {
    auto kind = DetectTensorFileKind(item.substr(item.find('=') + 1));
    if (kind.ok() && *kind == TensorFileKind::kImage) return true;
  }
  return false;
}

// A shape mismatch with an image input usually means --preprocess is missing: say so.
Status WithImageHint(const Status& s, const RunArgs& args) {
  if (s.ok() || s.code() != StatusCode::kInvalidArgument || !args.preprocess.empty() ||
      s.message().find("shape") == std::string::npos || !AnyImage(args))
    return s;
  return Status(s.code(), s.message() +
                              " (images are fed as decoded, 0..255 RGB NCHW: pass --preprocess, "
                              "see docs/preprocessing.md)");
}

void PrintOutput(const HostTensor& t, const std::vector<std::string>& labels, int top) {
  const ValueStats s = ComputeValueStats(t);
  std::printf("output %s: %s %s  min %.6g  max %.6g  mean %.6g", t.name.c_str(),
              std::string(DTypeName(t.dtype)).c_str(), ShapeToString(t.shape).c_str(), s.min, s.max,
              s.mean);
  if (s.non_finite) std::printf("  (%lld non-finite)", static_cast<long long>(s.non_finite));
  std::printf("\n");
  if (!LooksLikeClassScores(t.shape) || top <= 0) return;
  std::printf("  top-%d:\n", top);
  for (const auto& [index, score] : TopK(t, top)) {
    std::printf("    %5lld  %.6g", static_cast<long long>(index), score);
    if (index < static_cast<int64_t>(labels.size()))
      std::printf("  %s", labels[static_cast<size_t>(index)].c_str());
    std::printf("\n");
  }
}

Status WriteOutputs(const std::vector<HostTensor>& outputs, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InvalidArgument("--output-dir '" + dir + "': " + ec.message());
  std::set<std::string> used;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string base =
        SanitizeFileName(outputs[i].name.empty() ? "output_" + std::to_string(i) : outputs[i].name);
    // Distinct outputs may sanitise to the same name ("a/b" and "a:b").
    for (int n = 1; used.count(base); ++n)
      base = SanitizeFileName(outputs[i].name) + "_" + std::to_string(n);
    used.insert(base);
    const std::string path = (std::filesystem::path(dir) / (base + ".npy")).string();
    KILN_RETURN_IF_ERROR(
        WriteNpyFile(path, outputs[i]).WithContext("output '" + outputs[i].name + "'"));
    std::printf("wrote %s\n", path.c_str());
  }
  return Status::Ok();
}

Status Run(RunArgs& args) {
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &args.source));
  KILN_ASSIGN_OR_RETURN(PreprocessSpec spec, ParsePreprocessSpec(args.preprocess));
  KILN_ASSIGN_OR_RETURN(Isa isa, ParseIsa(args.isa));
  // ONNX sources: pack weights for the kernels used, place for the devices listed.
  KILN_RETURN_IF_ERROR(args.device.ApplyTo(isa, &args.source.compile));
  if (args.repeat < 1) return InvalidArgument("--repeat must be at least 1");
  std::vector<std::string> labels;
  if (!args.labels.empty()) {
    KILN_ASSIGN_OR_RETURN(labels, LoadLabels(args.labels));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> inputs, LoadInputs(args, spec));
  auto loaded = LoadModelForInputs(args.model, args.source, inputs, "--input");
  if (!loaded.ok()) return WithImageHint(loaded.status(), args);
  auto session = CreateSession(*loaded, isa, args.threads, args.device);
  if (!session.ok()) return session.status().WithContext(args.model);
  KILN_RETURN_IF_ERROR(
      WithImageHint(BindInputs(**session, inputs, "--input", !IsKilnFile(args.model)), args));

  std::vector<double> ms;
  for (int r = 0; r < args.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    KILN_RETURN_IF_ERROR(RunSession(**session).WithContext("run"));
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < (*session)->num_outputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(HostTensor out, (*session)->GetOutput(i));
    if (out.name.empty()) out.name = (*session)->output_info(i).name;
    PrintOutput(out, labels, args.top);
    outputs.push_back(std::move(out));
  }
  if (!args.output_dir.empty()) KILN_RETURN_IF_ERROR(WriteOutputs(outputs, args.output_dir));
  std::sort(ms.begin(), ms.end());
  const double median =
      ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  std::printf("placement: %s\n", PlacementSummary((*session)->Placement()).c_str());
  std::printf("run time: %.3f ms (median of %d run%s, min %.3f ms)\n", median, args.repeat,
              args.repeat == 1 ? "" : "s", ms.front());
  return Status::Ok();
}

}  // namespace

void RegisterRun(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a model on input files and print its outputs");
  cmd->add_option("model", args->model, "Model file (.onnx, .tflite or .kiln)")->required();
  cmd->add_option("--input,-i", args->inputs,
                  "NAME=FILE (or FILE, bound to inputs in order): .npy, ONNX TensorProto .pb, or "
                  "JPEG/PNG image (repeatable)");
  cmd->add_option("--output-dir,-o", args->output_dir, "Write each output to DIR/<name>.npy");
  cmd->add_option("--preprocess", args->preprocess,
                  "Image preprocessing SPEC, e.g. resize=256,crop=224,scale=1/255,"
                  "mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb,nchw");
  cmd->add_option("--labels", args->labels, "Class names, one per line (synset_words.txt works)");
  cmd->add_option("--repeat", args->repeat, "Run N times and report the median time")
      ->default_val(1);
  cmd->add_option("--top", args->top, "How many classes to list for score outputs")->default_val(5);
  AddIsaFlag(*cmd, &args->isa);
  AddThreadsFlag(*cmd, &args->threads);
  AddDeviceFlags(*cmd, &args->device);
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback([args, exit_code] { RunCommand("run", exit_code, [&] { return Run(*args); }); });
}

}  // namespace kiln::cli
