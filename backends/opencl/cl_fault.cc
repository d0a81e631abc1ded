// The fault-injection seam's state: one armed fault and per-entry call counts, behind a mutex
// (only reached while armed).
#include "backends/opencl/cl_fault.h"

#include <array>
#include <mutex>

namespace kiln::opencl {
namespace detail {
std::atomic<bool> cl_fault_armed{false};
}  // namespace detail

namespace {

struct FaultState {
  std::mutex mu;
  ClFault fault;
  std::array<int64_t, static_cast<size_t>(ClEntry::kCount)> calls{};
  int64_t injected = 0;
};

FaultState& State() {
  static FaultState s;
  return s;
}

}  // namespace

const char* ClEntryName(ClEntry entry) {
  switch (entry) {
    case ClEntry::kGetPlatformIDs:
      return "clGetPlatformIDs";
    case ClEntry::kGetDeviceIDs:
      return "clGetDeviceIDs";
    case ClEntry::kCreateContext:
      return "clCreateContext";
    case ClEntry::kCreateCommandQueue:
      return "clCreateCommandQueue";
    case ClEntry::kCreateBuffer:
      return "clCreateBuffer";
    case ClEntry::kCreateProgramWithSource:
      return "clCreateProgramWithSource";
    case ClEntry::kCreateProgramWithBinary:
      return "clCreateProgramWithBinary";
    case ClEntry::kBuildProgram:
      return "clBuildProgram";
    case ClEntry::kGetProgramInfo:
      return "clGetProgramInfo";
    case ClEntry::kCreateKernel:
      return "clCreateKernel";
    case ClEntry::kSetKernelArg:
      return "clSetKernelArg";
    case ClEntry::kEnqueueNDRangeKernel:
      return "clEnqueueNDRangeKernel";
    case ClEntry::kEnqueueWriteBuffer:
      return "clEnqueueWriteBuffer";
    case ClEntry::kEnqueueReadBuffer:
      return "clEnqueueReadBuffer";
    case ClEntry::kEnqueueCopyBuffer:
      return "clEnqueueCopyBuffer";
    case ClEntry::kEnqueueFillBuffer:
      return "clEnqueueFillBuffer";
    case ClEntry::kEnqueueMarkerWithWaitList:
      return "clEnqueueMarkerWithWaitList";
    case ClEntry::kEnqueueBarrierWithWaitList:
      return "clEnqueueBarrierWithWaitList";
    case ClEntry::kFinish:
      return "clFinish";
    case ClEntry::kWaitForEvents:
      return "clWaitForEvents";
    case ClEntry::kCount:
      break;
  }
  return "unknown OpenCL entry point";
}

void ArmClFault(const ClFault& fault) {
  FaultState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  s.fault = fault;
  s.calls.fill(0);
  s.injected = 0;
  detail::cl_fault_armed.store(true, std::memory_order_relaxed);
}

void DisarmClFault() {
  FaultState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  s.fault = ClFault{};
  detail::cl_fault_armed.store(false, std::memory_order_relaxed);
}

int64_t ClFaultCalls(ClEntry entry) {
  FaultState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return entry == ClEntry::kCount ? 0 : s.calls[static_cast<size_t>(entry)];
}

int64_t ClFaultsInjected() {
  FaultState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.injected;
}

namespace detail {

cl_int InjectedSlow(ClEntry entry) {
  FaultState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  const int64_t call = ++s.calls[static_cast<size_t>(entry)];
  const ClFault& f = s.fault;
  if (f.entry != entry || call < f.nth) return CL_SUCCESS;
  if (f.times >= 0 && call >= f.nth + f.times) return CL_SUCCESS;
  ++s.injected;
  return f.error;
}

}  // namespace detail
}  // namespace kiln::opencl
