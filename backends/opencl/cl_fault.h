// A process-wide fault-injection seam for the OpenCL entry points Kiln calls (cl_api.h): a test
// arms "the Nth call of entry point X fails with error E" and every call site sees the error as
// if the driver had returned it. Compiled into every build and inert until armed: an unarmed
// check is one relaxed atomic load. Tests only (backends/opencl/opencl_fault_test.cc).
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <atomic>
#include <cstdint>

namespace kiln::opencl {

// Every OpenCL entry point whose failure Kiln handles. Info queries (clGet*Info), whose
// failures read as "unknown" and are tolerated where they are made, and releases are not here.
enum class ClEntry : int {
  kGetPlatformIDs,
  kGetDeviceIDs,
  kCreateContext,
  kCreateCommandQueue,
  kCreateBuffer,
  kCreateProgramWithSource,
  kCreateProgramWithBinary,
  kBuildProgram,
  kGetProgramInfo,
  kCreateKernel,
  kSetKernelArg,
  kEnqueueNDRangeKernel,
  kEnqueueWriteBuffer,
  kEnqueueReadBuffer,
  kEnqueueCopyBuffer,
  kEnqueueFillBuffer,
  kEnqueueMarkerWithWaitList,
  kEnqueueBarrierWithWaitList,
  kFinish,
  kWaitForEvents,
  kCount,
};

// "clCreateBuffer", ...
const char* ClEntryName(ClEntry entry);

struct ClFault {
  ClEntry entry = ClEntry::kCount;
  int64_t nth = 1;    // the nth call of `entry` after arming fails first (1: the next one)
  int64_t times = 1;  // how many calls fail from there; -1: every later one (a device gone bad)
  cl_int error = CL_OUT_OF_RESOURCES;
};

// Arms `fault`, replacing any armed one; call counts restart from zero.
void ArmClFault(const ClFault& fault);
void DisarmClFault();
// Calls of `entry` seen since the last ArmClFault (failed ones included), and how many of them
// were made to fail.
int64_t ClFaultCalls(ClEntry entry);
int64_t ClFaultsInjected();

namespace detail {
extern std::atomic<bool> cl_fault_armed;
cl_int InjectedSlow(ClEntry entry);
}  // namespace detail

// The error to return instead of calling `entry`, or CL_SUCCESS to call it.
inline cl_int InjectedClError(ClEntry entry) {
  if (!detail::cl_fault_armed.load(std::memory_order_relaxed)) return CL_SUCCESS;
  return detail::InjectedSlow(entry);
}

}  // namespace kiln::opencl
