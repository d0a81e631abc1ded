// Session: placement, buffer allocation per memory domain, copies at domain boundaries, and
// the run loop.
#include "runtime/session.h"

#include <chrono>
#include <cstring>
#include <map>

#include "runtime/placement.h"

namespace kiln {
namespace {

constexpr int kHostDomain = 0;

Expected<std::unique_ptr<Executor>> MakeExecutor(const std::string& name,
                                                 const SessionOptions& options,
                                                 ThreadPool* pool) {
  if (name == kExecutorCpu) return MakeCpuExecutor(options.cpu_max_isa, pool);
  return Unsupported("executor '" + name + "' is not available in this runtime build");
}

}  // namespace

struct Session::Impl {
  std::unique_ptr<ThreadPool> pool;  // declared first: executors and kernels use it
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<int> executor_domain;         // domain of each executor
  std::vector<Executor*> domain_executor;   // executor owning each non-host domain (host: null)
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  // value -> domain -> handle
  std::vector<std::map<int, void*>> buffers;
  std::vector<int> home;  // domain each value is produced in
  std::vector<bool> input_set;

  struct Step {
    enum Kind { kKernel, kCopy } kind = kKernel;
    // kernel step
    size_t node = 0;
    Executor* executor = nullptr;
    std::unique_ptr<Kernel> kernel;
    std::vector<TensorView> inputs, outputs;
    void* scratch = nullptr;
    // copy step
    ValueId value = kNoValue;
    int from = 0, to = 0;
    size_t bytes = 0;
    DeviceBuffer* from_buf = nullptr;
    DeviceBuffer* to_buf = nullptr;
    void* from_host = nullptr;
    void* to_host = nullptr;
  };
  std::vector<Step> steps;
  std::map<void*, DeviceBuffer*> handle_owner;

  Expected<void*> AllocateIn(int domain, size_t bytes) {
    Executor* ex = domain == kHostDomain ? executors_host() : domain_executor[static_cast<size_t>(domain)];
    KILN_ASSIGN_OR_RETURN(auto buf, ex->Allocate(bytes));
    void* h = buf->handle();
    handle_owner[h] = buf.get();
    owned.push_back(std::move(buf));
    return h;
  }
  Executor* executors_host() {
    for (size_t e = 0; e < executors.size(); ++e) {
      if (executor_domain[e] == kHostDomain) return executors[e].get();
    }
    return nullptr;
  }

  // Ensures `v` has a buffer in `domain`, adding a copy step when it lives elsewhere.
  Status EnsureIn(const Graph& g, ValueId v, int domain) {
    auto& m = buffers[static_cast<size_t>(v)];
    if (m.count(domain)) return Status::Ok();
    const int src = home[static_cast<size_t>(v)];
    if (src != kHostDomain && domain != kHostDomain) {
      KILN_RETURN_IF_ERROR(EnsureIn(g, v, kHostDomain));  // stage through the host
    }
    const int from = (src != kHostDomain && domain != kHostDomain) ? kHostDomain : src;
    const size_t bytes = g.value(v).byte_size();
    KILN_ASSIGN_OR_RETURN(void* h, AllocateIn(domain, bytes));
    m[domain] = h;
    Step s;
    s.kind = Step::kCopy;
    s.value = v;
    s.from = from;
    s.to = domain;
    s.bytes = bytes;
    s.from_host = m[from];
    s.to_host = h;
    s.from_buf = from == kHostDomain ? nullptr : handle_owner[m[from]];
    s.to_buf = domain == kHostDomain ? nullptr : handle_owner[h];
    steps.push_back(std::move(s));
    return Status::Ok();
  }
};

Session::~Session() = default;

Expected<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Graph> graph,
                                                   SessionOptions options) {
  if (!graph) return InvalidArgument("session needs a graph");
  std::unique_ptr<Session> s(new Session());
  s->graph_ = std::move(graph);
  s->impl_ = std::make_unique<Impl>();
  Impl& im = *s->impl_;
  const Graph& g = *s->graph_;

  if (options.num_threads < 1) {
    return InvalidArgument("session needs at least 1 thread, got " +
                           std::to_string(options.num_threads));
  }
  im.pool = std::make_unique<ThreadPool>(options.num_threads);
  bool has_cpu = false;
  im.domain_executor.push_back(nullptr);  // host domain
  for (const std::string& name : options.executors) {
    KILN_ASSIGN_OR_RETURN(auto ex, MakeExecutor(name, options, im.pool.get()));
    has_cpu |= ex->host_memory();
    im.executor_domain.push_back(ex->host_memory() ? kHostDomain
                                                   : static_cast<int>(im.domain_executor.size()));
    if (!ex->host_memory()) im.domain_executor.push_back(ex.get());
    im.executors.push_back(std::move(ex));
  }
  if (!has_cpu) {  // CPU fallback is always there
    KILN_ASSIGN_OR_RETURN(auto ex, MakeExecutor(kExecutorCpu, options, im.pool.get()));
    im.executor_domain.push_back(kHostDomain);
    im.executors.push_back(std::move(ex));
  }
  std::vector<Executor*> by_priority;
  for (auto& e : im.executors) by_priority.push_back(e.get());
  KILN_ASSIGN_OR_RETURN(std::vector<size_t> placement, PlaceNodes(g, by_priority));

  im.buffers.resize(g.num_values());
  im.home.assign(g.num_values(), kHostDomain);
  for (size_t v = 0; v < g.num_values(); ++v) {
    const Value& val = g.value(static_cast<ValueId>(v));
    if (val.is_constant()) {  // used in place: no copy for host executors
      im.buffers[v][kHostDomain] = const_cast<uint8_t*>(val.constant->data());
    }
  }
  for (ValueId in : g.inputs()) {
    KILN_ASSIGN_OR_RETURN(void* h, im.AllocateIn(kHostDomain, g.value(in).byte_size()));
    im.buffers[static_cast<size_t>(in)][kHostDomain] = h;
  }
  im.input_set.assign(g.inputs().size(), false);

  for (size_t n = 0; n < g.num_nodes(); ++n) {
    const Node& node = g.node(static_cast<NodeId>(n));
    Executor* ex = im.executors[placement[n]].get();
    const int domain = im.executor_domain[placement[n]];
    Impl::Step step;
    step.node = n;
    step.executor = ex;
    for (ValueId in : node.inputs) {
      TensorView view;
      if (in != kNoValue) {
        KILN_RETURN_IF_ERROR(im.EnsureIn(g, in, domain));
        view.data = im.buffers[static_cast<size_t>(in)][domain];
        view.dtype = g.value(in).dtype;
        view.shape = &g.value(in).shape;
      }
      step.inputs.push_back(view);
    }
    for (ValueId out : node.outputs) {
      TensorView view;
      if (out != kNoValue) {
        KILN_ASSIGN_OR_RETURN(void* h, im.AllocateIn(domain, g.value(out).byte_size()));
        im.buffers[static_cast<size_t>(out)][domain] = h;
        im.home[static_cast<size_t>(out)] = domain;
        view.data = h;
        view.dtype = g.value(out).dtype;
        view.shape = &g.value(out).shape;
      }
      step.outputs.push_back(view);
    }
    KILN_ASSIGN_OR_RETURN(step.kernel, ex->CreateKernel(g, node));
    if (size_t scratch = step.kernel->ScratchBytes()) {
      KILN_ASSIGN_OR_RETURN(step.scratch, im.AllocateIn(domain, scratch));
    }
    im.steps.push_back(std::move(step));
    if (options.profile) {
      s->profile_.push_back({node.name, node.op, ex->name(), 0.0, 0});
    }
  }
  for (ValueId out : g.outputs()) KILN_RETURN_IF_ERROR(im.EnsureIn(g, out, kHostDomain));
  return s;
}

Expected<size_t> Session::InputIndex(const std::string& name) const {
  std::string names;
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (input_info(i).name == name) return i;
    names += (i ? ", " : "") + input_info(i).name;
  }
  return NotFound("model has no input '" + name + "' (inputs: " + names + ")");
}

Status Session::SetInput(size_t index, const HostTensor& t) {
  if (index >= num_inputs()) return InvalidArgument("input index out of range");
  const Value& v = input_info(index);
  if (t.dtype != v.dtype) {
    return InvalidArgument("input '" + v.name + "' expects dtype " +
                           std::string(DTypeName(v.dtype)) + ", got " +
                           std::string(DTypeName(t.dtype)));
  }
  if (t.shape != v.shape) {
    return InvalidArgument("input '" + v.name + "' expects shape " + ShapeToString(v.shape) +
                           ", got " + ShapeToString(t.shape));
  }
  if (t.bytes.size() != v.byte_size()) {
    return InvalidArgument("input '" + v.name + "' holds " + std::to_string(t.bytes.size()) +
                           " bytes, expected " + std::to_string(v.byte_size()));
  }
  void* dst = impl_->buffers[static_cast<size_t>(graph_->inputs()[index])][kHostDomain];
  if (!t.bytes.empty()) std::memcpy(dst, t.bytes.data(), t.bytes.size());
  impl_->input_set[index] = true;
  return Status::Ok();
}

Status Session::Run() {
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (!impl_->input_set[i]) return InvalidArgument("input '" + input_info(i).name + "' not set");
  }
  size_t kernel_index = 0;
  for (auto& step : impl_->steps) {
    if (step.kind == Impl::Step::kCopy) {
      if (step.to == kHostDomain) {
        if (step.from == kHostDomain) {
          std::memcpy(step.to_host, step.from_host, step.bytes);
        } else {
          Executor* ex = impl_->domain_executor[static_cast<size_t>(step.from)];
          KILN_RETURN_IF_ERROR(ex->Synchronize());
          KILN_RETURN_IF_ERROR(ex->Download(*step.from_buf, step.to_host, step.bytes));
        }
      } else {
        Executor* ex = impl_->domain_executor[static_cast<size_t>(step.to)];
        KILN_RETURN_IF_ERROR(ex->Upload(step.from_host, *step.to_buf, step.bytes));
      }
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    Status st = step.executor->Execute(*step.kernel, step.inputs, step.outputs, step.scratch);
    if (!st.ok()) {
      const Node& node = graph_->node(static_cast<NodeId>(step.node));
      return st.WithContext("node '" + node.name + "' (" + std::string(OpTypeName(node.op)) + ")");
    }
    if (!profile_.empty()) {
      KILN_RETURN_IF_ERROR(step.executor->Synchronize());
      const auto t1 = std::chrono::steady_clock::now();
      profile_[kernel_index].total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
      profile_[kernel_index].runs++;
    }
    ++kernel_index;
  }
  for (auto& ex : impl_->executors) KILN_RETURN_IF_ERROR(ex->Synchronize());
  return Status::Ok();
}

Expected<HostTensor> Session::GetOutput(size_t index) const {
  if (index >= num_outputs()) return InvalidArgument("output index out of range");
  const Value& v = output_info(index);
  HostTensor t(v.name, v.dtype, v.shape);
  const void* src = impl_->buffers[static_cast<size_t>(graph_->outputs()[index])].at(kHostDomain);
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), src, t.bytes.size());
  return t;
}

Expected<std::vector<HostTensor>> Session::Run(const std::vector<HostTensor>& inputs) {
  if (inputs.size() != num_inputs()) {
    return InvalidArgument("model has " + std::to_string(num_inputs()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    size_t index = i;
    if (!inputs[i].name.empty()) {
      KILN_ASSIGN_OR_RETURN(index, InputIndex(inputs[i].name));
    }
    KILN_RETURN_IF_ERROR(SetInput(index, inputs[i]));
  }
  KILN_RETURN_IF_ERROR(Run());
  std::vector<HostTensor> outs;
  for (size_t i = 0; i < num_outputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(auto t, GetOutput(i));
    outs.push_back(std::move(t));
  }
  return outs;
}

std::vector<std::string> Session::Placement() const {
  std::vector<std::string> out;
  for (const auto& step : impl_->steps) {
    if (step.kind == Impl::Step::kKernel) out.push_back(step.executor->name());
  }
  return out;
}

}  // namespace kiln
