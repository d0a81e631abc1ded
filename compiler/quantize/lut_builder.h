// Builds QLookup tables: a chain of elementwise float ops reading one quantized input becomes
// one table, computed by running the chain (on the reference kernels, so the float
// definitions are the float model's own) on the dequantized input codes and quantizing each
// result to the output's parameters: 256 entries (every 8-bit code) or 513 interpolation knots
// (int16 input; kernels/reference/qlookup.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/rewriter.h"

namespace kiln::quant {

// Whether `n` can be a link of a lookup chain: an elementwise float op whose constant inputs
// have one element and whose other inputs have the output's shape (Add(x, 3), Clip(x, 0, 6),
// Sigmoid(x), x * s). A chain is made of links that all derive from one source value.
bool IsLookupLink(const GraphRewriter& rw, const Node& n);

// The chain producing `y`: nodes (in graph order) between the float value `source` and `y`,
// each a lookup link whose non-constant inputs are `source` or outputs of the chain. nullopt
// when `y` is not such a function of `source` alone (or the chain is longer than 32 nodes).
std::optional<std::vector<NodeId>> FindLookupChain(const GraphRewriter& rw, ValueId y,
                                                   ValueId source);

// The number of entries of a table read by an input of type `in_type`: 256 or 513.
int LookupTableEntries(DType in_type);

// The table (output codes): entry k = Q_out(chain(dequantize(code k))), code k = k (u8),
// k - 128 (i8) or -32768 + 128 k (i16).
Expected<std::vector<int64_t>> BuildLookupTable(const GraphRewriter& rw,
                                                const std::vector<NodeId>& chain, ValueId source,
                                                ValueId y, DType in_type,
                                                const QuantParams& in_params, DType out_type,
                                                const QuantParams& out_params);

// The table that only requantizes: real value kept, parameters changed.
std::vector<int64_t> RequantizeTable(DType in_type, const QuantParams& in_params, DType out_type,
                                     const QuantParams& out_params);

}  // namespace kiln::quant
