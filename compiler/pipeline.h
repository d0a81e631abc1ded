// The compiler driver: the default pass pipeline, whose last passes plan the schedule
// (streams), the memory and the target backend's lowering (its payloads for the file), then the
// plan validated with the graph. What `kiln compile` runs between import and serialisation.
#pragma once

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "compiler/compile_options.h"
#include "compiler/memory/memory_planner.h"
#include "compiler/pass_manager.h"
#include "compiler/streams/stream_splitter.h"
#include "ir/execution_plan.h"

namespace kiln {

struct CompiledModel {
  Graph graph;
  ExecutionPlan plan;
  std::vector<PassReport> reports;  // one row per pass of the pipeline, in order
  MemoryPlanStats memory;
  StreamStats streams;
  // What the target backend's lowering made for the file (DSP command streams, GPU program
  // binaries); empty for the CPU.
  ModelPayloads payloads;
};

// Every pass of the default pipeline, in order (docs/compiler.md lists them).
std::vector<std::unique_ptr<Pass>> DefaultPasses();
// Names of the passes CompileOptions::disabled_passes accepts.
std::vector<std::string> KnownPassNames();

// Runs the pipeline on an imported graph (shapes propagated), then plans it.
Expected<CompiledModel> CompileGraph(Graph graph, const CompileOptions& options);

}  // namespace kiln
