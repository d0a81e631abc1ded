// The quantize pass's plan for a float graph: which nodes become integer ops, which values get
// a Q -> DQ pair (and with what parameters), following what lower-qdq can lower:
//   - linear ops (FusedConv/FusedGemm with a foldable epilogue), Add/Mul, Concat, average
//     pools: integer, their outputs quantized — unless only float ops read the output of a
//     Conv/Gemm/global pool, which then keeps its exact int32 accumulator;
//   - value-moving ops (Reshape, Transpose, MaxPool, ...) and chains of elementwise ops of one
//     source (lookup tables): integer when their input comes from an integer op; a moving op's
//     output keeps its input's parameters, a chain is quantized only where it ends;
//   - float inputs of integer ops are quantized at the boundary;
//   - an integer Concat lends its output parameters to inputs it alone reads, so it becomes a
//     plain copy (and the memory planner can write those inputs in place);
//   - a value is int16 (symmetric) with --act sym-i16, or when a node of QuantizeConfig::
//     int16_nodes writes or reads it (such a node's weights are int16 too); a move's output, a
//     chain's ends and a Concat's lent inputs share one type, so int16 spreads across them.
#pragma once

#include <vector>

#include "compiler/pass.h"
#include "ir/rewriter.h"
#include "quant/quantize_config.h"

namespace kiln::quant {

enum class NodeKind { kFloat, kConv, kGemm, kBinary, kConcat, kPool, kMove, kLink };

struct QuantPlan {
  std::vector<NodeKind> kind;       // by node id
  std::vector<bool> integer;        // by node id: the node becomes an integer op
  std::vector<bool> quantize;       // by value id: a Q -> DQ pair follows the value
  std::vector<QuantParams> params;  // by value id, for quantized values
  std::vector<bool> int16_weights;  // by node id: an --int16 Conv/Gemm (int16 weights)
  std::vector<DType> dtype;         // by value id, for quantized values: u8, i8 or i16
};

// Plans quantization of the graph under `rw` with `config` (statistics required).
Expected<QuantPlan> PlanQuantization(const GraphRewriter& rw, const QuantizeConfig& config,
                                     PassContext& ctx);

// The data inputs of a node of `kind` (those that are quantized when it is integer).
std::vector<size_t> DataInputs(NodeKind kind, const Node& n);

}  // namespace kiln::quant
