// Test helpers for the DSP target: random quantized operands and requantization constants.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/op_schema.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::dsptest {

struct Operand {
  HostTensor t;
  QuantParams q;
  bool constant = false;
  bool omitted = false;
};

inline QuantParams Zp(int64_t zp) {
  QuantParams q;
  q.scales = {0.05};
  q.zero_points = {zp};
  return q;
}

inline HostTensor RandomCodes(std::mt19937& rng, DType t, Shape shape, int lo = -1000,
                              int hi = 1000) {
  HostTensor h("", t, std::move(shape));
  const int a = std::max(lo, QuantCodeMin(t)), b = std::min(hi, QuantCodeMax(t));
  std::uniform_int_distribution<int> d(a, b);
  for (int64_t i = 0; i < h.num_elements(); ++i) StoreQuantized(h.bytes.data(), t, i, d(rng));
  return h;
}

inline HostTensor I32(Shape shape, const std::vector<int32_t>& v) {
  HostTensor h("", DType::kI32, std::move(shape));
  std::memcpy(h.bytes.data(), v.data(), v.size() * 4);
  return h;
}

// `rows` valid (multiplier, shift) pairs for real multipliers around 2^-shift_center.
inline Operand Requants(std::mt19937& rng, int64_t rows, int shift_lo, int shift_hi) {
  std::uniform_int_distribution<int32_t> m(1 << 30, std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int> s(shift_lo, shift_hi);
  std::vector<int32_t> raw;
  for (int64_t r = 0; r < rows; ++r) {
    raw.push_back(m(rng));
    raw.push_back(s(rng));
  }
  return {I32({rows, 2}, raw), {}, true, false};
}

// Adds `o` to `g` as a constant, or as a graph input (its tensor appended to `feeds`).
inline ValueId AddOperand(Graph& g, const Operand& o, const std::string& name,
                          std::vector<HostTensor>* feeds) {
  if (o.omitted) return kNoValue;
  const HostTensor& t = o.t;
  ValueId id;
  if (o.constant) {
    id = g.AddConstant(name, t.dtype, t.shape, ConstantBytes::Copy(t.bytes.data(), t.bytes.size()));
  } else {
    Value v;
    v.name = name;
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.shape_known = true;
    id = g.AddValue(v);
    g.inputs().push_back(id);
    HostTensor f = t;
    f.name = name;
    feeds->push_back(std::move(f));
  }
  g.value(id).quant = o.q;
  return id;
}

// A small graph plus the inputs to feed it.
struct PartitionModel {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::vector<HostTensor> feeds;
};

// Adds a node with one output (quantized with `out_q`) and infers it.
inline ValueId AddNode(Graph& g, OpType op, const std::string& name, std::vector<ValueId> inputs,
                       const QuantParams& out_q, Attributes attrs = {}) {
  Value out;
  out.name = name;
  out.quant = out_q;
  const ValueId id = g.AddValue(out);
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = {id};
  n.attrs = std::move(attrs);
  g.AddNode(std::move(n));
  const Status st = InferNode(g, static_cast<NodeId>(g.num_nodes() - 1));
  EXPECT_TRUE(st.ok()) << st.ToString();
  return id;
}

// The partition of the cost-placement tests, where cost-aware and support-only placement differ:
// x -> QConv 3x3 (32 -> 32 channels, 32x32) -> SpaceToDepth -> QLookup -> DepthToSpace -> y
// (the DSP target has neither SpaceToDepth nor DepthToSpace)
inline PartitionModel MakePartitionModel() {
  PartitionModel m;
  Graph& g = *m.graph;
  std::mt19937 rng(21);
  const ValueId x =
      AddOperand(g, {RandomCodes(rng, DType::kU8, {1, 32, 32, 32}), Zp(10)}, "x", &m.feeds);
  QuantParams wq;
  wq.scales = {0.01};
  wq.zero_points = {0};
  const ValueId w = AddOperand(g, {RandomCodes(rng, DType::kI8, {32, 32, 3, 3}, -50, 50), wq, true},
                               "w", &m.feeds);
  const ValueId rq = AddOperand(g, Requants(rng, 1, 40, 41), "rq", &m.feeds);
  Attributes ca;
  ca.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ca.Set("out_dtype", std::string("u8"));
  const ValueId conv =
      AddNode(g, OpType::kQConv, "conv", {x, w, kNoValue, kNoValue, rq}, Zp(5), ca);
  Attributes block;
  block.Set("blocksize", int64_t{2});
  const ValueId t1 = AddNode(g, OpType::kSpaceToDepth, "t1", {conv}, Zp(5), block);
  const ValueId table =
      AddOperand(g, {RandomCodes(rng, DType::kU8, {256}), {}, true}, "table", &m.feeds);
  Attributes la;
  la.Set("out_dtype", std::string("u8"));
  const ValueId lut = AddNode(g, OpType::kQLookup, "lut", {t1, table}, Zp(7), la);
  const ValueId t2 = AddNode(g, OpType::kDepthToSpace, "t2", {lut}, Zp(7), block);
  g.outputs().push_back(t2);
  return m;
}

}  // namespace kiln::dsptest
