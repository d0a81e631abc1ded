// kiln validate MODEL --test-data DIR: runs an ONNX test_data_set_N folder (input_*.pb ->
// output_*.pb) and reports max abs error, cosine similarity and SQNR per output.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>

#include "calibration/npy_io.h"
#include "compiler/tensor_compare.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/placement.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/onnx_inputs.h"
#include "tools/kiln/session_setup.h"

namespace kiln::cli {
namespace {

struct ValidateArgs {
  std::string model;
  std::string test_data;
  double rtol = 1e-3;
  double atol = 1e-4;
  double min_sqnr = 0;  // > 0: an output passes on SQNR >= this instead of rtol/atol
  bool json = false;
  std::string isa = "auto";
  int threads = 1;
  DeviceArgs device;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

// input_0.pb, input_1.pb, ... (or output_*; TensorProto .pb or NumPy .npy files) sorted by
// their number, not as strings.
Expected<std::vector<HostTensor>> ReadNumbered(const std::string& dir, const std::string& prefix) {
  const std::regex pattern(prefix + "_([0-9]+)\\.(pb|npy)");
  std::vector<std::pair<long, std::string>> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, pattern))
      files.emplace_back(std::stol(m[1]), entry.path().string());
  }
  if (ec) return NotFound("--test-data '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<HostTensor> out;
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].first == files[i - 1].first) {
      return InvalidArgument("--test-data '" + dir + "' has both " + files[i - 1].second + " and " +
                             files[i].second);
    }
  }
  for (const auto& [index, path] : files) {
    auto t = path.ends_with(".npy") ? ReadNpyFile(path) : ReadTensorProtoFile(path);
    if (!t.ok()) return t.status().WithContext(path);
    out.push_back(std::move(t).value());
  }
  return out;
}

// Gives test inputs that are unnamed, or named after no model input (upstream test sets such
// as super_resolution's 'X'), the name of the model input at the same position, as ONNX's
// test runners do.
Status NameInputsByPosition(const std::string& model, std::vector<HostTensor>& inputs,
                            const std::shared_ptr<const Graph>& loaded) {
  std::vector<std::string> names;
  if (loaded) {
    for (ValueId id : loaded->inputs()) names.push_back(loaded->value(id).name);
  } else {
    KILN_ASSIGN_OR_RETURN(names, ReadDeclaredInputNames(model));
  }
  auto is_input = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (std::all_of(inputs.begin(), inputs.end(), [&](auto& t) { return is_input(t.name); }))
    return Status::Ok();
  if (inputs.size() > names.size())
    return InvalidArgument("test data has " + std::to_string(inputs.size()) +
                           " inputs but the model has " + std::to_string(names.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!is_input(inputs[i].name)) inputs[i].name = names[i];
  return Status::Ok();
}

struct OutputResult {
  std::string name;
  TensorComparison cmp;
  int64_t elements = 0;
};

void PrintText(const std::vector<OutputResult>& results, const ValidateArgs& args, bool pass,
               const std::string& placement) {
  for (const auto& r : results) {
    std::printf("%s %s: max_abs_err %.3g  cosine %.8f  SQNR %.2f dB  mismatches %lld/%lld\n",
                r.cmp.within_tolerance ? "PASS" : "FAIL", r.name.c_str(), r.cmp.max_abs_err,
                r.cmp.cosine, r.cmp.sqnr_db, static_cast<long long>(r.cmp.mismatch_count),
                static_cast<long long>(r.elements));
  }
  std::printf("placement: %s\n", placement.c_str());
  if (args.min_sqnr > 0) {
    std::printf("%s: %zu output(s), SQNR >= %g dB\n", pass ? "PASS" : "FAIL", results.size(),
                args.min_sqnr);
  } else {
    std::printf("%s: %zu output(s), rtol %g, atol %g\n", pass ? "PASS" : "FAIL", results.size(),
                args.rtol, args.atol);
  }
}

void PrintJson(const std::vector<OutputResult>& results, const ValidateArgs& args, bool pass,
               const std::string& placement) {
  std::ostringstream os;
  os << "{\n  \"model\": " << JsonString(args.model)
     << ",\n  \"test_data\": " << JsonString(args.test_data)
     << ",\n  \"rtol\": " << JsonNumber(args.rtol) << ",\n  \"atol\": " << JsonNumber(args.atol)
     << ",\n  \"pass\": " << (pass ? "true" : "false")
     << ",\n  \"placement\": " << JsonString(placement) << ",\n  \"outputs\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    os << (i ? "," : "") << "\n    {\"name\": " << JsonString(r.name)
       << ", \"pass\": " << (r.cmp.within_tolerance ? "true" : "false")
       << ", \"max_abs_err\": " << JsonNumber(r.cmp.max_abs_err)
       << ", \"cosine\": " << JsonNumber(r.cmp.cosine)
       << ", \"sqnr_db\": " << JsonNumber(r.cmp.sqnr_db)  // null when the error is exactly zero
       << ", \"mismatches\": " << r.cmp.mismatch_count << ", \"elements\": " << r.elements << "}";
  }
  os << "\n  ]\n}\n";
  std::cout << os.str();
}

Status Validate(ValidateArgs& args, int* exit_code) {
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &args.source));
  KILN_ASSIGN_OR_RETURN(Isa isa, ParseIsa(args.isa));
  // ONNX sources: pack weights for the kernels used, place for the devices listed.
  KILN_RETURN_IF_ERROR(args.device.ApplyTo(isa, &args.source.compile));
  if (args.rtol < 0 || args.atol < 0 || args.min_sqnr < 0) {
    return InvalidArgument("--rtol, --atol and --min-sqnr must be >= 0");
  }
  std::error_code ec;
  if (!std::filesystem::exists(args.model, ec))
    return NotFound("model file '" + args.model + "' not found");
  if (!std::filesystem::is_directory(args.test_data, ec))
    return NotFound("--test-data '" + args.test_data + "' is not a directory");
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> inputs, ReadNumbered(args.test_data, "input"));
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> expected, ReadNumbered(args.test_data, "output"));
  if (expected.empty())
    return NotFound("--test-data '" + args.test_data +
                    "' has no output_N.pb or output_N.npy files");

  LoadedModel loaded;
  if (IsKilnFile(args.model)) {
    KILN_ASSIGN_OR_RETURN(loaded, LoadModel(args.model, args.source));
    KILN_RETURN_IF_ERROR(NameInputsByPosition(args.model, inputs, loaded.graph));
  } else {
    KILN_RETURN_IF_ERROR(NameInputsByPosition(args.model, inputs, nullptr));
    KILN_ASSIGN_OR_RETURN(loaded,
                          LoadModelForInputs(args.model, args.source, inputs, "test input"));
  }
  auto session = CreateSession(loaded, isa, args.threads, args.device);
  if (!session.ok()) return session.status().WithContext(args.model);
  KILN_RETURN_IF_ERROR(BindInputs(**session, inputs, "test input", !IsKilnFile(args.model)));
  KILN_RETURN_IF_ERROR(RunSession(**session).WithContext("run"));

  const size_t num_outputs = (*session)->num_outputs();
  if (expected.size() > num_outputs)
    return InvalidArgument("test data has " + std::to_string(expected.size()) +
                           " outputs but the model has " + std::to_string(num_outputs));
  std::vector<OutputResult> results;
  bool pass = true;
  for (size_t i = 0; i < expected.size(); ++i) {
    size_t index = i;  // by position unless the reference tensor is named
    if (!expected[i].name.empty()) {
      bool found = false;
      for (size_t o = 0; o < num_outputs; ++o) {
        if ((*session)->output_info(o).name == expected[i].name) {
          index = o;
          found = true;
        }
      }
      if (!found)
        return InvalidArgument("reference output '" + expected[i].name +
                               "' is not an output of the model");
    }
    KILN_ASSIGN_OR_RETURN(HostTensor actual, (*session)->GetOutput(index));
    const std::string name = (*session)->output_info(index).name;
    auto cmp = CompareTensors(actual, expected[i], args.rtol, args.atol);
    if (!cmp.ok()) return cmp.status().WithContext("output '" + name + "'");
    if (args.min_sqnr > 0) cmp->within_tolerance = cmp->sqnr_db >= args.min_sqnr;
    pass = pass && cmp->within_tolerance;
    results.push_back({name, *cmp, expected[i].num_elements()});
  }
  const std::string placement = PlacementSummary((*session)->Placement());
  if (args.json) {
    PrintJson(results, args, pass, placement);
  } else {
    PrintText(results, args, pass, placement);
  }
  if (!pass) *exit_code = kExitMismatch;
  return Status::Ok();
}

}  // namespace

void RegisterValidate(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate",
                                 "Run a test-data folder (ONNX test_data_set_N, or .npy files) and "
                                 "compare the outputs with the reference");
  cmd->add_option("model", args->model, "Model file (.onnx, .tflite or .kiln)")->required();
  cmd->add_option("--test-data", args->test_data,
                  "Folder with input_N.pb and output_N.pb (or .npy)")
      ->required();
  cmd->add_option("--rtol", args->rtol, "Relative tolerance")->default_val(1e-3);
  cmd->add_option("--atol", args->atol, "Absolute tolerance")->default_val(1e-4);
  cmd->add_option("--min-sqnr", args->min_sqnr,
                  "Pass an output on its SQNR (dB) instead of rtol/atol (e.g. 40 for "
                  "--gpu-precision fp16, docs/gpu.md)");
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  AddIsaFlag(*cmd, &args->isa);
  AddThreadsFlag(*cmd, &args->threads);
  AddDeviceFlags(*cmd, &args->device);
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback([args, exit_code] {
    RunCommand("validate", exit_code, [&] {
      int code = kExitOk;
      Status s = Validate(*args, &code);
      if (s.ok()) *exit_code = code;  // RunCommand keeps it: it only overrides on error
      return s;
    });
  });
}

}  // namespace kiln::cli
