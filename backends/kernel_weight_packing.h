// Weight packing driven by the kernel registry, for backends whose kernels declare the layout
// they read (KernelTraits::packing): the CPU at the compile's ISA, the OpenCL kernels.
#pragma once

#include <string_view>

#include "backends/backend.h"

namespace kiln {

// For every node placed on `backend` (a node with no placement counts as the CPU's), asks the
// kernel registry which kernel of `backend` at most `max_isa` would run it; when that kernel
// wants its weights in a packed layout, rewrites the constant into it. A FusedGemm or QGemm
// whose B is [K, N] is first transposed to [N, K] (transB = 1), so that output features lead
// as every packed layout expects. Counters: one per layout packed, "transposed".
Status PackWeightsForKernels(WeightPackingContext& ctx, std::string_view backend, Isa max_isa);

}  // namespace kiln
