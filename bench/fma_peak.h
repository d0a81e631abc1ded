// Register-only FMA loops that measure one core's fp32 peak for an ISA (the denominator of
// the benchmarks' "% of peak").
#pragma once

#include "kernels/kernel_registry.h"

namespace kiln::bench {

// GFLOP/s of a dependency-free FMA loop on the calling thread; 0 when the ISA is not built.
double MeasureFmaPeakGflops(Isa isa);

}  // namespace kiln::bench
