// Small helpers shared by the rewrite passes: reading constants, making new ones, and
// reading ops' attributes in the forms the passes match on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/rewriter.h"

namespace kiln {

// The constant's elements as floats (f32 or f16 constants in plain layout), else nullopt.
std::optional<std::vector<float>> ConstantFloats(const Value& v);
// The constant's elements as int64s (i32 or i64 constants), else nullopt.
std::optional<std::vector<int64_t>> ConstantInts(const Value& v);
// A new f32 constant named after `base` (made unique).
ValueId AddF32Constant(GraphRewriter& rw, const std::string& base, Shape shape,
                       const std::vector<float>& data);

// True when `v` is a constant whose elements are one value per channel of an NCHW-like tensor
// with `channels` channels at axis 1 of a rank-`rank` tensor ([C], [C,1,1], [1,C,1,1], or a
// scalar / single element). Fills `per_channel` with `channels` values.
bool PerChannelConstant(const Value& v, int64_t channels, size_t rank,
                        std::vector<float>* per_channel);

// Whether users of `out` may read `in` instead so the node producing `out` can go: a graph
// output must stay a distinct, nameable value, so not when `out` is one and `in` is a graph
// input, a constant or another output.
bool CanBypass(const GraphRewriter& rw, ValueId in, ValueId out);

// The node's single output (kNoValue when it has none or several live ones).
ValueId SoleOutput(const Node& n);
// Whether the node's outputs beyond the first are absent or unused.
bool OnlyFirstOutputUsed(const GraphRewriter& rw, const Node& n);

}  // namespace kiln
