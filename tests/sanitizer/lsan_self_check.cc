// The sanitizer build's check of its own leak suppressions (tests/sanitizer/lsan.supp), run by
// tests/sanitizer/lsan_self_check.sh as the ctest LeakSanitizerStillReportsKilnLeaks.
//
// It builds and runs a small OpenCL kernel on the first device (PoCL in CI). With PoCL's kernel
// cache empty (the script points POCL_CACHE_DIR at a new folder), PoCL compiles it through
// LLVM, which leaves allocations behind that are the driver's, not ours: the suppressions must
// hide those. With --leak-host it then leaks memory from Kiln's own code on purpose, and
// LeakSanitizer must still report that.
// Exit status: 0 when the kernel built and ran (and LeakSanitizer found nothing), 77 when there
// is no OpenCL device, 1 on an OpenCL error; LeakSanitizer's own exit code when it reports a leak.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char kSource[] =
    "__kernel void scale(__global float* x, float s) { x[get_global_id(0)] *= s; }\n";

// Kept out of line so that the leak report names it: the frame the suppressions must not match.
[[gnu::noinline]] void LeakHostMemoryOnPurpose() {
  auto* leaked = new std::string(64, 'k');
  std::printf("leaked %zu bytes at %p on purpose\n", leaked->size(), static_cast<void*>(leaked));
}

int Fail(const char* what, cl_int err) {
  std::fprintf(stderr, "lsan_self_check: %s failed (%d)\n", what, err);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool leak_host = argc > 1 && std::strcmp(argv[1], "--leak-host") == 0;

  cl_platform_id platform = nullptr;
  cl_uint platforms = 0;
  if (clGetPlatformIDs(1, &platform, &platforms) != CL_SUCCESS || platforms == 0) {
    std::puts("lsan_self_check: no OpenCL platform");
    return 77;
  }
  cl_device_id device = nullptr;
  cl_uint devices = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &devices) != CL_SUCCESS ||
      devices == 0) {
    std::puts("lsan_self_check: no OpenCL device");
    return 77;
  }
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return Fail("clCreateContext", err);
  const char* sources[] = {kSource};
  cl_program program = clCreateProgramWithSource(context, 1, sources, nullptr, &err);
  if (err != CL_SUCCESS) return Fail("clCreateProgramWithSource", err);
  err = clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) return Fail("clBuildProgram", err);
  cl_kernel kernel = clCreateKernel(program, "scale", &err);
  if (err != CL_SUCCESS) return Fail("clCreateKernel", err);

  // As Kiln's program cache does: the binary is read back (PoCL generates code for it).
  size_t binary_size = 0;
  err =
      clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size, nullptr);
  if (err != CL_SUCCESS) return Fail("clGetProgramInfo", err);

  // And the kernel runs once (PoCL compiles the work-group function at the first launch).
  constexpr size_t kCount = 64;
  float values[kCount];
  for (size_t i = 0; i < kCount; ++i) values[i] = static_cast<float>(i);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof values,
                                 values, &err);
  if (err != CL_SUCCESS) return Fail("clCreateBuffer", err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  if (err != CL_SUCCESS) return Fail("clCreateCommandQueue", err);
  const float scale = 2.0f;
  clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  clSetKernelArg(kernel, 1, sizeof scale, &scale);
  const size_t global = kCount;
  err = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return Fail("clEnqueueNDRangeKernel", err);
  err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof values, values, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return Fail("clEnqueueReadBuffer", err);
  if (values[kCount - 1] != 2.0f * (kCount - 1)) {
    std::fprintf(stderr, "lsan_self_check: the kernel computed %g\n", values[kCount - 1]);
    return 1;
  }
  clReleaseCommandQueue(queue);
  clReleaseMemObject(buffer);
  if (leak_host) LeakHostMemoryOnPurpose();

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseContext(context);
  std::printf("lsan_self_check: program built (%zu-byte binary) and ran\n", binary_size);
  return 0;
}
