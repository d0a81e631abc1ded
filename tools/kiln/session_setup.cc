// Model loading with checked input tensors, and input binding, for `kiln run` / `kiln validate`.
#include "tools/kiln/session_setup.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kernels/cpu/cpu_features.h"
#include "serializer/format.h"
#include "tools/kiln/onnx_inputs.h"

namespace kiln::cli {

bool IsKilnFile(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".kiln") == 0) return true;
  std::ifstream in(path, std::ios::binary);
  char head[format::kMagic.size()] = {};
  in.read(head, sizeof(head));
  return in.gcount() == static_cast<std::streamsize>(sizeof(head)) &&
         std::equal(format::kMagic.begin(), format::kMagic.end(),
                    reinterpret_cast<const uint8_t*>(head));
}

void AddThreadsFlag(CLI::App& cmd, int* threads) {
  cmd.add_option("--threads", *threads,
                 "Threads of the session (kernels and streams share them; default 1)")
      ->default_val(1);
}

Expected<std::unique_ptr<Session>> CreateSession(const LoadedModel& model, Isa isa, int threads) {
  if (threads < 1) return InvalidArgument("--threads must be at least 1");
  SessionOptions options;
  options.cpu_max_isa = isa;
  options.num_threads = threads;
  return Session::Create(model.graph, options, model.plan);
}

void AddIsaFlag(CLI::App& cmd, std::string* isa) {
  cmd.add_option("--isa", *isa,
                 "Most specialised CPU kernels to use (a cap, lowered to what this CPU runs): "
                 "auto (best this CPU has), reference, scalar, avx2, avx512, avx512vnni")
      ->default_val("auto");
}

Expected<Isa> ParseIsa(const std::string& name) { return cpu::ParseCpuIsa(name); }

Expected<LoadedModel> LoadModelForInputs(const std::string& model, ModelSourceOptions options,
                                         const std::vector<HostTensor>& inputs,
                                         const std::string& flag) {
  std::error_code ec;
  if (!std::filesystem::exists(model, ec)) return NotFound("model file '" + model + "' not found");
  if (!IsKilnFile(model) && !std::filesystem::is_directory(model, ec)) {
    KILN_ASSIGN_OR_RETURN(std::vector<DeclaredInput> declared, ReadOnnxDeclaredInputs(model));
    for (const HostTensor& t : inputs) {
      const DeclaredInput* match = nullptr;
      for (const auto& d : declared)
        if (d.name == t.name) match = &d;
      if (!match)
        return InvalidArgument(flag + " '" + t.name + "': the model has no input named '" + t.name +
                               "'; its inputs are: " + InputNames(declared));
      KILN_RETURN_IF_ERROR(CheckAgainstDeclared(*match, t, flag + " '" + t.name + "'"));
      if (!options.input_shapes.count(t.name)) options.input_shapes[t.name] = t.shape;
    }
    options.frozen_inputs = inputs;
  }
  return LoadModel(model, options);
}

Status BindInputs(Session& session, const std::vector<HostTensor>& inputs, const std::string& flag,
                  bool names_checked) {
  const Graph& g = session.graph();
  std::vector<bool> set(session.num_inputs(), false);
  for (const HostTensor& t : inputs) {
    auto index = session.InputIndex(t.name);
    if (!index.ok()) {
      // Bound as a constant at import (it determines shapes): nothing to feed.
      if (names_checked) continue;
      if (auto id = g.FindValue(t.name); id && g.value(*id).is_constant()) continue;
      return InvalidArgument(flag + " '" + t.name + "': " + index.status().message());
    }
    const Value& info = session.input_info(*index);
    if (t.dtype != info.dtype)
      return InvalidArgument(flag + " '" + t.name + "': the tensor is " +
                             std::string(DTypeName(t.dtype)) + " but the model input is " +
                             std::string(DTypeName(info.dtype)));
    if (t.shape != info.shape)
      return InvalidArgument(flag + " '" + t.name + "': the tensor has shape " +
                             ShapeToString(t.shape) + " but the model input has " +
                             ShapeToString(info.shape));
    KILN_RETURN_IF_ERROR(session.SetInput(*index, t).WithContext("input '" + t.name + "'"));
    set[*index] = true;
  }
  std::string missing;
  for (size_t i = 0; i < set.size(); ++i) {
    if (set[i]) continue;
    const Value& info = session.input_info(i);
    missing += (missing.empty() ? "" : ", ") + info.name + " (" +
               std::string(DTypeName(info.dtype)) + " " + ShapeToString(info.shape) + ")";
  }
  if (!missing.empty())
    return InvalidArgument("missing " + flag + " for model input(s): " + missing);
  return Status::Ok();
}

}  // namespace kiln::cli
