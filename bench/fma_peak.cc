// Dispatch of the per-ISA FMA peak loops.
#include "bench/fma_peak.h"

#include "kernels/cpu_features.h"

namespace kiln::bench {

#if defined(__x86_64__) || defined(__i386__)
double FmaPeakAvx512();
double FmaPeakAvx2();
#endif

double MeasureFmaPeakGflops(Isa isa) {
  if (!cpu::CpuSupports(isa)) return 0.0;
#if defined(__x86_64__) || defined(__i386__)
  if (isa == Isa::kAvx512 || isa == Isa::kAvx512Vnni) return FmaPeakAvx512();
  if (isa == Isa::kAvx2) return FmaPeakAvx2();
#endif
  return 0.0;
}

}  // namespace kiln::bench
