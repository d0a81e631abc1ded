// The OpenCL entry points whose failures Kiln handles, each behind the fault-injection seam
// (cl_fault.h): same arguments and results as the cl* function of the same name, except that
// an armed fault returns its error (through `errcode_ret` for the creators, which then return
// null) instead of calling the driver. Kiln's code calls these, never the cl* functions, for
// every entry point listed in ClEntry.
#pragma once

#include "backends/opencl/cl_fault.h"

namespace kiln::opencl::api {

// A creator's injected failure: the error code set, no object.
template <typename T>
T Failed(cl_int error, cl_int* errcode_ret) {
  if (errcode_ret) *errcode_ret = error;
  return nullptr;
}

inline cl_int GetPlatformIDs(cl_uint n, cl_platform_id* platforms, cl_uint* num) {
  if (cl_int e = InjectedClError(ClEntry::kGetPlatformIDs)) return e;
  return clGetPlatformIDs(n, platforms, num);
}

inline cl_int GetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint n, cl_device_id* devices,
                           cl_uint* num) {
  if (cl_int e = InjectedClError(ClEntry::kGetDeviceIDs)) return e;
  return clGetDeviceIDs(p, type, n, devices, num);
}

inline cl_context CreateContext(const cl_context_properties* props, cl_uint n,
                                const cl_device_id* devices, cl_int* err) {
  if (cl_int e = InjectedClError(ClEntry::kCreateContext)) return Failed<cl_context>(e, err);
  return clCreateContext(props, n, devices, nullptr, nullptr, err);
}

inline cl_command_queue CreateCommandQueue(cl_context ctx, cl_device_id device,
                                           cl_command_queue_properties props, cl_int* err) {
  if (cl_int e = InjectedClError(ClEntry::kCreateCommandQueue)) {
    return Failed<cl_command_queue>(e, err);
  }
  return clCreateCommandQueue(ctx, device, props, err);
}

inline cl_mem CreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void* host,
                           cl_int* err) {
  if (cl_int e = InjectedClError(ClEntry::kCreateBuffer)) return Failed<cl_mem>(e, err);
  return clCreateBuffer(ctx, flags, size, host, err);
}

inline cl_program CreateProgramWithSource(cl_context ctx, cl_uint n, const char** text,
                                          const size_t* lengths, cl_int* err) {
  if (cl_int e = InjectedClError(ClEntry::kCreateProgramWithSource)) {
    return Failed<cl_program>(e, err);
  }
  return clCreateProgramWithSource(ctx, n, text, lengths, err);
}

inline cl_program CreateProgramWithBinary(cl_context ctx, cl_uint n, const cl_device_id* devices,
                                          const size_t* lengths, const unsigned char** binaries,
                                          cl_int* status, cl_int* err) {
  if (cl_int e = InjectedClError(ClEntry::kCreateProgramWithBinary)) {
    return Failed<cl_program>(e, err);
  }
  return clCreateProgramWithBinary(ctx, n, devices, lengths, binaries, status, err);
}

inline cl_int BuildProgram(cl_program p, cl_uint n, const cl_device_id* devices,
                           const char* options) {
  if (cl_int e = InjectedClError(ClEntry::kBuildProgram)) return e;
  return clBuildProgram(p, n, devices, options, nullptr, nullptr);
}

inline cl_int GetProgramInfo(cl_program p, cl_program_info what, size_t size, void* value,
                             size_t* size_ret) {
  if (cl_int e = InjectedClError(ClEntry::kGetProgramInfo)) return e;
  return clGetProgramInfo(p, what, size, value, size_ret);
}

inline cl_kernel CreateKernel(cl_program p, const char* name, cl_int* err) {
  if (cl_int e = InjectedClError(ClEntry::kCreateKernel)) return Failed<cl_kernel>(e, err);
  return clCreateKernel(p, name, err);
}

inline cl_int SetKernelArg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  if (cl_int e = InjectedClError(ClEntry::kSetKernelArg)) return e;
  return clSetKernelArg(k, index, size, value);
}

inline cl_int EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                   const size_t* global, const size_t* local, cl_event* event) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueNDRangeKernel)) return e;
  return clEnqueueNDRangeKernel(q, k, dims, nullptr, global, local, 0, nullptr, event);
}

inline cl_int EnqueueWriteBuffer(cl_command_queue q, cl_mem mem, cl_bool blocking, size_t offset,
                                 size_t bytes, const void* src) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueWriteBuffer)) return e;
  return clEnqueueWriteBuffer(q, mem, blocking, offset, bytes, src, 0, nullptr, nullptr);
}

inline cl_int EnqueueReadBuffer(cl_command_queue q, cl_mem mem, cl_bool blocking, size_t offset,
                                size_t bytes, void* dst) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueReadBuffer)) return e;
  return clEnqueueReadBuffer(q, mem, blocking, offset, bytes, dst, 0, nullptr, nullptr);
}

inline cl_int EnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                size_t dst_offset, size_t bytes, cl_event* event) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueCopyBuffer)) return e;
  return clEnqueueCopyBuffer(q, src, dst, src_offset, dst_offset, bytes, 0, nullptr, event);
}

inline cl_int EnqueueFillBuffer(cl_command_queue q, cl_mem mem, const void* pattern,
                                size_t pattern_size, size_t offset, size_t bytes) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueFillBuffer)) return e;
  return clEnqueueFillBuffer(q, mem, pattern, pattern_size, offset, bytes, 0, nullptr, nullptr);
}

inline cl_int EnqueueMarkerWithWaitList(cl_command_queue q, cl_event* event) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueMarkerWithWaitList)) return e;
  return clEnqueueMarkerWithWaitList(q, 0, nullptr, event);
}

inline cl_int EnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event* events) {
  if (cl_int e = InjectedClError(ClEntry::kEnqueueBarrierWithWaitList)) return e;
  return clEnqueueBarrierWithWaitList(q, n, events, nullptr);
}

inline cl_int Finish(cl_command_queue q) {
  if (cl_int e = InjectedClError(ClEntry::kFinish)) return e;
  return clFinish(q);
}

inline cl_int WaitForEvents(cl_uint n, const cl_event* events) {
  if (cl_int e = InjectedClError(ClEntry::kWaitForEvents)) return e;
  return clWaitForEvents(n, events);
}

}  // namespace kiln::opencl::api
