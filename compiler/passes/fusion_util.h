// Helpers shared by the fusion passes (defined in fuse_activation.cc).
#pragma once

#include <optional>

#include "compiler/pass.h"
#include "ir/activation.h"
#include "ir/rewriter.h"

namespace kiln {

// The activation node `act` applies to `y`, when fuse-activation would move it into the
// epilogue of y's producer (compiling for int8: Relu and Clip only); else nullopt.
std::optional<ActivationParams> FusableActivation(const GraphRewriter& rw, NodeId act,
                                                  ValueId y, const PassContext& ctx);

// When one activation (or the x * Sigmoid(x) pattern) alone reads fused node `f`'s output,
// moves it into `f`'s epilogue.
Status AbsorbFollowingActivation(GraphRewriter& rw, NodeId f, PassContext& ctx);

}  // namespace kiln
