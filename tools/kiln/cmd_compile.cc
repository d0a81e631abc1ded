// kiln compile MODEL.onnx -o OUT.kiln [--sign-key K] [--compress zstd[:L]|none] [-v]
// [--opt-level N] [--disable-pass NAME] [--print-ir-after NAME|all] [--streams N]
// [--target cpu[:ISA]|reference] [--weights-f16] [--model-id ID --model-version N]
// [--not-before T] [--not-after T]: the offline step. Imports the model, runs
// the compiler (passes, streams, memory plan) and writes a (signed) .kiln file.
#include <filesystem>
#include <iostream>
#include <memory>

#include "backends/backend_registry.h"
#include "backends/dsp/dsp_options.h"
#include "backends/opencl/gpu_options.h"
#include "kernels/cpu_features.h"
#include "runtime/model.h"
#include "serializer/model_writer.h"
#include "serializer/signing.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/identity_flags.h"
#include "tools/kiln/kiln_output.h"
#include "tools/kiln/model_source.h"
#include "tools/kiln/session_setup.h"

namespace kiln::cli {
namespace {

struct CompileArgs {
  std::string model;
  std::string out;
  std::string sign_key;
  std::string compress = "none";
  std::string target = "cpu";
  std::string gpu_binaries_for;
  std::string dsp_scratch;
  std::vector<std::string> print_ir_after;
  bool verbose = false;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
  ModelIdentityArgs identity;
};

// "cpu" packs for the best CPU kernels Kiln has (every packed layout also has a portable
// kernel, so the file runs on any CPU); "cpu:avx2" etc. cap that; "reference" keeps the plain
// ONNX layouts; "gpu" places nodes on the GPU where it has kernels and packs for those (the
// rest for the best CPU kernels).
Expected<Isa> ParseTarget(const std::string& target) {
  if (target == "cpu" || target == "gpu") return kBestCpuIsa;
  // The DSP reads plain weights; its CPU fallback runs the reference kernels' layouts.
  if (target == "reference" || target == "dsp") return Isa::kReference;
  if (target.rfind("cpu:", 0) == 0) {
    // The named flavour as is: the file may be meant for a CPU other than this one.
    auto isa = cpu::IsaFromName(target.substr(4));
    if (isa.ok()) return isa;
  }
  return InvalidArgument("--target '" + target +
                         "': expected cpu, cpu:ISA (scalar, avx2, ...), gpu, dsp or reference");
}

Status Compile(CompileArgs& args) {
  ModelMetadata meta;
  KILN_RETURN_IF_ERROR(args.identity.Apply(&meta));  // bad flags fail before the compile
  ModelSourceOptions& source = args.source;
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &source));
  KILN_ASSIGN_OR_RETURN(source.compile.target_isa, ParseTarget(args.target));
  const bool target_gpu = args.target == "gpu";
  if (target_gpu) {
    if (!FindBackend(kExecutorOpenCL)) {
      return Unsupported("--target gpu: this kiln was built without OpenCL (KILN_OPENCL=OFF)");
    }
    source.compile.target_backend = kExecutorOpenCL;
  } else if (args.target == "dsp") {
    source.compile.target_backend = kExecutorDsp;
    DeviceArgs scratch;
    scratch.dsp_scratch = args.dsp_scratch;
    KILN_ASSIGN_OR_RETURN(source.compile.backend_options.Mutable<DspOptions>().scratch_bytes,
                          scratch.DspScratchBytes());
  }
  if (!args.gpu_binaries_for.empty()) {
    if (!target_gpu) return InvalidArgument("--gpu-binaries-for needs --target gpu");
    // Built and tuned on that device now: the file then starts there without JIT or tuning.
    GpuOptions& gpu = source.compile.backend_options.Mutable<GpuOptions>();
    gpu.device_name = args.gpu_binaries_for;
    gpu.build_binaries = true;
  }
  source.compile.print_ir_after.insert(args.print_ir_after.begin(), args.print_ir_after.end());
  KILN_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(args.model, source));
  if (args.verbose && !loaded.reports.empty()) {
    std::cout << FormatPassReports(loaded.reports);
  }
  if (!args.dsp_scratch.empty() && args.target != "dsp") {
    return InvalidArgument("--dsp-scratch needs --target dsp");
  }
  const KernelBinaries* binaries = loaded.payloads.kernel_binaries.get();
  if (binaries) {
    size_t bytes = 0;
    for (const auto& p : binaries->programs) bytes += p.binary.size();
    std::cout << "gpu binaries: " << binaries->device << " (driver " << binaries->driver << "), "
              << binaries->programs.size() << " programs, " << bytes << " bytes, "
              << binaries->tuning.size() << " tuned kernels\n";
  }
  const DspProgramSet* dsp = loaded.payloads.dsp_programs.get();
  const ExecutionPlan& plan = *loaded.plan;

  KILN_ASSIGN_OR_RETURN(meta.source_sha256, signing::Sha256FileHex(args.model));
  meta.source_name = std::filesystem::path(args.model).filename().string();
  for (const auto& raw : args.raw_shapes) meta.compile_options.emplace_back("input-shape", raw);
  meta.compile_options.emplace_back("opt-level", std::to_string(source.compile.opt_level));
  meta.compile_options.emplace_back("target", args.target);
  meta.compile_options.emplace_back("streams", std::to_string(source.compile.streams));
  if (binaries) meta.compile_options.emplace_back("gpu-binaries-for", binaries->device);
  if (args.target == "dsp") {
    meta.compile_options.emplace_back("dsp-scratch",
                                      args.dsp_scratch.empty() ? "256K" : args.dsp_scratch);
    meta.compile_options.emplace_back("dsp-chains", std::to_string(dsp ? dsp->chains.size() : 0));
  }
  if (source.compile.weights_f16) meta.compile_options.emplace_back("weights-f16", "yes");
  if (source.compile.equalize) meta.compile_options.emplace_back("equalize", "yes");
  for (const auto& p : source.compile.disabled_passes) {
    meta.compile_options.emplace_back("disable-pass", p);
  }
  if (loaded.source_nodes >= 0) {
    meta.compile_options.emplace_back("source-nodes", std::to_string(loaded.source_nodes));
  }
  if (loaded.source_unit != "ONNX nodes") {
    meta.compile_options.emplace_back("source-format", "tflite");
  }
  KILN_ASSIGN_OR_RETURN(WrittenModel written,
                        WriteKilnModel(*loaded.graph, plan, std::move(meta),
                                       {args.out, args.compress, args.sign_key, binaries, dsp}));
  std::cout << "wrote " << args.out << " (" << written.bytes << " bytes, "
            << loaded.graph->num_nodes() << " nodes";
  if (loaded.source_nodes >= 0) {
    std::cout << " from " << loaded.source_nodes << " " << loaded.source_unit;
  }
  if (dsp) {
    std::cout << ", " << dsp->by_node.size() << " DSP command streams, " << dsp->chains.size()
              << " fused chains";
  }
  std::cout << ", arena " << plan.memory.arena_bytes << " bytes, " << plan.schedule.num_streams
            << " stream(s), compression " << args.compress << ", "
            << (written.key_id.empty() ? std::string("unsigned")
                                       : "signed by key id " + written.key_id)
            << ")\n";
  return Status::Ok();
}

}  // namespace

void RegisterCompile(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("compile", "Compile a model into a (signed) .kiln file");
  auto args = std::make_shared<CompileArgs>();
  cmd->add_option("model", args->model, "Source model (.onnx or .tflite)")->required();
  cmd->add_option("-o,--out", args->out, "Output .kiln file")->required();
  cmd->add_option("--sign-key", args->sign_key, "Ed25519 private key (PREFIX.key) to sign with");
  cmd->add_option("--compress", args->compress, "Section compression: none | zstd | zstd:LEVEL");
  cmd->add_flag("-v,--verbose", args->verbose,
                "Print every pass with its node counts, time and statistics");
  cmd->add_option("--print-ir-after", args->print_ir_after,
                  "Print the IR text after this pass (repeatable; 'all' for every pass)");
  cmd->add_option("--target", args->target,
                  "What to pack weights for: cpu (default: the best CPU kernels, runs on any "
                  "CPU), cpu:scalar|avx2|..., gpu (OpenCL kernels, CPU fallback), dsp (the "
                  "integer DSP target's command streams, CPU fallback; for quantized models), or "
                  "reference (plain ONNX layouts)");
  cmd->add_option("--dsp-scratch", args->dsp_scratch,
                  "With --target dsp: the scratchpad size to tile for (bytes, or K/M; default "
                  "256K)");
  cmd->add_option("--gpu-binaries-for", args->gpu_binaries_for,
                  "With --target gpu: build and tune the GPU kernels on the OpenCL device whose "
                  "name contains DEVICE and embed the program binaries (fp32 and fp16) in the "
                  "signed file, for a cold start there without JIT");
  cmd->add_flag("--weights-f16", args->source.compile.weights_f16,
                "Store Conv/Gemm weights as f16 (half the size; computed in f32)");
  cmd->add_flag("--equalize", args->source.compile.equalize,
                "Cross-layer equalization of Conv pairs (a float rewrite; see "
                "docs/quantization.md)");
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  AddModelIdentityFlags(*cmd, &args->identity);
  cmd->callback(
      [exit_code, args] { RunCommand("compile", exit_code, [&] { return Compile(*args); }); });
}

}  // namespace kiln::cli
