// Session::Impl's run loop: the input copies, every step in graph order or each stream on its
// worker with events between them, the executors' synchronisation and device timings; and
// Session::Run, which repeats a failed run without the accelerator that failed.
#include <chrono>

#include "runtime/session_impl.h"

namespace kiln {

Status Session::Impl::RunCopy(const Copy& c, int stream) {
  return c.upload ? c.executor->Upload(c.host, c.device, c.bytes, c.dtype, stream)
                  : c.executor->Download(c.device, c.host, c.bytes, c.dtype, stream);
}

Status Session::Impl::RunStep(Step& step, const Graph& g, std::vector<NodeProfile>& profile,
                              Executor** culprit) {
  // Queued work of another stream that this node waits for (host-side order is RunStream's).
  for (size_t e : step.waits) {
    for (Executor* ex : async) {
      if (Status st = ex->DeviceWait(step.stream, e); !st.ok()) {
        *culprit = ex;
        return st.WithContext(DescribeNode(g.node(step.node)));
      }
    }
  }
  Status st;
  if (step.kind == Step::kKernel) {
    const auto t0 = std::chrono::steady_clock::now();
    st = step.executor->Execute(*step.kernel, step.inputs, step.outputs, step.scratch,
                                StepContext{step.stream, step.profile_slot});
    if (!st.ok()) *culprit = step.executor;
    if (st.ok() && step.profile_index >= 0 && step.profile_slot < 0) {
      const auto t1 = std::chrono::steady_clock::now();
      NodeProfile& p = profile[static_cast<size_t>(step.profile_index)];
      p.total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
      p.runs++;
    }
  }
  for (size_t i = 0; i < step.copies_after.size() && st.ok(); ++i) {
    st = RunCopy(step.copies_after[i], step.stream).WithContext("output copy");
    if (!st.ok()) *culprit = step.copies_after[i].executor;
  }
  if (!st.ok()) {
    const Node& node = g.node(step.node);
    return st.WithContext(DescribeNode(node));
  }
  for (size_t e : step.signals) {
    for (Executor* ex : async) {
      if (Status m = ex->Mark(step.stream, e); !m.ok()) {
        *culprit = ex;
        return m.WithContext(DescribeNode(g.node(step.node)));
      }
    }
  }
  return Status::Ok();
}

Status Session::Impl::RunStream(std::vector<Step>& steps, const Graph& g,
                                std::vector<NodeProfile>& profile, Executor** culprit) {
  Status first;
  for (Step& step : steps) {
    for (size_t e : step.waits) {
      // Waiting lends this thread to the other streams' kernels (their ParallelFor shares).
      pool->HelpUntil([&] { return events[e].load(std::memory_order_acquire) == generation; });
    }
    // After a failure the stream still signals its events, so no other stream waits forever.
    if (first.ok()) first = RunStep(step, g, profile, culprit);
    for (size_t e : step.signals) events[e].store(generation, std::memory_order_release);
    if (!step.signals.empty()) pool->Wake();
  }
  return first;
}

Status Session::Run() {
  for (;;) {
    Executor* culprit = nullptr;
    const Status st = impl_->RunOnce(*graph_, profile_, &culprit);
    if (st.ok() || !FallsBack(culprit)) return st;
    // The failed run is repeated without the accelerator (a fresh start: nothing of it is
    // kept), which leaves the session's later runs on the CPU too.
    KILN_RETURN_IF_ERROR(FallBack(culprit, st));
  }
}

Status Session::Impl::RunOnce(const Graph& g, std::vector<NodeProfile>& profile,
                              Executor** culprit) {
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    if (!input_set[i]) {
      return InvalidArgument("input '" + g.value(g.inputs()[i]).name + "' not set");
    }
  }
  ++generation;
  for (const Copy& c : prologue) {
    if (Status st = RunCopy(c, 0); !st.ok()) {
      *culprit = c.executor;
      return st.WithContext("input copy");
    }
  }
  if (!concurrent) {
    // One stream, or too few threads for the streams: every node in graph order.
    for (size_t n = 0; n < g.num_nodes(); ++n) {
      const auto [st, index] = step_of[n];
      KILN_RETURN_IF_ERROR(RunStep(streams[st][index], g, profile, culprit));
    }
  } else {
    std::fill(stream_culprits.begin(), stream_culprits.end(), nullptr);
    pool->RunTasks(stream_tasks);
    for (size_t st = 0; st < stream_results.size(); ++st) {
      if (!stream_results[st].ok()) {
        *culprit = stream_culprits[st];
        return stream_results[st];
      }
    }
  }
  for (auto& ex : executors) {
    if (Status st = ex->Synchronize(); !st.ok()) {
      *culprit = ex.get();
      return st;
    }
  }
  if (!profile.empty()) {  // device-timed steps: read their timestamps now that all is done
    for (const auto& stream : streams) {
      for (const auto& step : stream) {
        if (step.profile_slot < 0) continue;
        const std::optional<double> ms = step.executor->ProfiledMs(step.profile_slot);
        if (!ms) continue;
        NodeProfile& p = profile[static_cast<size_t>(step.profile_index)];
        p.total_ms += *ms;
        p.runs++;
      }
    }
  }
  return Status::Ok();
}

}  // namespace kiln
