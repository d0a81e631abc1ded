// One core's fp32 FMA peak with ymm registers: 12 independent vfmadd231ps chains in asm (a
// compiler may spill or reorder an intrinsics loop; this measures the FMA pipes alone).
#include <time.h>

namespace kiln::bench {
#if defined(__AVX2__) && defined(__FMA__)
double FmaPeakAvx2() {
  long iters = 20'000'000;
  const long total = iters;
  // The thread's CPU clock: time slices taken by other processes are not counted.
  timespec a, b;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  __asm__ volatile(
      "1:\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm0\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm1\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm2\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm3\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm4\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm5\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm6\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm7\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm8\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm9\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm10\n"
      "vfmadd231ps %%ymm14, %%ymm15, %%ymm11\n"
      "dec %0\n"
      "jnz 1b\n"
      : "+r"(iters)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm14", "xmm15", "cc");
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  const double s =
      static_cast<double>(b.tv_sec - a.tv_sec) + 1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec);
  return static_cast<double>(total) * 12 * 16 / s / 1e9;
}
#endif
}  // namespace kiln::bench
