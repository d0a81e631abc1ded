// Session::Impl's creation steps: executors, placement, buffers by memory domain, one step per
// node with the copies at domain boundaries, host scratch and the streams' workers.
#include <algorithm>

#include "backends/backend_registry.h"
#include "runtime/executor_factory.h"
#include "runtime/placement.h"
#include "runtime/session_impl.h"

namespace kiln {

Expected<DeviceBuffer*> Session::Impl::AllocateIn(int domain, size_t bytes) {
  Executor* ex = ExecutorOf(domain);
  KILN_ASSIGN_OR_RETURN(auto buf, Blame(ex, ex->Allocate(bytes)));
  owned.push_back(std::move(buf));
  return owned.back().get();
}

Expected<void*> Session::Impl::BufferFor(const Graph& g, const MemoryPlan& plan, ValueId v,
                                         int domain) {
  const Value& val = g.value(v);
  const size_t bytes = val.byte_size();
  const int64_t off = plan.offsets[static_cast<size_t>(v)];
  if (off == MemoryPlan::kNotPlanned) {
    if (graph_io(g, v)) memory.io_bytes += bytes;
    KILN_ASSIGN_OR_RETURN(DeviceBuffer * buf, AllocateIn(domain, bytes));
    return Blame(ExecutorOf(domain), buf->Region(0, bytes, val.dtype));
  }
  DeviceBuffer*& arena_buf = arena[static_cast<size_t>(domain)];
  if (arena_buf == nullptr) {
    KILN_ASSIGN_OR_RETURN(arena_buf, AllocateIn(domain, plan.arena_bytes));
  }
  return Blame(ExecutorOf(domain), arena_buf->Region(static_cast<size_t>(off), bytes, val.dtype));
}

Status Session::Impl::EnsureIn(const Graph& g, const MemoryPlan& plan, ValueId v, int domain) {
  auto& m = buffers[static_cast<size_t>(v)];
  if (m.count(domain)) return Status::Ok();
  const Value& val = g.value(v);
  if (!parts[static_cast<size_t>(v)].empty()) {
    for (ValueId p : parts[static_cast<size_t>(v)]) {
      KILN_RETURN_IF_ERROR(EnsureIn(g, plan, p, domain));
    }
    KILN_ASSIGN_OR_RETURN(m[domain], BufferFor(g, plan, v, domain));
    return Status::Ok();
  }
  const int src = home[static_cast<size_t>(v)];
  if (src != kHostDomain && domain != kHostDomain) {
    KILN_RETURN_IF_ERROR(EnsureIn(g, plan, v, kHostDomain));
  }
  KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, plan, v, domain));
  m[domain] = h;
  if (val.is_constant()) {  // constants live on the host: one upload at creation
    Executor* ex = ExecutorOf(domain);
    return Blame(ex, ex->Upload(m.at(kHostDomain), h, val.byte_size(), val.dtype, 0));
  }
  Copy c;
  c.upload = domain != kHostDomain;
  c.executor = ExecutorOf(c.upload ? domain : src);
  c.host = c.upload ? m.at(kHostDomain) : h;
  c.device = c.upload ? h : m.at(src);
  c.bytes = val.byte_size();
  c.dtype = val.dtype;
  ++copies_per_run;
  if (val.producer == kNoNode) {
    prologue.push_back(c);
  } else {
    const auto [st, index] = step_of[static_cast<size_t>(val.producer)];
    streams[st][index].copies_after.push_back(c);
  }
  return Status::Ok();
}

Status Session::Impl::StartExecutors(const Graph& g, const Schedule& sched,
                                     const SessionOptions& options,
                                     std::vector<std::string>& warnings) {
  bool has_cpu = false;
  domain_executor.push_back(nullptr);  // host domain
  for (const std::string& name : options.executors) {
    auto made = MakeExecutor(name, options, pool.get());
    if (!made.ok()) {
      // An accelerator that is not there is not fatal: the CPU runs its nodes.
      if (made.status().code() == StatusCode::kNotFound) {
        warnings.push_back(made.status().message());
        continue;
      }
      // Nor one that fails to start, unless asked to fail (a bad name or device number is
      // the caller's error either way).
      if (made.status().code() != StatusCode::kInvalidArgument && name != kExecutorCpu &&
          options.on_accelerator_failure == AcceleratorFailure::kFallBackToCpu) {
        warnings.push_back("executor '" + name + "' failed at session creation (" +
                           made.status().message() + ")");
        continue;
      }
      return made.status();
    }
    std::unique_ptr<Executor> ex = std::move(made).value();
    has_cpu |= ex->name() == kExecutorCpu;  // the DSP shares host memory, not CPU ops
    executor_domain.push_back(ex->host_memory() ? kHostDomain
                                                : static_cast<int>(domain_executor.size()));
    if (!ex->host_memory()) {
      domain_executor.push_back(ex.get());
      async.push_back(ex.get());
    }
    executors.push_back(std::move(ex));
    requested.push_back(name);
  }
  if (!has_cpu) {  // CPU fallback is always there
    KILN_ASSIGN_OR_RETURN(auto ex, MakeExecutor(kExecutorCpu, options, pool.get()));
    executor_domain.push_back(kHostDomain);
    executors.push_back(std::move(ex));
    requested.push_back(kExecutorCpu);
  }
  for (Executor* ex : async) {
    KILN_RETURN_IF_ERROR(
        Blame(ex, ex->Configure(sched.num_streams, sched.events.size(),
                                options.profile ? static_cast<int>(g.num_nodes()) : 0)));
  }
  arena.assign(domain_executor.size(), nullptr);
  return Status::Ok();
}

Expected<std::vector<size_t>> Session::Impl::Place(const Graph& g, const std::vector<bool>& elided,
                                                   const SessionOptions& options,
                                                   std::optional<CostPlacement>* cost_placement) {
  // Elided nodes run nowhere; the rest are placed by executor claims.
  std::vector<Executor*> by_priority;
  for (auto& e : executors) by_priority.push_back(e.get());
  std::vector<std::string> preferred;
  if (options.cost_placement) {
    std::vector<std::string> names;
    for (Executor* e : by_priority) names.push_back(e->name());
    KILN_ASSIGN_OR_RETURN(*cost_placement, PlaceByCost(g, names, options.backend_options, elided));
    preferred = (*cost_placement)->placement;
  }
  return PlaceNodes(g, by_priority, elided, preferred);
}

Status Session::Impl::BindConstantsAndInputs(const Graph& g, const MemoryPlan& mp) {
  buffers.resize(g.num_values());
  parts.resize(g.num_values());
  home.assign(g.num_values(), kHostDomain);
  for (size_t v = 0; v < g.num_values(); ++v) {
    const Value& val = g.value(static_cast<ValueId>(v));
    if (val.is_constant()) {  // used in place: no copy for host executors
      buffers[v][kHostDomain] = const_cast<uint8_t*>(val.constant->data());
    }
  }
  for (ValueId in : g.inputs()) {
    KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, mp, in, kHostDomain));
    buffers[static_cast<size_t>(in)][kHostDomain] = h;
  }
  input_set.assign(g.inputs().size(), false);
  return Status::Ok();
}

Expected<std::vector<size_t>> Session::Impl::BuildSteps(const Graph& g, const ExecutionPlan& plan,
                                                        const std::vector<size_t>& placement,
                                                        const std::vector<bool>& elided,
                                                        bool profile_on,
                                                        std::vector<NodeProfile>& profile) {
  const MemoryPlan& mp = plan.memory;
  const Schedule& sched = plan.schedule;
  streams.resize(static_cast<size_t>(sched.num_streams));
  step_of.resize(g.num_nodes());
  std::vector<size_t> scratch_need(static_cast<size_t>(sched.num_streams), 0);
  std::vector<int> profile_slots(executors.size(), 0);
  for (size_t n = 0; n < g.num_nodes(); ++n) {
    const auto id = static_cast<NodeId>(n);
    const Node& node = g.node(id);
    const int st = sched.stream[n];
    auto& stream = streams[static_cast<size_t>(st)];
    step_of[n] = {static_cast<size_t>(st), stream.size()};
    if (elided[n]) {
      // Its output already holds the result (a view or a Concat written in place): its bytes
      // are its inputs', in whichever domain reads it. A no-op step keeps the events.
      // (A view's bytes are its data input's; its other inputs, such as Reshape's shape, are
      // not part of it.)
      const size_t num_parts = node.op == OpType::kConcat ? node.inputs.size() : 1;
      for (ValueId out : node.outputs) {
        if (out == kNoValue) continue;
        for (size_t i = 0; i < num_parts && i < node.inputs.size(); ++i) {
          if (node.inputs[i] != kNoValue) parts[static_cast<size_t>(out)].push_back(node.inputs[i]);
        }
      }
      Impl::Step step;
      step.kind = Impl::Step::kNoop;
      step.node = id;
      step.stream = st;
      stream.push_back(std::move(step));
    } else {
      const size_t e = placement[n];
      Executor* ex = executors[e].get();
      const int domain = executor_domain[e];
      Impl::Step step;
      step.node = id;
      step.stream = st;
      step.executor = ex;
      KILN_ASSIGN_OR_RETURN(step.kernel, Blame(ex, ex->CreateKernel(g, node)));
      for (ValueId in : node.inputs) {
        TensorView view;
        if (in != kNoValue) {
          view.dtype = g.value(in).dtype;
          view.shape = &g.value(in).shape;
          if (!(g.value(in).is_constant() && ex->binds_constants())) {
            KILN_RETURN_IF_ERROR(EnsureIn(g, mp, in, domain));
            view.data = buffers[static_cast<size_t>(in)][domain];
          }
        }
        step.inputs.push_back(view);
      }
      for (ValueId out : node.outputs) {
        TensorView view;
        if (out != kNoValue) {
          KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, mp, out, domain));
          buffers[static_cast<size_t>(out)][domain] = h;
          home[static_cast<size_t>(out)] = domain;
          view.data = h;
          view.dtype = g.value(out).dtype;
          view.shape = &g.value(out).shape;
        }
        step.outputs.push_back(view);
      }
      // Kernels of one stream run one at a time: they share the stream's scratch.
      auto& need = scratch_need[static_cast<size_t>(st)];
      if (domain == kHostDomain) need = std::max(need, step.kernel->ScratchBytes());
      if (domain != kHostDomain && step.kernel->ScratchBytes()) {
        KILN_ASSIGN_OR_RETURN(DeviceBuffer * buf, AllocateIn(domain, step.kernel->ScratchBytes()));
        KILN_ASSIGN_OR_RETURN(step.scratch, Blame(ex, buf->Region(0, step.kernel->ScratchBytes(),
                                                                  DType::kUndefined)));
      }
      if (profile_on) {
        step.profile_index = static_cast<int>(profile.size());
        if (domain != kHostDomain) step.profile_slot = profile_slots[e]++;
        profile.push_back({node.name, node.op, ex->name(), 0.0, 0});
      }
      stream.push_back(std::move(step));
      // Graph outputs produced off the host are copied back right after their producer.
      for (ValueId out : node.outputs) {
        if (out != kNoValue && Impl::graph_io(g, out)) {
          KILN_RETURN_IF_ERROR(EnsureIn(g, mp, out, kHostDomain));
        }
      }
    }
    for (size_t ev = 0; ev < sched.events.size(); ++ev) {
      if (sched.events[ev].wait == id) stream.back().waits.push_back(ev);
      if (sched.events[ev].signal == id) stream.back().signals.push_back(ev);
    }
  }
  for (ValueId out : g.outputs()) {  // outputs that are inputs or constants: on the host
    KILN_RETURN_IF_ERROR(EnsureIn(g, mp, out, kHostDomain));
  }
  return scratch_need;
}

Status Session::Impl::AllocateHostScratch(const std::vector<size_t>& scratch_need) {
  for (size_t st = 0; st < streams.size(); ++st) {
    if (scratch_need[st] == 0) continue;
    KILN_ASSIGN_OR_RETURN(DeviceBuffer * buf, AllocateIn(kHostDomain, scratch_need[st]));
    KILN_ASSIGN_OR_RETURN(void* scratch, buf->Region(0, scratch_need[st], DType::kUndefined));
    memory.scratch_bytes += scratch_need[st];
    for (auto& step : streams[st]) {
      if (step.kind == Impl::Step::kKernel && step.scratch == nullptr &&
          step.executor->host_memory()) {
        step.scratch = scratch;
      }
    }
  }
  return Status::Ok();
}

void Session::Impl::PrepareStreams(const Schedule& sched, Session* self) {
  events = std::vector<std::atomic<uint64_t>>(sched.events.size());
  concurrent = sched.num_streams > 1 && pool->CanRunConcurrently(streams.size());
  if (concurrent) {
    // The stream workers' bodies, made once: Run() allocates nothing.
    stream_results.resize(streams.size());
    stream_culprits.resize(streams.size());
    for (size_t st = 0; st < streams.size(); ++st) {
      stream_bodies.emplace_back([this, self, st] {
        stream_results[st] =
            RunStream(streams[st], *self->graph_, self->profile_, &stream_culprits[st]);
      });
    }
    stream_tasks.assign(stream_bodies.begin(), stream_bodies.end());
  }
}

Status Session::Impl::Build(const Graph& g, const ExecutionPlan& plan,
                            const SessionOptions& options, Session* self,
                            std::vector<std::string>& warnings, std::vector<NodeProfile>& profile,
                            std::optional<CostPlacement>* cost) {
  const MemoryPlan& mp = plan.memory;
  const Schedule& sched = plan.schedule;
  std::vector<bool> elided(g.num_nodes(), false);
  for (NodeId e : mp.elided) elided[static_cast<size_t>(e)] = true;
  pool = std::make_unique<ThreadPool>(options.num_threads);
  KILN_RETURN_IF_ERROR(StartExecutors(g, sched, options, warnings));
  KILN_ASSIGN_OR_RETURN(std::vector<size_t> placement, Place(g, elided, options, cost));
  KILN_RETURN_IF_ERROR(BindConstantsAndInputs(g, mp));
  KILN_ASSIGN_OR_RETURN(std::vector<size_t> scratch_need,
                        BuildSteps(g, plan, placement, elided, options.profile, profile));
  KILN_RETURN_IF_ERROR(AllocateHostScratch(scratch_need));
  PrepareStreams(sched, self);
  memory.arena_bytes = mp.arena_bytes;
  memory.streams = sched.num_streams;
  memory.concurrent = concurrent;
  return Status::Ok();
}

}  // namespace kiln
