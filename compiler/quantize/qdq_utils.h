// Helpers of the quantization passes for QuantizeLinear/DequantizeLinear (Q/DQ) nodes: reading
// their parameters, matching DQ -> op -> Q patterns, and making Q/DQ nodes and the integer
// ops' constants (requantization tables, parameters).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/rewriter.h"

namespace kiln::quant {

// A DequantizeLinear node feeding a value: the integer value it reads and its parameters
// (constant scale and zero point; per-axis parameters carry the axis).
struct DqMatch {
  NodeId node = kNoNode;
  ValueId int_value = kNoValue;
  QuantParams params;
};
std::optional<DqMatch> MatchDq(const GraphRewriter& rw, ValueId v);

// The one QuantizeLinear reading `v` (its only use; `v` no graph output), per-tensor with
// constant parameters, producing u8, i8 or (zero point 0) i16.
struct QMatch {
  NodeId node = kNoNode;
  ValueId out = kNoValue;
  QuantParams params;
  DType dtype = DType::kUndefined;
};
std::optional<QMatch> MatchSoleQ(const GraphRewriter& rw, ValueId v);

// The parameters of a Q or DQ node from its constant scale/zero-point inputs and axis.
std::optional<QuantParams> ReadQdqParams(const Graph& g, const Node& n);

bool SameParams(const QuantParams& a, const QuantParams& b);

// Integer codes stored as a constant's bytes of type `t` (u8, i8, i16 or i32).
std::vector<uint8_t> CodeBytes(const std::vector<int64_t>& codes, DType t);

// Whether values of type `t` with parameters `q` are activation codes the integer ops read:
// u8, i8, or i16 with zero point 0 (int16 activations are symmetric).
bool IsActivationCode(DType t, const QuantParams& q);

// An activation operand of an integer op: DQ of activation codes, per tensor.
std::optional<DqMatch> ActivationDq(const GraphRewriter& rw, ValueId v);

// Q(v) -> DQ, inserted before `anchor`; every former use of `v` (graph outputs included) reads
// the DQ's output afterwards. Returns the integer value (named "<v>.q", carrying `params`).
ValueId InsertQdqPair(GraphRewriter& rw, ValueId v, const QuantParams& params, DType t,
                      NodeId anchor);
// DQ(int value) -> float value, inserted before `anchor`; the DQ writes `float_out` (an
// existing value whose producer is being replaced) or a new value when kNoValue.
ValueId InsertDequantize(GraphRewriter& rw, ValueId int_value, const QuantParams& params,
                         ValueId float_out, NodeId anchor, const std::vector<std::string>& sources);

// An i32 [n, 2] constant of (multiplier, shift) rows for real multipliers `m`.
Expected<ValueId> AddRequantConstant(GraphRewriter& rw, const std::string& base,
                                     const std::vector<double>& m);
// An 8-bit or i32 constant with parameters.
ValueId AddQuantizedConstant(GraphRewriter& rw, const std::string& base, DType t, Shape shape,
                             const void* data, const QuantParams& params);

// Stats of the lowering, counted into the pass context by the caller.
std::string DTypeAttr(DType t);  // "u8" / "i8" / "i16" / "i32"

}  // namespace kiln::quant
