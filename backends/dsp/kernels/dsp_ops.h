// Factories of the DSP target's ops (one file each), used by MakeDspOp.
#pragma once

#include <memory>

#include "backends/dsp/kernels/dsp_op.h"

namespace kiln {

// The 8-bit codes the target computes on.
inline bool IsDspCode(DType t) { return t == DType::kU8 || t == DType::kI8; }

// An op of type T made and initialised for `node` (every factory below is one of these).
template <typename T>
Expected<std::unique_ptr<DspOp>> MakeInitializedDspOp(const Graph& graph, const Node& node) {
  auto op = std::make_unique<T>();
  KILN_RETURN_IF_ERROR(op->Init(graph, node));
  return std::unique_ptr<DspOp>(std::move(op));
}

Expected<std::unique_ptr<DspOp>> MakeDspConv(const Graph& graph, const Node& node);
Expected<std::unique_ptr<DspOp>> MakeDspGemm(const Graph& graph, const Node& node);
// QAdd, QMul (same-shape operands, or one broadcast along trailing dims) and QLookup.
Expected<std::unique_ptr<DspOp>> MakeDspElementwise(const Graph& graph, const Node& node);
// QGlobalAveragePool, QAveragePool and MaxPool on 8-bit codes (whole planes per tile).
Expected<std::unique_ptr<DspOp>> MakeDspPool(const Graph& graph, const Node& node);
// QConcat and Concat of 8-bit codes.
Expected<std::unique_ptr<DspOp>> MakeDspConcat(const Graph& graph, const Node& node);
// Transpose of 8-bit codes (rank 1-6).
Expected<std::unique_ptr<DspOp>> MakeDspTranspose(const Graph& graph, const Node& node);
// Resize (nearest) of 8-bit codes, rank 4, H and W, where the index map is floor(o * in / out).
Expected<std::unique_ptr<DspOp>> MakeDspResize(const Graph& graph, const Node& node);

}  // namespace kiln
