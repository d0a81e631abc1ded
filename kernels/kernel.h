// The kernel interface shared by every executor: prepare() once, run() on the hot path.
#pragma once

#include <cstddef>
#include <span>

#include "ir/graph.h"
#include "kernels/thread_pool.h"

namespace kiln {

// A tensor as a kernel sees it: a pointer (host memory for CPU kernels, a device handle for
// others) plus the static dtype and shape taken from the IR.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::kUndefined;
  const Shape* shape = nullptr;  // points into the graph; valid for the kernel's lifetime

  int64_t num_elements() const { return NumElements(*shape); }
  size_t rank() const { return shape->size(); }
  int64_t dim(size_t i) const { return (*shape)[i]; }
  template <typename T>
  T* as() const { return static_cast<T*>(data); }
};

// What prepare() sees: the node and its input/output values (dtype, shape, constant bytes),
// and the session's thread pool, which run() may use (it outlives the kernel).
class KernelContext {
 public:
  KernelContext(const Graph& graph, const Node& node, ThreadPool* pool = nullptr)
      : graph_(graph), node_(node), pool_(pool) {}
  const Graph& graph() const { return graph_; }
  // Never null while a session prepares kernels; null in standalone uses (run inline).
  ThreadPool* thread_pool() const { return pool_; }
  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] != kNoValue; }
  bool has_output(size_t i) const {
    return i < node_.outputs.size() && node_.outputs[i] != kNoValue;
  }
  const Value& input(size_t i) const { return graph_.value(node_.inputs[i]); }
  const Value& output(size_t i) const { return graph_.value(node_.outputs[i]); }

 private:
  const Graph& graph_;
  const Node& node_;
  ThreadPool* pool_;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Validates what run() will rely on, reads attributes, sizes scratch, binds packed weights.
  // The graph and node outlive the kernel.
  virtual Status Prepare(const KernelContext& ctx) {
    (void)ctx;
    return Status::Ok();
  }
  // Scratch bytes run() needs; the session allocates them once.
  virtual size_t ScratchBytes() const { return 0; }
  // The hot path: no allocation, no re-validation. Omitted optional inputs/outputs have
  // data == nullptr. Views carry the shapes prepare() saw.
  virtual Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                     void* scratch) = 0;
};

}  // namespace kiln
