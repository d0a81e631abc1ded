// Helpers shared by the fusion passes (defined in fuse_activation.cc).
#pragma once

#include "compiler/pass.h"
#include "ir/rewriter.h"

namespace kiln {

// When one activation (or the x * Sigmoid(x) pattern) alone reads fused node `f`'s output,
// moves it into `f`'s epilogue.
Status AbsorbFollowingActivation(GraphRewriter& rw, NodeId f, PassContext& ctx);

}  // namespace kiln
