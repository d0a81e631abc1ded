// Runs a graph with every intermediate tensor observable: a copy of the graph whose chosen
// values are extra graph outputs, in a session of its own (default plan: every value its own
// buffer). Calibration observes float tensors with it; the accuracy report compares float and
// quantized tensors.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "runtime/session.h"

namespace kiln::calib {

class ObservedSession {
 public:
  // Observes the graph inputs and every value `observe` accepts (produced by a node).
  static Expected<std::unique_ptr<ObservedSession>> Create(
      const Graph& graph, const std::function<bool(const Value&)>& observe, int threads = 1);

  // Runs one sample; then tensor(i) is observed tensor i of this run.
  Status Run(const std::vector<HostTensor>& inputs);
  size_t size() const { return names_.size(); }
  const std::string& name(size_t i) const { return names_[i]; }
  const HostTensor& tensor(size_t i) const { return tensors_[i]; }
  // The model's own outputs of the last run, in order.
  std::vector<HostTensor> ModelOutputs() const;
  const Graph& graph() const { return session_->graph(); }

 private:
  std::unique_ptr<Session> session_;
  std::vector<std::string> names_;     // observed values: graph inputs first
  std::vector<int> output_index_;      // session output of each, -1 for graph inputs
  std::vector<size_t> model_outputs_;  // observed index of each model output
  std::vector<HostTensor> tensors_;
};

// True for activations worth observing in a float graph: f32, not constant.
bool IsFloatActivation(const Value& v);

}  // namespace kiln::calib
