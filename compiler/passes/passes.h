// Factories of every compiler pass, in the order the default pipeline runs them
// (compiler/pipeline.cc). One pass per file in compiler/passes/.
#pragma once

#include <memory>

#include "compiler/pass.h"

namespace kiln {

std::unique_ptr<Pass> MakeFoldConstantsPass();        // fold-constants (opt 0)
std::unique_ptr<Pass> MakeRemoveIdentityPass();       // remove-identity (opt 1)
std::unique_ptr<Pass> MakeFoldTransposesPass();       // fold-transposes (opt 1)
std::unique_ptr<Pass> MakeFoldBatchNormPass();        // fold-batchnorm (opt 2)
std::unique_ptr<Pass> MakeFoldPadPass();              // fold-pad (opt 2)
std::unique_ptr<Pass> MakeMatMulToGemmPass();         // matmul-to-gemm (opt 2)
std::unique_ptr<Pass> MakeFuseActivationPass();       // fuse-activation (opt 2)
std::unique_ptr<Pass> MakeFuseResidualPass();         // fuse-residual (opt 2)
std::unique_ptr<Pass> MakeFoldFlattenIntoGemmPass();  // fold-flatten-into-gemm (opt 2)
std::unique_ptr<Pass> MakeDeadCodePass();             // dead-code (opt 1)
std::unique_ptr<Pass> MakeEqualizePass();             // equalize (--equalize)
std::unique_ptr<Pass> MakeQuantizePass();             // quantize (kiln quantize)
std::unique_ptr<Pass> MakeLowerQdqPass();             // lower-qdq (opt 1)
std::unique_ptr<Pass> MakePlaceNodesPass();           // place-nodes (--target gpu|dsp|<backend>)
std::unique_ptr<Pass> MakePackWeightsPass();          // pack-weights (opt 2, each backend's)
std::unique_ptr<Pass> MakeWeightsF16Pass();           // weights-f16 (--weights-f16)
std::unique_ptr<Pass> MakeBlockedLayoutPass();        // blocked-layout (opt 2, AVX2 targets)
// The plan passes (compiler/compile_plan.h), last.
std::unique_ptr<Pass> MakeStreamsPass();      // streams (--streams N > 1)
std::unique_ptr<Pass> MakeMemoryAliasPass();  // memory-alias (opt 1)
std::unique_ptr<Pass> MakeMemoryPlanPass();   // memory-plan (opt 0)
std::unique_ptr<Pass> MakeLowerPass();        // lower (--target gpu|dsp|<backend>)

}  // namespace kiln
