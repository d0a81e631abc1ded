// kiln inspect MODEL [--json] [--ir] [--nodes]: inputs/outputs, op histogram, parameters and
// MACs of a model as compiled, its memory plan and streams, each node's provenance, or its IR
// as text.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "backends/backend_registry.h"
#include "compiler/memory/memory_planner.h"
#include "compiler/model_stats.h"
#include "ir/text_dump.h"
#include "runtime/model.h"
#include "runtime/placement.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/inspect_placement.h"
#include "tools/kiln/inspect_tensors.h"
#include "tools/kiln/model_source.h"

namespace kiln::cli {
namespace {

struct InspectArgs {
  std::string model;
  bool json = false;
  bool ir = false;
  bool nodes = false;
  bool gpu = false;
  bool tensors = false;
  DeviceArgs device;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

// What the compiler made of the model, beyond the graph statistics.
struct PlanSummary {
  int64_t onnx_nodes = -1;  // the source model's node count, when known
  std::string source_unit;  // "ONNX nodes" or "TFLite operators"
  MemoryPlanStats memory;
  int32_t streams = 1;
  int64_t events = 0;
  // GPU placement (--device gpu, or a file compiled with --target gpu): nodes per executor and
  // every CPU fallback with its reason.
  bool gpu = false;
  std::string gpu_placement;
  struct Fallback {
    std::string node, op, reason;
  };
  std::vector<Fallback> fallbacks;
  // --device LIST (other than cpu): the placement explanation (tools/kiln/inspect_placement.h).
  std::string placement_text, placement_json;
};

void SummarizeGpu(const LoadedModel& m, PlanSummary* p) {
  const Graph& g = *m.graph;
  const Backend* gpu = FindBackend(kExecutorOpenCL);
  std::vector<bool> elided(g.num_nodes(), false);
  for (NodeId e : m.plan->memory.elided) elided[static_cast<size_t>(e)] = true;
  std::vector<std::string> placement(g.num_nodes(), "-");
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    if (elided[i]) continue;
    const Node& n = g.node(static_cast<NodeId>(i));
    const NodeClaim claim =
        gpu ? gpu->Claim(g, n, {})
            : NodeClaim::Refused("this kiln was built without OpenCL (KILN_OPENCL=OFF)");
    placement[i] = claim.claimed() ? kExecutorOpenCL : kExecutorCpu;
    if (!claim.claimed()) {
      p->fallbacks.push_back({n.name, std::string(OpTypeName(n.op)), *claim.refusal});
    }
  }
  p->gpu = true;
  p->gpu_placement = PlacementSummary(placement);
}

Expected<PlanSummary> Summarize(const LoadedModel& m, bool gpu) {
  PlanSummary p;
  p.onnx_nodes = m.source_nodes;
  p.source_unit = m.source_unit;
  if (m.kiln) {
    for (const auto& [k, v] : m.kiln->info().metadata.compile_options) {
      if (k == "source-nodes") p.onnx_nodes = std::stoll(v);
      if (k == "source-format" && v == "tflite") p.source_unit = "TFLite operators";
    }
  }
  KILN_ASSIGN_OR_RETURN(p.memory, DescribeMemoryPlan(*m.graph, m.plan->memory));
  p.streams = m.plan->schedule.num_streams;
  p.events = static_cast<int64_t>(m.plan->schedule.events.size());
  bool compiled_for_gpu = false;
  for (size_t i = 0; i < m.graph->num_nodes(); ++i) {
    compiled_for_gpu |= m.graph->node(static_cast<NodeId>(i)).placement == kExecutorOpenCL;
  }
  if (gpu || compiled_for_gpu) SummarizeGpu(m, &p);
  return p;
}

std::string SourcesJson(const Node& n) {
  std::string s = "[";
  for (size_t i = 0; i < n.sources.size(); ++i) s += (i ? ", " : "") + JsonString(n.sources[i]);
  return s + "]";
}

std::string ShapeText(const TensorSummary& t) {
  return t.shape_known ? ShapeToString(t.shape) : "[?]";
}

void PrintTensorsJson(std::ostream& os, const std::vector<TensorSummary>& ts) {
  os << "[";
  for (size_t i = 0; i < ts.size(); ++i) {
    os << (i ? ", " : "") << "{\"name\": " << JsonString(ts[i].name)
       << ", \"dtype\": " << JsonString(std::string(DTypeName(ts[i].dtype))) << ", \"shape\": ";
    if (ts[i].shape_known) {
      os << "[";
      for (size_t d = 0; d < ts[i].shape.size(); ++d) os << (d ? ", " : "") << ts[i].shape[d];
      os << "]";
    } else {
      os << "null";
    }
    os << "}";
  }
  os << "]";
}

void PrintJson(const std::string& path, const ModelStats& s, const PlanSummary& p,
               const LoadedModel& m, bool nodes, bool tensors) {
  std::ostringstream os;
  os << "{\n  \"model\": " << JsonString(path) << ",\n  \"inputs\": ";
  PrintTensorsJson(os, s.inputs);
  os << ",\n  \"outputs\": ";
  PrintTensorsJson(os, s.outputs);
  os << ",\n  \"num_nodes\": " << s.num_nodes << ",\n  \"op_histogram\": {";
  bool first = true;
  for (const auto& [op, count] : s.op_histogram) {
    os << (first ? "" : ", ") << JsonString(op) << ": " << count;
    first = false;
  }
  os << "},\n  \"parameter_count\": " << s.parameter_count
     << ",\n  \"parameter_bytes\": " << s.parameter_bytes << ",\n  \"macs\": " << s.macs
     << ",\n  \"macs_unknown_nodes\": [";
  for (size_t i = 0; i < s.macs_unknown_nodes.size(); ++i)
    os << (i ? ", " : "") << JsonString(s.macs_unknown_nodes[i]);
  os << "],\n  \"onnx_nodes\": ";
  if (p.onnx_nodes >= 0) {
    os << p.onnx_nodes;
  } else {
    os << "null";
  }
  os << ",\n  \"memory\": {\"arena_bytes\": " << p.memory.arena_bytes
     << ", \"lower_bound_bytes\": " << p.memory.lower_bound_bytes
     << ", \"no_reuse_bytes\": " << p.memory.no_reuse_bytes
     << ", \"inplace_ops\": " << p.memory.inplace_ops
     << ", \"elided_views\": " << p.memory.elided_views
     << ", \"elided_concats\": " << p.memory.elided_concats
     << "},\n  \"streams\": {\"count\": " << p.streams << ", \"events\": " << p.events << "}";
  if (p.gpu) {
    os << ",\n  \"gpu\": {\"placement\": " << JsonString(p.gpu_placement) << ", \"fallbacks\": [";
    for (size_t i = 0; i < p.fallbacks.size(); ++i) {
      os << (i ? ", " : "") << "{\"node\": " << JsonString(p.fallbacks[i].node)
         << ", \"op\": " << JsonString(p.fallbacks[i].op)
         << ", \"reason\": " << JsonString(p.fallbacks[i].reason) << "}";
    }
    os << "]}";
  }
  if (!p.placement_json.empty()) os << ",\n  \"placement\": " << p.placement_json;
  if (nodes) {
    os << ",\n  \"nodes\": [";
    const Graph& g = *m.graph;
    for (size_t i = 0; i < g.num_nodes(); ++i) {
      const Node& n = g.node(static_cast<NodeId>(i));
      os << (i ? "," : "") << "\n    {\"name\": " << JsonString(n.name)
         << ", \"op\": " << JsonString(std::string(OpTypeName(n.op)))
         << ", \"stream\": " << m.plan->schedule.stream[i] << ", \"sources\": " << SourcesJson(n)
         << "}";
    }
    os << "\n  ]";
  }
  if (tensors) {
    os << ",\n  \"tensors\": ";
    PrintTensorJson(os, *m.graph);
  }
  os << "\n}\n";
  std::cout << os.str();
}

void PrintText(const std::string& path, const ModelStats& s, const PlanSummary& p,
               const LoadedModel& m, bool nodes, bool tensors) {
  std::ostringstream os;
  os << "model: " << path << "\ninputs:\n";
  for (const auto& t : s.inputs)
    os << "  " << t.name << "  " << DTypeName(t.dtype) << " " << ShapeText(t) << "\n";
  os << "outputs:\n";
  for (const auto& t : s.outputs)
    os << "  " << t.name << "  " << DTypeName(t.dtype) << " " << ShapeText(t) << "\n";
  os << "nodes: " << s.num_nodes << "\nops:\n";
  for (const auto& [op, count] : s.op_histogram)
    os << "  " << std::left << std::setw(24) << op << std::right << std::setw(6) << count << "\n";
  os << "parameters: " << GroupDigits(s.parameter_count) << " (" << GroupDigits(s.parameter_bytes)
     << " bytes, " << std::fixed << std::setprecision(2)
     << static_cast<double>(s.parameter_bytes) / (1 << 20) << " MiB)\n";
  os << "MACs: " << GroupDigits(s.macs) << " (" << std::setprecision(3)
     << static_cast<double>(s.macs) / 1e9 << " G; Conv, ConvTranspose, Gemm, MatMul)";
  if (!s.macs_unknown_nodes.empty())
    os << ", lower bound: " << s.macs_unknown_nodes.size() << " node(s) with unknown shapes";
  os << "\n";
  if (p.onnx_nodes >= 0) os << "source " << p.source_unit << ": " << p.onnx_nodes << "\n";
  auto kib = [](uint64_t b) {
    return GroupDigits(static_cast<int64_t>((b + 1023) / 1024)) + " KiB";
  };
  os << "memory: arena " << kib(p.memory.arena_bytes) << ", lower bound "
     << kib(p.memory.lower_bound_bytes) << ", without reuse " << kib(p.memory.no_reuse_bytes)
     << "; " << p.memory.inplace_ops << " in place, " << p.memory.elided_views << " views and "
     << p.memory.elided_concats << " concats elided\n";
  os << "streams: " << p.streams << " (" << p.events << " events)\n";
  if (p.gpu) {
    os << "gpu placement: " << p.gpu_placement << "\n";
    if (!p.fallbacks.empty()) os << "cpu fallbacks (node, op: reason):\n";
    for (const auto& f : p.fallbacks)
      os << "  " << f.node << "  " << f.op << ": " << f.reason << "\n";
  }
  os << p.placement_text;
  if (nodes) {
    const Graph& g = *m.graph;
    os << "nodes (name, op, stream <- source ONNX nodes):\n";
    for (size_t i = 0; i < g.num_nodes(); ++i) {
      const Node& n = g.node(static_cast<NodeId>(i));
      os << "  " << n.name << "  " << OpTypeName(n.op) << "  s" << m.plan->schedule.stream[i]
         << "  <-";
      for (size_t k = 0; k < n.sources.size(); ++k) os << (k ? ", " : " ") << n.sources[k];
      os << "\n";
    }
  }
  if (tensors) PrintTensorTable(os, *m.graph);
  std::cout << os.str();
}

}  // namespace

void RegisterInspect(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  auto* cmd =
      app.add_subcommand("inspect", "Show a model's inputs, outputs, ops, parameters and MACs");
  cmd->add_option("model", args->model, "Model file (.onnx, .tflite or .kiln)")->required();
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  cmd->add_flag("--ir", args->ir, "Print the IR (as compiled) as text");
  cmd->add_flag("--nodes", args->nodes,
                "List every node with its stream and the source ONNX nodes it came from");
  cmd->add_flag("--gpu", args->gpu,
                "Compile ONNX sources for the GPU and list the nodes that fall back to the CPU, "
                "with the reason (automatic for files compiled with --target gpu)");
  cmd->add_flag("--tensors", args->tensors,
                "List every tensor: dtype, shape, and scale/offset of quantized ones");
  AddDeviceFlags(*cmd, &args->device);
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback([args, exit_code] {
    RunCommand("inspect", exit_code, [&]() -> Status {
      KILN_RETURN_IF_ERROR(ParseInputShapes(args->raw_shapes, &args->source));
      if (args->gpu || args->device.wants_gpu()) {
        args->source.compile.target_backend = kExecutorOpenCL;
      }
      KILN_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(args->model, args->source));
      if (args->ir) {
        std::cout << GraphToText(*loaded.graph);
        return Status::Ok();
      }
      const ModelStats stats = ComputeModelStats(*loaded.graph);
      KILN_ASSIGN_OR_RETURN(PlanSummary plan, Summarize(loaded, args->gpu));
      if (args->device.device != "cpu") {
        KILN_ASSIGN_OR_RETURN(plan.placement_text, PlacementText(loaded, args->device));
        KILN_ASSIGN_OR_RETURN(plan.placement_json, PlacementJson(loaded, args->device));
      }
      if (args->json) {
        PrintJson(args->model, stats, plan, loaded, args->nodes, args->tensors);
      } else {
        PrintText(args->model, stats, plan, loaded, args->nodes, args->tensors);
      }
      return Status::Ok();
    });
  });
}

}  // namespace kiln::cli
