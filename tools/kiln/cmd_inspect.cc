// kiln inspect MODEL [--json] [--ir]: inputs/outputs, op histogram, parameters and MACs of a
// model, or its IR as text.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "compiler/model_stats.h"
#include "ir/text_dump.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/model_source.h"

namespace kiln::cli {
namespace {

struct InspectArgs {
  std::string model;
  bool json = false;
  bool ir = false;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

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

void PrintJson(const std::string& path, const ModelStats& s) {
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
  os << "]\n}\n";
  std::cout << os.str();
}

void PrintText(const std::string& path, const ModelStats& s) {
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
  std::cout << os.str();
}

}  // namespace

void RegisterInspect(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  auto* cmd =
      app.add_subcommand("inspect", "Show a model's inputs, outputs, ops, parameters and MACs");
  cmd->add_option("model", args->model, "Model file (.onnx or .kiln)")->required();
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  cmd->add_flag("--ir", args->ir,
                "Print the IR (after import, shape propagation and folding) as text");
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback([args, exit_code] {
    RunCommand("inspect", exit_code, [&]() -> Status {
      KILN_RETURN_IF_ERROR(ParseInputShapes(args->raw_shapes, &args->source));
      KILN_ASSIGN_OR_RETURN(auto graph, LoadModel(args->model, args->source));
      if (args->ir) {
        std::cout << GraphToText(*graph);
        return Status::Ok();
      }
      const ModelStats stats = ComputeModelStats(*graph);
      if (args->json) {
        PrintJson(args->model, stats);
      } else {
        PrintText(args->model, stats);
      }
      return Status::Ok();
    });
  });
}

}  // namespace kiln::cli
