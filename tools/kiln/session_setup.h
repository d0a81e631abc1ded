// Shared by `kiln run` and `kiln validate`: --isa, loading a model with its input tensors
// checked against what the model declares, and binding tensors to session inputs by name.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/gpu_options.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "runtime/session.h"
#include "tools/kiln/model_source.h"

namespace kiln::cli {

// True for a .kiln container (by magic bytes or extension); anything else is treated as ONNX.
bool IsKilnFile(const std::string& path);

// Adds --isa {auto,reference,scalar,avx2} to a subcommand.
void AddIsaFlag(CLI::App& cmd, std::string* isa);
Expected<Isa> ParseIsa(const std::string& name);

// Loads `model` for the named tensors: for ONNX files each tensor is checked against the
// declared input (name, dtype, rank, fixed dims) before import, then its shape fixes the
// symbolic dims and it is offered as a frozen input (bound only if it determines shapes).
// `flag` names where the tensors came from in messages ("--input", "test data").
Expected<LoadedModel> LoadModelForInputs(const std::string& model, ModelSourceOptions options,
                                         const std::vector<HostTensor>& inputs,
                                         const std::string& flag);

// Adds --threads N.
void AddThreadsFlag(CLI::App& cmd, int* threads);

// --device cpu|dsp|gpu[:N][,...] (an order of preference; the CPU always runs what the others
// cannot), --gpu-precision fp32|fp16, --dsp-scratch, --dsp-instrument, --dsp-unfused and
// --on-accelerator-failure cpu|fail.
struct DeviceArgs {
  std::string device = "cpu";
  std::string gpu_precision = "fp32";
  std::string dsp_scratch;         // --dsp-scratch (empty: the default 256 KiB)
  bool dsp_instrument = false;     // --dsp-instrument
  bool dsp_unfused = false;        // --dsp-unfused
  std::string placement = "auto";  // --placement cost|support (auto: cost for a list)
  std::string on_failure = "cpu";  // --on-accelerator-failure cpu|fail
  Expected<AcceleratorFailure> OnFailure() const;
  // Executor names for SessionOptions ("gpu" -> "opencl", "gpu:1" -> "opencl:1").
  Expected<std::vector<std::string>> Executors() const;
  Expected<GpuPrecision> Precision() const;
  Expected<uint32_t> DspScratchBytes() const;
  // Whether sessions place by estimated cost (backends/cost_placement.h).
  Expected<bool> CostPlacement() const;
  bool wants_gpu() const;
  bool wants_dsp() const;
  // What an ONNX source compiled in-process is compiled for: the CPU flavour `isa` and the
  // first accelerator listed (the GPU: placement and packing; the DSP: plain weights, placement
  // by cost).
  Status ApplyTo(Isa isa, CompileOptions* compile) const;
};
void AddDeviceFlags(CLI::App& cmd, DeviceArgs* device);

// A session over the model's graph and plan with the CPU capped at `isa`, on the devices
// asked for (GPU program binaries embedded in a .kiln file are used). Executors that cannot
// start are reported on stderr; their nodes run on the CPU.
Expected<std::unique_ptr<Session>> CreateSession(const LoadedModel& model, Isa isa, int threads,
                                                 const DeviceArgs& device = {},
                                                 bool profile = false);

// Session::Run, reporting on stderr an accelerator the run left out (its nodes moved to the CPU).
Status RunSession(Session& session);

// Sets every session input from `inputs` (by name). Unknown names, missing inputs, dtype and
// shape mismatches are errors. With `names_checked` (ONNX models, whose tensors
// LoadModelForInputs matched against the declared inputs) a tensor that is no longer a session
// input was bound as a constant at import, possibly folded away, and is skipped.
Status BindInputs(Session& session, const std::vector<HostTensor>& inputs, const std::string& flag,
                  bool names_checked);

}  // namespace kiln::cli
