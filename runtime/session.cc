// Session: creation (with the rebuild that leaves a failed accelerator out), inputs, outputs and
// placement. The built state and its steps are Session::Impl (session_impl.h; built in
// session_build.cc, run in session_run.cc).
#include "runtime/session.h"

#include <algorithm>
#include <cstring>

#include "backends/backend_registry.h"
#include "ir/plan_rules.h"
#include "runtime/model.h"
#include "runtime/session_impl.h"

namespace kiln {

Session::~Session() = default;

Expected<std::unique_ptr<Session>> Session::Create(const Model& model, SessionOptions options) {
  const ModelPayloads payloads{model.kernel_binaries(), model.dsp_programs()};
  for (const Backend* b : Backends()) b->AdoptFromModel(payloads, options.backend_options);
  return Create(model.graph(), std::move(options), model.plan());
}

Expected<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Graph> graph,
                                                   SessionOptions options,
                                                   std::shared_ptr<const ExecutionPlan> plan) {
  if (!graph) return InvalidArgument("session needs a graph");
  if (options.num_threads < 1) {
    return InvalidArgument("session needs at least 1 thread, got " +
                           std::to_string(options.num_threads));
  }
  if (!plan) plan = std::make_shared<const ExecutionPlan>(ExecutionPlan::Default(*graph));
  KILN_RETURN_IF_ERROR(ValidateExecutionPlan(*graph, *plan).WithContext("execution plan"));
  std::unique_ptr<Session> s(new Session());
  s->graph_ = std::move(graph);
  s->plan_ = std::move(plan);
  s->options_ = std::move(options);
  KILN_ASSIGN_OR_RETURN(s->impl_, s->Build());
  return s;
}

Expected<std::unique_ptr<Session::Impl>> Session::Build() {
  for (;;) {
    auto im = std::make_unique<Impl>();
    std::vector<std::string> warnings;
    std::vector<NodeProfile> profile;
    std::optional<CostPlacement> cost;
    const Status st = im->Build(*graph_, *plan_, options_, this, warnings, profile, &cost);
    if (st.ok()) {
      for (std::string& w : warnings) {  // a rebuild meets the absent devices again
        if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) {
          warnings_.push_back(std::move(w));
        }
      }
      profile_ = std::move(profile);
      cost_placement_ = std::move(cost);
      return im;
    }
    if (!FallsBack(im->culprit)) return st;
    // Built again from the start without it: its nodes are placed, and their buffers bound,
    // as if it had never been asked for.
    if (!Drop(im->RequestedName(im->culprit), st, "at session creation")) return st;
  }
}

bool Session::FallsBack(const Executor* failed) const {
  return options_.on_accelerator_failure == AcceleratorFailure::kFallBackToCpu &&
         failed != nullptr && failed->name() != kExecutorCpu;
}

bool Session::Drop(const std::string& requested, const Status& why, const char* when) {
  auto& names = options_.executors;
  const auto it = std::find(names.begin(), names.end(), requested);
  if (it == names.end()) return false;
  names.erase(it);
  warnings_.push_back("executor '" + requested + "' failed " + when + " (" + why.message() + ")");
  return true;
}

Status Session::FallBack(const Executor* failed, const Status& why) {
  Impl& old = *impl_;
  std::vector<std::optional<std::vector<uint8_t>>> inputs(num_inputs());
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (!old.input_set[i]) continue;
    const auto* src = static_cast<const uint8_t*>(
        old.buffers[static_cast<size_t>(graph_->inputs()[i])].at(Impl::kHostDomain));
    inputs[i].emplace(src, src + input_info(i).byte_size());
  }
  if (!Drop(old.RequestedName(failed), why, "while running")) return why;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Impl> fresh, Build());
  impl_ = std::move(fresh);  // the failed executor goes with the old steps
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (!inputs[i]) continue;
    void* dst = impl_->buffers[static_cast<size_t>(graph_->inputs()[i])][Impl::kHostDomain];
    if (!inputs[i]->empty()) std::memcpy(dst, inputs[i]->data(), inputs[i]->size());
    impl_->input_set[i] = true;
  }
  return Status::Ok();
}

const SessionMemory& Session::memory() const { return impl_->memory; }
int64_t Session::boundary_copies() const { return impl_->copies_per_run; }

const Executor* Session::executor(const std::string& name) const {
  for (const auto& ex : impl_->executors) {
    if (ex->name() == name) return ex.get();
  }
  return nullptr;
}

Expected<size_t> Session::InputIndex(const std::string& name) const {
  std::string names;
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (input_info(i).name == name) return i;
    if (i) names += ", ";
    names += input_info(i).name;
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
  return SetInputBytes(index, t.bytes.data(), t.bytes.size());
}

Status Session::SetInputBytes(size_t index, const void* data, size_t size) {
  if (index >= num_inputs()) return InvalidArgument("input index out of range");
  const Value& v = input_info(index);
  if (size != v.byte_size()) {
    return InvalidArgument("input '" + v.name + "' holds " + std::to_string(size) +
                           " bytes, expected " + std::to_string(v.byte_size()));
  }
  if (size > 0 && data == nullptr) return InvalidArgument("input '" + v.name + "': no data");
  void* dst = impl_->buffers[static_cast<size_t>(graph_->inputs()[index])][Impl::kHostDomain];
  if (size > 0) std::memcpy(dst, data, size);
  impl_->input_set[index] = true;
  return Status::Ok();
}

Expected<HostTensor> Session::GetOutput(size_t index) const {
  if (index >= num_outputs()) return InvalidArgument("output index out of range");
  const Value& v = output_info(index);
  HostTensor t(v.name, v.dtype, v.shape);
  KILN_RETURN_IF_ERROR(CopyOutput(index, t.bytes.data(), t.bytes.size()));
  return t;
}

Status Session::CopyOutput(size_t index, void* data, size_t size) const {
  if (index >= num_outputs()) return InvalidArgument("output index out of range");
  const Value& v = output_info(index);
  const size_t bytes = static_cast<size_t>(v.num_elements()) * DTypeSize(v.dtype);
  if (size != bytes) {
    return InvalidArgument("output '" + v.name + "' holds " + std::to_string(bytes) +
                           " bytes, got a buffer of " + std::to_string(size));
  }
  if (size > 0 && data == nullptr) return InvalidArgument("output '" + v.name + "': no buffer");
  const void* src =
      impl_->buffers[static_cast<size_t>(graph_->outputs()[index])].at(Impl::kHostDomain);
  if (v.layout != Layout::kPlain) {
    // A value stored blocked (an intermediate made an output after compiling, as calibration's
    // observers do): the caller gets its logical, plain elements.
    KILN_ASSIGN_OR_RETURN(
        std::vector<uint8_t> plain,
        UnpackLayout(v.layout, v.dtype, v.shape, static_cast<const uint8_t*>(src), v.byte_size()));
    if (!plain.empty()) std::memcpy(data, plain.data(), plain.size());
    return Status::Ok();
  }
  if (size > 0) std::memcpy(data, src, size);
  return Status::Ok();
}

Expected<const void*> Session::OutputHostData(size_t index) const {
  if (index >= num_outputs()) return InvalidArgument("output index out of range");
  const Value& v = output_info(index);
  if (v.layout != Layout::kPlain) {
    return Unsupported("output '" + v.name + "' is stored blocked; copy it out");
  }
  return static_cast<const void*>(
      impl_->buffers[static_cast<size_t>(graph_->outputs()[index])].at(Impl::kHostDomain));
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
  std::vector<std::string> out(graph_->num_nodes(), "-");
  for (const auto& stream : impl_->streams) {
    for (const auto& step : stream) {
      if (step.kind == Impl::Step::kKernel) {
        out[static_cast<size_t>(step.node)] = step.executor->name();
      }
    }
  }
  return out;
}

}  // namespace kiln
