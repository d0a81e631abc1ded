// The OpenCL side of the kernel interface: the device tensor handle kernels receive, what a
// kernel sees while it sets up (ClEnv: context, program, setup queue, tuner), how the executor
// launches it (ClLaunch on a stream's in-order queue) and the ClKernel base class.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"

namespace kiln::opencl {

// A tensor in device memory: TensorView::data of OpenCL kernels points to one. `offset` counts
// storage elements (f32, or f16 when the executor stores f32 tensors as f16); byte_offset and
// bytes are the storage bytes, for copies.
struct ClTensor {
  cl_mem mem = nullptr;
  cl_uint offset = 0;
  size_t byte_offset = 0;
  size_t bytes = 0;
};

const char* ClErrorName(cl_int err);
inline Status ClCheck(cl_int err, const std::string& what) {
  if (err == CL_SUCCESS) return Status::Ok();
  return Internal("OpenCL: " + what + " failed: " + ClErrorName(err));
}

// Owning cl_mem / cl_kernel handles.
class ClBuffer {
 public:
  ClBuffer() = default;
  explicit ClBuffer(cl_mem m) : mem_(m) {}
  ~ClBuffer() { reset(); }
  ClBuffer(ClBuffer&& o) noexcept : mem_(std::exchange(o.mem_, nullptr)) {}
  ClBuffer& operator=(ClBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      mem_ = std::exchange(o.mem_, nullptr);
    }
    return *this;
  }
  cl_mem get() const { return mem_; }
  void reset() {
    if (mem_) clReleaseMemObject(mem_);
    mem_ = nullptr;
  }

 private:
  cl_mem mem_ = nullptr;
};

class ClKernelObject {
 public:
  ClKernelObject() = default;
  explicit ClKernelObject(cl_kernel k) : k_(k) {}
  ~ClKernelObject() {
    if (k_) clReleaseKernel(k_);
  }
  ClKernelObject(ClKernelObject&& o) noexcept : k_(std::exchange(o.k_, nullptr)) {}
  ClKernelObject& operator=(ClKernelObject&& o) noexcept {
    if (this != &o) {
      if (k_) clReleaseKernel(k_);
      k_ = std::exchange(o.k_, nullptr);
    }
    return *this;
  }
  cl_kernel get() const { return k_; }

 private:
  cl_kernel k_ = nullptr;
};

// What a kernel may use while it sets up (implemented by the OpenCL executor).
class ClEnv {
 public:
  virtual ~ClEnv() = default;
  virtual cl_context context() const = 0;
  virtual cl_device_id device() const = 0;
  // An in-order queue for uploads and tuning at session creation.
  virtual cl_command_queue setup_queue() const = 0;
  virtual bool fp16() const = 0;  // f32 tensors are stored as f16
  virtual bool is_gpu() const = 0;
  virtual int compute_units() const = 0;
  virtual size_t max_work_group_size() const = 0;
  // Whether kernels time candidate launch configurations (else they use their defaults).
  virtual bool tuning() const = 0;
  // A kernel object of the built program.
  virtual Expected<ClKernelObject> CreateKernel(const char* name) = 0;
  // The tuner's cache: a choice made earlier for `key` on this device, and recording one.
  virtual std::optional<std::string> TunedChoice(const std::string& key) const = 0;
  virtual void RecordChoice(const std::string& key, const std::string& value) = 0;
};

// Device buffers made at setup.
Expected<ClBuffer> CreateDeviceBuffer(ClEnv& env, size_t bytes);
Expected<ClBuffer> UploadBytes(ClEnv& env, const void* data, size_t bytes);
// Floats in the storage precision (f16 when env.fp16()).
Expected<ClBuffer> UploadStorage(ClEnv& env, const std::vector<float>& values);
// A constant's elements as plain row-major floats, whatever its layout (ir/layout.h) and
// float dtype.
Expected<std::vector<float>> ConstantFloats(const Value& v);

// Launches one node's work on a stream's queue; when profiling, keeps the events of its
// first and last command (the executor reads their timestamps after the run).
class ClLaunch {
 public:
  ClLaunch(cl_command_queue queue, cl_event* first, cl_event* last)
      : queue_(queue), first_(first), last_(last) {}
  Status Run(cl_kernel kernel, cl_uint dims, const size_t* global, const size_t* local);
  Status Copy(cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t bytes);
  cl_command_queue queue() const { return queue_; }

 private:
  void Record(cl_event ev);
  cl_command_queue queue_;
  cl_event* first_;
  cl_event* last_;
  bool started_ = false;
};

// The first and last events a timed ClLaunch records, released however the launch ends (a
// failed launch may already hold some).
struct ClLaunchEvents {
  cl_event first = nullptr;
  cl_event last = nullptr;
  ClLaunchEvents() = default;
  ClLaunchEvents(const ClLaunchEvents&) = delete;
  ClLaunchEvents& operator=(const ClLaunchEvents&) = delete;
  ~ClLaunchEvents() {
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
  }
};

// Sets kernel arguments in order, remembering the first error.
class ClArgs {
 public:
  explicit ClArgs(cl_kernel k) : k_(k) {}
  ClArgs& Mem(cl_mem m) { return Set(sizeof(cl_mem), m ? &m : nullptr); }
  ClArgs& Tensor(const ClTensor* t);  // (mem, offset); null: (null, 0)
  ClArgs& I32(int v) { return Set(sizeof(cl_int), &v); }
  ClArgs& U32(cl_uint v) { return Set(sizeof(cl_uint), &v); }
  ClArgs& F32(float v) { return Set(sizeof(cl_float), &v); }
  ClArgs& Local(size_t bytes) { return Set(bytes, nullptr); }
  Status status(const char* kernel) const;

 private:
  ClArgs& Set(size_t size, const void* value);
  cl_kernel k_;
  cl_uint index_ = 0;
  cl_int err_ = CL_SUCCESS;
  cl_uint failed_at_ = 0;
};

// Base of every OpenCL kernel. Prepare() reads the node (as every kernel does); Setup()
// creates its device objects, reading constant inputs (weights, shapes) from the graph and
// uploading them in the layout and precision it computes in: the session passes no buffer for
// constants. Enqueue() is the hot path: it sets arguments on first use for a set of buffers and
// only launches afterwards.
class ClKernel : public Kernel {
 public:
  virtual Status Setup(ClEnv& env) = 0;
  virtual Status Enqueue(ClLaunch& launch, std::span<const TensorView> inputs,
                         std::span<const TensorView> outputs, void* scratch) = 0;
  Status Run(std::span<const TensorView>, std::span<const TensorView>, void*) final {
    return Internal("OpenCL kernels run through the OpenCL executor");
  }

 protected:
  static const ClTensor* T(const TensorView& v) { return static_cast<const ClTensor*>(v.data); }
  // True the first time a set of buffers is seen (then the kernel sets its arguments).
  bool NeedsBind(std::span<const TensorView> in, std::span<const TensorView> out, void* scratch);

 private:
  std::vector<const void*> bound_;
};

// Registers every OpenCL kernel (kernels/opencl/*.cc) in the registry.
void RegisterOpenClKernels(KernelRegistry& r);

// Whether every non-constant input and every output of the node is f32: the GPU memory domain
// holds f32 tensors only (stored as f32 or f16).
bool OpenClTensorsOk(const Graph& graph, const Node& node);

}  // namespace kiln::opencl
