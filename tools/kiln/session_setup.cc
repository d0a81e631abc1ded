// Model loading with checked input tensors, and input binding, for `kiln run` / `kiln validate`.
#include "tools/kiln/session_setup.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "backends/dsp/dsp_options.h"
#include "backends/opencl/gpu_options.h"
#include "kernels/cpu_features.h"
#include "runtime/model.h"
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

void AddDeviceFlags(CLI::App& cmd, DeviceArgs* device) {
  cmd.add_option("--device", device->device,
                 "Where to run: cpu (default), gpu or gpu:N (OpenCL device N), dsp (the integer "
                 "DSP target, docs/dsp-target.md), or a list in order of preference such as "
                 "dsp,gpu,cpu; the CPU runs what the others cannot")
      ->default_val("cpu");
  cmd.add_option("--dsp-scratch", device->dsp_scratch,
                 "DSP scratchpad size in bytes, or with a K/M suffix (default 256K); given, it "
                 "also replaces command streams compiled into the model file");
  cmd.add_option("--placement", device->placement,
                 "How a --device list is split: cost (default for lists: an accelerator island "
                 "runs there only when its estimated compute and transfers beat the CPU) or "
                 "support (every node on the first device that supports it)")
      ->default_val("auto");
  cmd.add_flag("--dsp-instrument", device->dsp_instrument,
               "Check every DSP DMA and scratchpad access while running (slower)");
  cmd.add_flag("--dsp-unfused", device->dsp_unfused,
               "Run every DSP node on its own program, ignoring the fused chains compiled into "
               "the model file (to measure what fusion saves)");
  cmd.add_option("--on-accelerator-failure", device->on_failure,
                 "When an accelerator fails (an OpenCL error, a DSP refusal), at session start or "
                 "while running: cpu (default: its nodes run on the CPU from then on, with a "
                 "warning, and a failed run is repeated) or fail (the command fails)")
      ->default_val("cpu");
  cmd.add_option("--gpu-precision", device->gpu_precision,
                 "GPU storage: fp32 (default) or fp16 (f16 activations and weights, f32 "
                 "accumulation)")
      ->default_val("fp32");
}

bool DeviceArgs::wants_gpu() const {
  auto names = Executors();
  if (!names.ok()) return false;
  for (const auto& n : *names) {
    if (n.rfind(kExecutorOpenCL, 0) == 0) return true;
  }
  return false;
}

bool DeviceArgs::wants_dsp() const {
  auto names = Executors();
  return names.ok() && std::find(names->begin(), names->end(), kExecutorDsp) != names->end();
}

Status DeviceArgs::ApplyTo(Isa isa, CompileOptions* compile) const {
  compile->target_isa = isa;
  // The compiler places for the first accelerator of the preference order.
  KILN_ASSIGN_OR_RETURN(const std::vector<std::string> names, Executors());
  for (const std::string& name : names) {
    if (name == kExecutorCpu) continue;
    compile->target_backend = name.substr(0, name.find(':'));
    break;
  }
  if (compile->target_backend == kExecutorDsp) {
    compile->target_isa = Isa::kReference;  // the DSP reads plain weights
    KILN_ASSIGN_OR_RETURN(compile->backend_options.Mutable<DspOptions>().scratch_bytes,
                          DspScratchBytes());
  }
  return Status::Ok();
}

Expected<std::vector<std::string>> DeviceArgs::Executors() const {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= device.size()) {
    const size_t comma = device.find(',', start);
    const std::string item =
        device.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item == "cpu") {
      out.push_back(kExecutorCpu);
    } else if (item == "dsp") {
      out.push_back(kExecutorDsp);
    } else if (item == "gpu" || item == "opencl") {
      out.push_back(kExecutorOpenCL);
    } else if ((item.rfind("gpu:", 0) == 0 || item.rfind("opencl:", 0) == 0) &&
               item.size() > item.find(':') + 1 && item.size() - item.find(':') <= 4 &&
               item.find_first_not_of("0123456789", item.find(':') + 1) == std::string::npos) {
      out.push_back(std::string(kExecutorOpenCL) + item.substr(item.find(':')));
    } else {
      return InvalidArgument("--device '" + device +
                             "': expected cpu, dsp, gpu or gpu:N, or a comma "
                             "list of them (e.g. dsp,gpu,cpu)");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Expected<bool> DeviceArgs::CostPlacement() const {
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> names, Executors());
  if (placement == "cost") return true;
  if (placement == "support") return false;
  if (placement == "auto" || placement.empty()) return names.size() > 1;
  return InvalidArgument("--placement '" + placement + "': expected cost or support");
}

Expected<uint32_t> DeviceArgs::DspScratchBytes() const {
  if (dsp_scratch.empty()) return kDspDefaultScratchBytes;
  uint64_t mult = 1;
  std::string digits = dsp_scratch;
  const char last = digits.back();
  if (last == 'K' || last == 'k') mult = 1024;
  if (last == 'M' || last == 'm') mult = 1024 * 1024;
  if (mult != 1) digits.pop_back();
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgument("--dsp-scratch '" + dsp_scratch + "': expected bytes, e.g. 32K or 1M");
  }
  const uint64_t bytes = std::stoull(digits) * mult;
  if (bytes < kDspMinScratchBytes || bytes > kDspMaxScratchBytes) {
    return InvalidArgument("--dsp-scratch '" + dsp_scratch + "': must be between " +
                           std::to_string(kDspMinScratchBytes) + " and " +
                           std::to_string(kDspMaxScratchBytes) + " bytes");
  }
  return static_cast<uint32_t>(bytes);
}

Expected<AcceleratorFailure> DeviceArgs::OnFailure() const {
  if (on_failure == "cpu") return AcceleratorFailure::kFallBackToCpu;
  if (on_failure == "fail") return AcceleratorFailure::kFail;
  return InvalidArgument("--on-accelerator-failure '" + on_failure + "': expected cpu or fail");
}

Expected<GpuPrecision> DeviceArgs::Precision() const {
  if (gpu_precision == "fp32") return GpuPrecision::kFp32;
  if (gpu_precision == "fp16") return GpuPrecision::kFp16;
  return InvalidArgument("--gpu-precision '" + gpu_precision + "': expected fp32 or fp16");
}

Expected<std::unique_ptr<Session>> CreateSession(const LoadedModel& model, Isa isa, int threads,
                                                 const DeviceArgs& device, bool profile) {
  if (threads < 1) return InvalidArgument("--threads must be at least 1");
  SessionOptions options;
  options.cpu_max_isa = isa;
  options.num_threads = threads;
  options.profile = profile;
  KILN_ASSIGN_OR_RETURN(options.executors, device.Executors());
  GpuOptions& gpu = options.backend_options.Mutable<GpuOptions>();
  DspOptions& dsp = options.backend_options.Mutable<DspOptions>();
  KILN_ASSIGN_OR_RETURN(gpu.precision, device.Precision());
  KILN_ASSIGN_OR_RETURN(dsp.scratch_bytes, device.DspScratchBytes());
  dsp.instrument = device.dsp_instrument;
  dsp.chains = !device.dsp_unfused;
  dsp.replan = !device.dsp_scratch.empty();  // an explicit size overrides the file's
  KILN_ASSIGN_OR_RETURN(options.cost_placement, device.CostPlacement());
  KILN_ASSIGN_OR_RETURN(options.on_accelerator_failure, device.OnFailure());
  gpu.binaries = model.payloads.kernel_binaries;
  dsp.programs = model.payloads.dsp_programs;  // the command streams and chains, with the plan
  KILN_ASSIGN_OR_RETURN(auto session, Session::Create(model.graph, options, model.plan));
  for (const std::string& w : session->warnings()) {
    std::fprintf(stderr, "kiln: warning: %s; its nodes run on the CPU\n", w.c_str());
  }
  return session;
}

Status RunSession(Session& session) {
  const size_t seen = session.warnings().size();
  const Status st = session.Run();
  for (size_t i = seen; i < session.warnings().size(); ++i) {
    std::fprintf(stderr, "kiln: warning: %s; its nodes run on the CPU from now on\n",
                 session.warnings()[i].c_str());
  }
  return st;
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
    KILN_ASSIGN_OR_RETURN(std::vector<DeclaredInput> declared, ReadDeclaredInputs(model));
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
