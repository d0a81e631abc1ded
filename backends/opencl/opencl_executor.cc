// The OpenCL executor: device, context, queues, buffers and regions, copies, kernels.
#include "backends/opencl/opencl_executor.h"

#include <deque>
#include <mutex>

#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_log.h"
#include "backends/opencl/kernels/cl_kernel.h"
#include "backends/opencl/opencl_device.h"
#include "backends/opencl/program_cache.h"
#include "backends/opencl/tune_cache.h"
#include "ir/dtype.h"

namespace kiln {
namespace {

using opencl::ClCheck;
using opencl::ClTensor;

// One cl_mem; its regions are ClTensor handles made once and kept (stable addresses).
class OpenClBuffer : public DeviceBuffer {
 public:
  OpenClBuffer(cl_mem mem, size_t size, bool fp16, std::function<void(size_t)> on_region)
      : mem_(mem), size_(size), fp16_(fp16), on_region_(std::move(on_region)) {}
  ~OpenClBuffer() override {
    if (mem_) clReleaseMemObject(mem_);
  }
  size_t size() const override { return size_; }
  Expected<void*> Region(size_t offset, size_t bytes, DType dtype) override {
    if (offset > size_ || bytes > size_ - offset) {
      return Internal("region outside an OpenCL buffer of " + std::to_string(size_) + " bytes");
    }
    ClTensor t;
    t.mem = mem_;
    if (dtype == DType::kUndefined) {  // raw scratch (f32 partial sums)
      t.offset = static_cast<cl_uint>(offset / 4);
      t.byte_offset = offset;
      t.bytes = bytes;
    } else {
      const size_t elem = DTypeSize(dtype);
      if (fp16_ && dtype != DType::kF32) {
        return Unsupported("fp16 GPU storage holds f32 tensors only, not " +
                           std::string(DTypeName(dtype)));
      }
      if (elem == 0 || offset % elem != 0) {
        return Internal("misaligned " + std::string(DTypeName(dtype)) + " region at " +
                        std::to_string(offset));
      }
      // The plan's byte offsets count the logical dtype; f16 storage halves them (the same
      // element index), which keeps Concat slices and aliases where the plan put them.
      const size_t stored = fp16_ ? 2 : elem;
      t.offset = static_cast<cl_uint>(offset / elem);
      t.byte_offset = offset / elem * stored;
      t.bytes = bytes / elem * stored;
      if (fp16_) on_region_(t.bytes);
    }
    regions_.push_back(t);
    return static_cast<void*>(&regions_.back());
  }
  cl_mem mem() const { return mem_; }

 private:
  cl_mem mem_;
  size_t size_;
  bool fp16_;
  std::function<void(size_t)> on_region_;
  std::deque<ClTensor> regions_;
};

class OpenClExecutor : public Executor, public opencl::ClEnv {
 public:
  static Expected<std::unique_ptr<OpenClExecutor>> Create(const GpuOptions& options) {
    KILN_ASSIGN_OR_RETURN(
        opencl::DeviceInfo dev,
        opencl::SelectDevice(options.platform, options.device, options.device_name));
    std::unique_ptr<OpenClExecutor> ex(new OpenClExecutor(options, dev));
    KILN_RETURN_IF_ERROR(ex->Init().WithContext("OpenCL device " + dev.name));
    return ex;
  }
  ~OpenClExecutor() override {
    for (cl_command_queue q : queues_) clFinish(q);
    if (setup_queue_) clFinish(setup_queue_);
    ReleaseEvents();
    for (cl_command_queue q : queues_) clReleaseCommandQueue(q);
    if (setup_queue_) clReleaseCommandQueue(setup_queue_);
    if (program_) clReleaseProgram(program_);
    if (context_) clReleaseContext(context_);
  }

  // Executor
  std::string name() const override { return kExecutorOpenCL; }
  bool host_memory() const override { return false; }
  bool binds_constants() const override { return true; }

  bool CanRun(const Graph& graph, const Node& node) const override {
    return KernelRegistry::Global().FindEntry(graph, node, kExecutorOpenCL, Isa::kOpenCL) !=
           nullptr;
  }

  Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) override {
    const KernelFactory* f =
        KernelRegistry::Global().Find(graph, node, kExecutorOpenCL, Isa::kOpenCL);
    if (!f) {
      return Unsupported("no opencl kernel for " + std::string(OpTypeName(node.op)) + " at node '" +
                         node.name + "'");
    }
    std::unique_ptr<Kernel> kernel = (*f)();
    auto* cl = dynamic_cast<opencl::ClKernel*>(kernel.get());
    if (!cl) return Internal("opencl registry entry is not an OpenCL kernel");
    const std::string where = "node '" + node.name + "' (" + std::string(OpTypeName(node.op)) + ")";
    KILN_RETURN_IF_ERROR(kernel->Prepare(KernelContext(graph, node)).WithContext(where));
    KILN_RETURN_IF_ERROR(cl->Setup(*this).WithContext(where));
    return kernel;
  }

  Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t bytes) override {
    cl_int err = CL_SUCCESS;
    cl_mem m =
        opencl::api::CreateBuffer(context_, CL_MEM_READ_WRITE, bytes ? bytes : 64, nullptr, &err);
    KILN_RETURN_IF_ERROR(ClCheck(err, "clCreateBuffer(" + std::to_string(bytes) + " bytes)"));
    return std::unique_ptr<DeviceBuffer>(
        new OpenClBuffer(m, bytes, fp16(), [this](size_t stored) { GrowStaging(stored); }));
  }

  Status Upload(const void* host, void* dst, size_t bytes, DType dtype, int stream) override {
    const ClTensor* t = static_cast<const ClTensor*>(dst);
    const void* src = host;
    if (fp16() && dtype == DType::kF32) {  // f32 -> f16 on the host, then one write
      uint16_t* h = Staging(stream);
      const float* f = static_cast<const float*>(host);
      for (size_t i = 0; i < bytes / 4; ++i) h[i] = FloatToHalf(f[i]);
      src = h;
    }
    if (t->bytes == 0) return Status::Ok();
    return ClCheck(opencl::api::EnqueueWriteBuffer(Queue(stream), t->mem, CL_TRUE, t->byte_offset,
                                                   t->bytes, src),
                   "clEnqueueWriteBuffer");
  }

  Status Download(void* src, void* host, size_t bytes, DType dtype, int stream) override {
    const ClTensor* t = static_cast<const ClTensor*>(src);
    const bool convert = fp16() && dtype == DType::kF32;
    void* dst = convert ? static_cast<void*>(Staging(stream)) : host;
    if (t->bytes == 0) return Status::Ok();
    KILN_RETURN_IF_ERROR(ClCheck(opencl::api::EnqueueReadBuffer(Queue(stream), t->mem, CL_TRUE,
                                                                t->byte_offset, t->bytes, dst),
                                 "clEnqueueReadBuffer"));
    if (convert) {
      const uint16_t* h = Staging(stream);
      float* f = static_cast<float*>(host);
      for (size_t i = 0; i < bytes / 4; ++i) f[i] = HalfToFloat(h[i]);
    }
    return Status::Ok();
  }

  Status Configure(int streams, size_t events, int profile_slots) override {
    if (!queues_.empty()) return Internal("OpenCL executor configured twice");
    const cl_command_queue_properties props = profile_slots > 0 ? CL_QUEUE_PROFILING_ENABLE : 0;
    for (int s = 0; s < std::max(1, streams); ++s) {
      cl_int err = CL_SUCCESS;
      cl_command_queue q =
          opencl::api::CreateCommandQueue(context_, info_device_.device, props, &err);
      KILN_RETURN_IF_ERROR(ClCheck(err, "clCreateCommandQueue"));
      queues_.push_back(q);
    }
    staging_.resize(queues_.size());
    events_.assign(events, nullptr);
    first_.assign(static_cast<size_t>(profile_slots), nullptr);
    last_.assign(static_cast<size_t>(profile_slots), nullptr);
    return Status::Ok();
  }

  Status Execute(Kernel& kernel, std::span<const TensorView> inputs,
                 std::span<const TensorView> outputs, void* scratch,
                 const StepContext& step) override {
    const bool timed =
        step.profile_slot >= 0 && static_cast<size_t>(step.profile_slot) < first_.size();
    opencl::ClLaunch launch(Queue(step.stream),
                            timed ? &first_[static_cast<size_t>(step.profile_slot)] : nullptr,
                            timed ? &last_[static_cast<size_t>(step.profile_slot)] : nullptr);
    return static_cast<opencl::ClKernel&>(kernel).Enqueue(launch, inputs, outputs, scratch);
  }

  Status Mark(int stream, size_t event) override {
    if (event >= events_.size()) return Internal("event index out of range");
    if (events_[event]) clReleaseEvent(events_[event]);
    events_[event] = nullptr;
    return ClCheck(opencl::api::EnqueueMarkerWithWaitList(Queue(stream), &events_[event]),
                   "clEnqueueMarkerWithWaitList");
  }

  Status DeviceWait(int stream, size_t event) override {
    if (event >= events_.size() || events_[event] == nullptr) return Status::Ok();
    return ClCheck(opencl::api::EnqueueBarrierWithWaitList(Queue(stream), 1, &events_[event]),
                   "clEnqueueBarrierWithWaitList");
  }

  Status Synchronize() override {
    for (cl_command_queue q : queues_) {
      KILN_RETURN_IF_ERROR(ClCheck(opencl::api::Finish(q), "clFinish"));
    }
    return Status::Ok();
  }

  std::optional<double> ProfiledMs(int slot) const override {
    if (slot < 0 || static_cast<size_t>(slot) >= first_.size()) return std::nullopt;
    cl_event a = first_[static_cast<size_t>(slot)], b = last_[static_cast<size_t>(slot)];
    if (!a || !b) return std::nullopt;
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, nullptr) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr) !=
            CL_SUCCESS) {
      return std::nullopt;
    }
    return static_cast<double>(t1 - t0) * 1e-6;
  }

  // ClEnv
  cl_context context() const override { return context_; }
  cl_device_id device() const override { return info_device_.device; }
  cl_command_queue setup_queue() const override { return setup_queue_; }
  bool fp16() const override { return options_.precision == GpuPrecision::kFp16; }
  bool is_gpu() const override { return info_device_.is_gpu; }
  int compute_units() const override { return info_device_.compute_units; }
  size_t max_work_group_size() const override { return info_device_.max_work_group_size; }
  bool tuning() const override { return tuning_; }
  Expected<opencl::ClKernelObject> CreateKernel(const char* name) override {
    cl_int err = CL_SUCCESS;
    cl_kernel k = opencl::api::CreateKernel(program_, name, &err);
    KILN_RETURN_IF_ERROR(ClCheck(err, std::string("clCreateKernel(") + name + ")"));
    return opencl::ClKernelObject(k);
  }
  std::optional<std::string> TunedChoice(const std::string& key) const override {
    return tune_->Find(PrecisionKey(key));
  }
  void RecordChoice(const std::string& key, const std::string& value) override {
    tune_->Record(PrecisionKey(key), value);
  }

  const OpenClExecutorInfo& info() const { return info_; }
  const opencl::DeviceInfo& device_info() const { return info_device_; }
  cl_program program() const { return program_; }
  const opencl::ProgramSource& source() const { return source_; }
  std::map<std::string, std::string> tuning_choices() const { return tune_->All(); }

 private:
  OpenClExecutor(const GpuOptions& options, opencl::DeviceInfo dev)
      : options_(options), info_device_(std::move(dev)) {}

  Status Init() {
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(info_device_.platform), 0};
    context_ = opencl::api::CreateContext(props, 1, &info_device_.device, &err);
    KILN_RETURN_IF_ERROR(ClCheck(err, "clCreateContext"));
    setup_queue_ = opencl::api::CreateCommandQueue(context_, info_device_.device,
                                                   CL_QUEUE_PROFILING_ENABLE, &err);
    KILN_RETURN_IF_ERROR(ClCheck(err, "clCreateCommandQueue"));
    const std::string cache_dir = opencl::ResolveCacheDir(options_.cache_dir);
    source_ = opencl::MakeProgramSource(options_.precision);
    KILN_ASSIGN_OR_RETURN(
        opencl::BuiltProgram built,
        opencl::BuildProgram(context_, info_device_, source_, cache_dir, options_.binaries.get()));
    program_ = built.program;
    tune_ = std::make_unique<opencl::TuneCache>(info_device_, cache_dir, options_.binaries.get());
    int tune = options_.tune;
    if (tune < 0) {
      const char* env = std::getenv("KILN_OPENCL_TUNE");
      tune = env ? (std::string(env) != "0") : info_device_.is_gpu;
    }
    tuning_ = tune != 0;
    info_.device = info_device_.Describe();
    info_.program_origin = built.origin;
    info_.program_ms = built.ms;
    info_.precision = GpuPrecisionName(options_.precision);
    return Status::Ok();
  }

  std::string PrecisionKey(const std::string& key) const {
    return std::string(GpuPrecisionName(options_.precision)) + " " + key;
  }
  cl_command_queue Queue(int stream) const {
    return queues_[static_cast<size_t>(stream) < queues_.size() ? static_cast<size_t>(stream) : 0];
  }
  void GrowStaging(size_t stored_bytes) {
    for (auto& s : staging_) {
      if (s.size() < stored_bytes / 2) s.resize(stored_bytes / 2);
    }
    staging_need_ = std::max(staging_need_, stored_bytes / 2);
  }
  uint16_t* Staging(int stream) {
    auto& s =
        staging_[static_cast<size_t>(stream) < staging_.size() ? static_cast<size_t>(stream) : 0];
    if (s.size() < staging_need_) s.resize(staging_need_);  // only before the first run
    return s.data();
  }
  void ReleaseEvents() {
    for (auto* v : {&events_, &first_, &last_}) {
      for (cl_event& e : *v) {
        if (e) clReleaseEvent(e);
        e = nullptr;
      }
    }
  }

  GpuOptions options_;
  opencl::DeviceInfo info_device_;
  OpenClExecutorInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue setup_queue_ = nullptr;
  cl_program program_ = nullptr;
  opencl::ProgramSource source_;
  std::unique_ptr<opencl::TuneCache> tune_;
  bool tuning_ = false;
  std::vector<cl_command_queue> queues_;
  std::vector<std::vector<uint16_t>> staging_;  // per stream: f16 copies at the boundary
  size_t staging_need_ = 0;
  std::vector<cl_event> events_;        // cross-stream markers, by schedule event
  std::vector<cl_event> first_, last_;  // per profile slot: first and last command
};

}  // namespace

Expected<std::unique_ptr<Executor>> MakeOpenClExecutor(const GpuOptions& options) {
  KILN_ASSIGN_OR_RETURN(auto ex, OpenClExecutor::Create(options));
  return std::unique_ptr<Executor>(std::move(ex));
}

const OpenClExecutorInfo* GetOpenClExecutorInfo(const Executor& executor) {
  const auto* ex = dynamic_cast<const OpenClExecutor*>(&executor);
  return ex ? &ex->info() : nullptr;
}

Expected<KernelBinaries> BuildKernelBinaries(const Graph& graph, const GpuOptions& options,
                                             const std::vector<GpuPrecision>& precisions) {
  KernelBinaries out;
  std::map<std::string, std::string> tuning;
  for (GpuPrecision p : precisions) {
    GpuOptions o = options;
    o.precision = p;
    if (o.tune < 0) o.tune = 1;  // the point is to ship tuned choices
    KILN_ASSIGN_OR_RETURN(auto ex, OpenClExecutor::Create(o));
    KILN_RETURN_IF_ERROR(ex->Configure(1, 0, 0));
    for (size_t n = 0; n < graph.num_nodes(); ++n) {
      const Node& node = graph.node(static_cast<NodeId>(n));
      if (!ex->CanRun(graph, node)) continue;
      KILN_ASSIGN_OR_RETURN(auto kernel, ex->CreateKernel(graph, node));  // tunes
    }
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bin, opencl::ProgramBinary(ex->program()));
    out.device = ex->device_info().name;
    out.driver = ex->device_info().driver;
    out.platform = ex->device_info().platform_name;
    out.programs.push_back({GpuPrecisionName(p), ex->source().hash, std::move(bin)});
    for (const auto& [k, v] : ex->tuning_choices()) tuning[k] = v;
  }
  out.tuning.assign(tuning.begin(), tuning.end());
  return out;
}

}  // namespace kiln
