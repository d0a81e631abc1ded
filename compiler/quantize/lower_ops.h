// The rewrites of the lower-qdq pass, one per op family: each matches DQ -> float op -> Q (or,
// where an i32 result is allowed, DQ -> op with float readers) around node `id` and replaces it
// with the integer op of docs/quantization.md, returning whether it did. Nodes left unused
// (the float op, the Q) are erased; DQ nodes that lose their last reader are left for the
// pass's final sweep.
#pragma once

#include "compiler/pass.h"
#include "ir/rewriter.h"

namespace kiln::quant {

// lower_linear.cc
Expected<bool> LowerConv(GraphRewriter& rw, NodeId id, PassContext& ctx);    // FusedConv
Expected<bool> LowerGemm(GraphRewriter& rw, NodeId id, PassContext& ctx);    // FusedGemm, MatMul
// Cast(to int32) of a DQ(int32, scale 1) (ConvInteger / MatMulInteger): the int32 value itself.
Expected<bool> LowerCastOfAccumulator(GraphRewriter& rw, NodeId id, PassContext& ctx);

// lower_elementwise.cc
Expected<bool> LowerBinary(GraphRewriter& rw, NodeId id, PassContext& ctx);  // Add, Mul
Expected<bool> LowerConcat(GraphRewriter& rw, NodeId id, PassContext& ctx);
Expected<bool> LowerPool(GraphRewriter& rw, NodeId id, PassContext& ctx);    // Average, Global
// Ops that only move values (Reshape, Transpose, MaxPool, nearest Resize, ...).
bool IsPassThroughOp(const Node& n);
Expected<bool> LowerPassThrough(GraphRewriter& rw, NodeId id, PassContext& ctx);
// At a Q node: a chain of elementwise float ops from one DQ (QLookup), or DQ -> Q directly.
Expected<bool> LowerAtQuantize(GraphRewriter& rw, NodeId q, PassContext& ctx);

// Shared by the rewrites: makes `node` produce value `out` (the old producer `old` gives it up)
// and inserts it before `old`.
NodeId InsertReplacement(GraphRewriter& rw, Node node, NodeId old, ValueId out);
// Erases `n` when none of its outputs is used any more.
Status EraseIfUnused(GraphRewriter& rw, NodeId n);

}  // namespace kiln::quant
