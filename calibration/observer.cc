// ObservedSession: a graph copy with extra outputs, run in its own session.
#include "calibration/observer.h"

#include <algorithm>

namespace kiln::calib {

bool IsFloatActivation(const Value& v) {
  return v.dtype == DType::kF32 && !v.is_constant() && v.shape_known;
}

Expected<std::unique_ptr<ObservedSession>> ObservedSession::Create(
    const Graph& graph, const std::function<bool(const Value&)>& observe, int threads) {
  auto g = std::make_shared<Graph>(graph);
  auto s = std::unique_ptr<ObservedSession>(new ObservedSession());
  for (ValueId in : g->inputs()) {
    s->names_.push_back(g->value(in).name);
    s->output_index_.push_back(-1);
  }
  const std::vector<ValueId> model_outputs = g->outputs();
  std::vector<bool> is_output(g->num_values(), false);
  for (ValueId o : model_outputs) is_output[static_cast<size_t>(o)] = true;
  std::vector<ValueId> extra;
  for (size_t v = 0; v < g->num_values(); ++v) {
    const Value& val = g->value(static_cast<ValueId>(v));
    if (val.producer == kNoNode || !observe(val)) continue;
    if (!is_output[v]) extra.push_back(static_cast<ValueId>(v));
  }
  for (ValueId v : extra) g->outputs().push_back(v);
  // Observed order: inputs, then values in id order (model outputs included).
  for (size_t v = 0; v < g->num_values(); ++v) {
    const Value& val = g->value(static_cast<ValueId>(v));
    if (val.producer == kNoNode || (!observe(val) && !is_output[v])) continue;
    const auto it = std::find(g->outputs().begin(), g->outputs().end(), static_cast<ValueId>(v));
    s->names_.push_back(val.name);
    s->output_index_.push_back(static_cast<int>(it - g->outputs().begin()));
  }
  for (ValueId o : model_outputs) {
    const std::string& name = g->value(o).name;
    s->model_outputs_.push_back(static_cast<size_t>(
        std::find(s->names_.begin(), s->names_.end(), name) - s->names_.begin()));
  }
  SessionOptions options;
  options.num_threads = threads;
  KILN_ASSIGN_OR_RETURN(s->session_, Session::Create(std::move(g), options));
  s->tensors_.resize(s->names_.size());
  return s;
}

Status ObservedSession::Run(const std::vector<HostTensor>& inputs) {
  if (inputs.size() != session_->num_inputs()) {
    return InvalidArgument("the model has " + std::to_string(session_->num_inputs()) +
                           " inputs, the sample " + std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    KILN_RETURN_IF_ERROR(session_->SetInput(i, inputs[i]));
    tensors_[i] = inputs[i];
  }
  KILN_RETURN_IF_ERROR(session_->Run());
  for (size_t i = 0; i < names_.size(); ++i) {
    if (output_index_[i] < 0) continue;
    KILN_ASSIGN_OR_RETURN(tensors_[i], session_->GetOutput(static_cast<size_t>(output_index_[i])));
  }
  return Status::Ok();
}

std::vector<HostTensor> ObservedSession::ModelOutputs() const {
  std::vector<HostTensor> out;
  for (size_t i : model_outputs_) out.push_back(tensors_[i]);
  return out;
}

}  // namespace kiln::calib
