// Shared OpenCL kernel helpers: error names, setup-time buffers, launches and arguments.
#include "backends/opencl/kernels/cl_kernel.h"

#include <cstring>

#include "backends/opencl/cl_api.h"
#include "ir/dtype.h"
#include "ir/layout.h"

namespace kiln::opencl {

const char* ClErrorName(cl_int err) {
  switch (err) {
#define KILN_CL_ERR(e) \
  case e:              \
    return #e;
    KILN_CL_ERR(CL_DEVICE_NOT_FOUND)
    KILN_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    KILN_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    KILN_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    KILN_CL_ERR(CL_OUT_OF_RESOURCES)
    KILN_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    KILN_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    KILN_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    KILN_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    KILN_CL_ERR(CL_INVALID_VALUE)
    KILN_CL_ERR(CL_INVALID_DEVICE_TYPE)
    KILN_CL_ERR(CL_INVALID_PLATFORM)
    KILN_CL_ERR(CL_INVALID_DEVICE)
    KILN_CL_ERR(CL_INVALID_CONTEXT)
    KILN_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    KILN_CL_ERR(CL_INVALID_MEM_OBJECT)
    KILN_CL_ERR(CL_INVALID_BINARY)
    KILN_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    KILN_CL_ERR(CL_INVALID_PROGRAM)
    KILN_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    KILN_CL_ERR(CL_INVALID_KERNEL_NAME)
    KILN_CL_ERR(CL_INVALID_KERNEL)
    KILN_CL_ERR(CL_INVALID_ARG_INDEX)
    KILN_CL_ERR(CL_INVALID_ARG_VALUE)
    KILN_CL_ERR(CL_INVALID_ARG_SIZE)
    KILN_CL_ERR(CL_INVALID_KERNEL_ARGS)
    KILN_CL_ERR(CL_INVALID_WORK_DIMENSION)
    KILN_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    KILN_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    KILN_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    KILN_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    KILN_CL_ERR(CL_INVALID_EVENT)
    KILN_CL_ERR(CL_INVALID_OPERATION)
    KILN_CL_ERR(CL_INVALID_BUFFER_SIZE)
    KILN_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
#undef KILN_CL_ERR
    default:
      return "unknown OpenCL error";
  }
}

Expected<ClBuffer> CreateDeviceBuffer(ClEnv& env, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = api::CreateBuffer(env.context(), CL_MEM_READ_WRITE, bytes ? bytes : 4, nullptr, &err);
  KILN_RETURN_IF_ERROR(ClCheck(err, "clCreateBuffer(" + std::to_string(bytes) + " bytes)"));
  return ClBuffer(m);
}

Expected<ClBuffer> UploadBytes(ClEnv& env, const void* data, size_t bytes) {
  KILN_ASSIGN_OR_RETURN(ClBuffer buf, CreateDeviceBuffer(env, bytes));
  if (bytes) {
    KILN_RETURN_IF_ERROR(
        ClCheck(api::EnqueueWriteBuffer(env.setup_queue(), buf.get(), CL_TRUE, 0, bytes, data),
                "clEnqueueWriteBuffer"));
  }
  return buf;
}

Expected<ClBuffer> UploadStorage(ClEnv& env, const std::vector<float>& values) {
  if (!env.fp16()) return UploadBytes(env, values.data(), values.size() * sizeof(float));
  std::vector<uint16_t> half(values.size());
  for (size_t i = 0; i < values.size(); ++i) half[i] = FloatToHalf(values[i]);
  return UploadBytes(env, half.data(), half.size() * sizeof(uint16_t));
}

Expected<std::vector<float>> ConstantFloats(const Value& v) {
  if (!v.is_constant()) return Internal("'" + v.name + "' is not a constant");
  if (v.dtype != DType::kF32 && v.dtype != DType::kF16) {
    return Unsupported("constant '" + v.name + "' is " + std::string(DTypeName(v.dtype)) +
                       ", not a float tensor");
  }
  KILN_ASSIGN_OR_RETURN(
      std::vector<uint8_t> plain,
      UnpackLayout(v.layout, v.dtype, v.shape, v.constant->data(), v.constant->size()));
  const size_t n = static_cast<size_t>(NumElements(v.shape));
  std::vector<float> out(n);
  if (v.dtype == DType::kF32) {
    if (n) std::memcpy(out.data(), plain.data(), n * sizeof(float));
  } else {
    const auto* h = reinterpret_cast<const uint16_t*>(plain.data());
    for (size_t i = 0; i < n; ++i) out[i] = HalfToFloat(h[i]);
  }
  return out;
}

void ClLaunch::Record(cl_event ev) {
  if (!started_) {
    if (*first_) clReleaseEvent(*first_);
    *first_ = ev;
    clRetainEvent(ev);
    started_ = true;
  }
  if (*last_) clReleaseEvent(*last_);
  *last_ = ev;
}

Status ClLaunch::Run(cl_kernel kernel, cl_uint dims, const size_t* global, const size_t* local) {
  cl_event ev = nullptr;
  const cl_int err =
      api::EnqueueNDRangeKernel(queue_, kernel, dims, global, local, first_ ? &ev : nullptr);
  if (err != CL_SUCCESS) {
    char name[128] = {};
    clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof(name) - 1, name, nullptr);
    return ClCheck(err, std::string("clEnqueueNDRangeKernel(") + name + ")");
  }
  if (first_) Record(ev);
  return Status::Ok();
}

Status ClLaunch::Copy(cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  cl_event ev = nullptr;
  KILN_RETURN_IF_ERROR(ClCheck(api::EnqueueCopyBuffer(queue_, src, dst, src_offset, dst_offset,
                                                      bytes, first_ ? &ev : nullptr),
                               "clEnqueueCopyBuffer"));
  if (first_) Record(ev);
  return Status::Ok();
}

ClArgs& ClArgs::Tensor(const ClTensor* t) {
  Mem(t ? t->mem : nullptr);
  return U32(t ? t->offset : 0);
}

ClArgs& ClArgs::Set(size_t size, const void* value) {
  const cl_int err = api::SetKernelArg(k_, index_, size, value);
  if (err != CL_SUCCESS && err_ == CL_SUCCESS) {
    err_ = err;
    failed_at_ = index_;
  }
  ++index_;
  return *this;
}

Status ClArgs::status(const char* kernel) const {
  if (err_ == CL_SUCCESS) return Status::Ok();
  return ClCheck(err_,
                 std::string("clSetKernelArg(") + kernel + ", " + std::to_string(failed_at_) + ")");
}

bool ClKernel::NeedsBind(std::span<const TensorView> in, std::span<const TensorView> out,
                         void* scratch) {
  bool same = bound_.size() == in.size() + out.size() + 1;
  size_t i = 0;
  auto check = [&](const void* p) {
    if (same && bound_[i] != p) same = false;
    ++i;
  };
  for (const auto& v : in) check(v.data);
  for (const auto& v : out) check(v.data);
  check(scratch);
  if (same) return false;
  bound_.clear();
  for (const auto& v : in) bound_.push_back(v.data);
  for (const auto& v : out) bound_.push_back(v.data);
  bound_.push_back(scratch);
  return true;
}

bool OpenClTensorsOk(const Graph& graph, const Node& node) {
  for (ValueId in : node.inputs) {
    if (in == kNoValue || graph.value(in).is_constant()) continue;
    if (graph.value(in).dtype != DType::kF32) return false;
  }
  for (ValueId out : node.outputs) {
    if (out != kNoValue && graph.value(out).dtype != DType::kF32) return false;
  }
  return !node.outputs.empty();
}

}  // namespace kiln::opencl
