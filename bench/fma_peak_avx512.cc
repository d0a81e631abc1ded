// One core's fp32 FMA peak with zmm registers: 24 independent vfmadd231ps chains in asm (a
// compiler may spill or reorder an intrinsics loop; this measures the FMA pipes alone).
#include <time.h>

namespace kiln::bench {
#if defined(__AVX512F__)
double FmaPeakAvx512() {
  long iters = 20'000'000;
  const long total = iters;
  // The thread's CPU clock: time slices taken by other processes are not counted.
  timespec a, b;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  __asm__ volatile(
      "1:\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm0\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm1\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm2\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm3\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm4\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm5\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm6\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm7\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm8\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm9\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm10\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm11\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm12\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm13\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm14\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm15\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm16\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm17\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm18\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm19\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm20\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm21\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm22\n"
      "vfmadd231ps %%zmm30, %%zmm31, %%zmm23\n"
      "dec %0\n"
      "jnz 1b\n"
      : "+r"(iters)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
        "xmm21", "xmm22", "xmm23", "xmm30", "xmm31", "cc");
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  const double s =
      static_cast<double>(b.tv_sec - a.tv_sec) + 1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec);
  return static_cast<double>(total) * 24 * 32 / s / 1e9;
}
#endif
}  // namespace kiln::bench
