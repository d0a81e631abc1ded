// Fused DSP convolution chains: the chain op, its row-tiled planner and the choice of chains.
#include "backends/dsp/kernels/dsp_chain.h"

#include <algorithm>
#include <array>
#include <limits>

#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_engine.h"

namespace kiln {
namespace {

uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }

bool IsGraphOutput(const Graph& g, ValueId v) {
  return std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end();
}

int64_t Cycles(const DspProgram& program, const DspOp& op) {
  return DspProgramCycles(program, op, DspCostModel{});
}

}  // namespace

bool DspChainLink(const Graph& g, NodeId a, NodeId b) {
  const Node& na = g.node(a);
  const Node& nb = g.node(b);
  if (na.op != OpType::kQConv || nb.op != OpType::kQConv) return false;
  if (na.outputs.size() != 1 || na.outputs[0] == kNoValue || nb.inputs.empty()) return false;
  const ValueId mid = na.outputs[0];
  if (nb.inputs[0] != mid || IsGraphOutput(g, mid)) return false;
  const DType t = g.value(mid).dtype;
  if (t != DType::kU8 && t != DType::kI8) return false;
  for (size_t s = 1; s < nb.inputs.size(); ++s) {
    if (nb.inputs[s] == mid) return false;
  }
  for (size_t n = 0; n < g.num_nodes(); ++n) {
    if (static_cast<NodeId>(n) == b) continue;
    const auto& ins = g.node(static_cast<NodeId>(n)).inputs;
    if (std::find(ins.begin(), ins.end(), mid) != ins.end()) return false;
  }
  return true;
}

Expected<std::unique_ptr<DspChainOp>> MakeDspChain(const Graph& graph,
                                                   std::span<const int32_t> members) {
  if (members.size() < 2 || members.size() > kDspMaxChainLength) {
    return Unsupported("a DSP chain has 2 to " + std::to_string(kDspMaxChainLength) + " members");
  }
  auto chain = std::unique_ptr<DspChainOp>(new DspChainOp());
  for (size_t k = 0; k < members.size(); ++k) {
    const int32_t id = members[k];
    if (id < 0 || static_cast<size_t>(id) >= graph.num_nodes()) {
      return InvalidArgument("DSP chain member " + std::to_string(id) + " is not a node");
    }
    if (k > 0 && (id != members[k - 1] + 1 || !DspChainLink(graph, members[k - 1], id))) {
      return Unsupported("nodes " + std::to_string(members[k - 1]) + " and " + std::to_string(id) +
                         " do not form a DSP chain");
    }
    const Node& node = graph.node(id);
    if (node.op != OpType::kQConv) return Unsupported("DSP chains fuse QConvs only");
    auto conv = std::make_unique<DspConv>();
    KILN_RETURN_IF_ERROR(conv->Init(graph, node));
    if (conv->batch() != 1) return Unsupported("DSP chains run batch 1");
    if (k + 1 < members.size() && conv->out_type() == DType::kI32) {
      return Unsupported("a DSP chain's intermediate is 8-bit");
    }
    chain->base_.push_back(chain->num_inputs_);
    chain->num_inputs_ += node.inputs.size();
    chain->convs_.push_back(std::move(conv));
  }
  if (chain->num_inputs_ + graph.node(members.back()).outputs.size() > 255) {
    return Unsupported("too many operands for one DSP chain");
  }
  return chain;
}

std::vector<ValueId> DspChainOperands(const Graph& graph, std::span<const int32_t> members) {
  std::vector<ValueId> values;
  for (int32_t id : members) {
    const auto& ins = graph.node(id).inputs;
    values.insert(values.end(), ins.begin(), ins.end());
  }
  const auto& outs = graph.node(members.back()).outputs;
  values.insert(values.end(), outs.begin(), outs.end());
  return values;
}

std::vector<size_t> DspChainEarlyInputs(const Graph& graph, std::span<const int32_t> members) {
  std::vector<size_t> early;
  size_t base = 0;
  for (size_t k = 0; k + 1 < members.size(); ++k) {
    const size_t n = graph.node(members[k]).inputs.size();
    for (size_t s = k == 0 ? 0 : 1; s < n; ++s) early.push_back(base + s);
    base += n;
  }
  return early;
}

std::vector<uint64_t> DspChainOperandBytes(const Graph& graph, std::span<const int32_t> members) {
  std::vector<uint64_t> bytes;
  for (ValueId v : DspChainOperands(graph, members)) {
    bytes.push_back(v == kNoValue ? 0 : graph.value(v).byte_size());
  }
  return bytes;
}

Status DspChainOp::Regions(const DspCommand& c, std::vector<DspRegion>* out) const {
  if (c.tile[5] < 0 || c.tile[5] >= static_cast<int64_t>(convs_.size())) {
    return InvalidArgument("DSP chain compute command names member " + std::to_string(c.tile[5]));
  }
  return convs_[static_cast<size_t>(c.tile[5])]->Regions(c, out);
}

void DspChainOp::Compute(const DspCommand& c, uint8_t* scratch) const {
  convs_[static_cast<size_t>(c.tile[5])]->Compute(c, scratch);
}

DspCounters DspChainOp::Work(const DspCommand& c) const {
  return convs_[static_cast<size_t>(c.tile[5])]->Work(c);
}

Expected<DspProgram> DspChainOp::Plan(uint32_t scratch_bytes) const {
  std::optional<DspProgram> best;
  int64_t best_cycles = std::numeric_limits<int64_t>::max();
  for (int64_t th = convs_.back()->out_height(); th >= 1; --th) {
    for (bool db : {false, true}) {
      if (db && th >= convs_.back()->out_height()) continue;  // one tile: nothing to overlap
      auto program = Emit(scratch_bytes, th, db);
      if (!program.ok()) continue;
      const int64_t cycles = Cycles(*program, *this);
      if (cycles < best_cycles) {
        best_cycles = cycles;
        best = std::move(program).value();
      }
    }
  }
  if (!best) {
    return Unsupported("no row tile of the chain fits a " + std::to_string(scratch_bytes) +
                       "-byte scratchpad");
  }
  return std::move(*best);
}

Expected<DspProgram> DspChainOp::Emit(uint32_t scratch_bytes, int64_t th,
                                      bool double_buffer) const {
  const size_t count = convs_.size();
  const DspConv& first = *convs_.front();
  const DspConv& last = *convs_.back();
  const int64_t oh = last.out_height();
  // Rows of every member's output a tile of the last member's rows [r0, r1) needs, and the
  // rows of the chain's input they read.
  std::vector<std::pair<int64_t, int64_t>> rows(count);
  std::pair<int64_t, int64_t> slab;
  auto ranges = [&](int64_t r0, int64_t r1) {
    rows[count - 1] = {r0, r1};
    for (size_t k = count - 1; k > 0; --k) {
      rows[k - 1] = convs_[k]->InputRows(rows[k].first, rows[k].second);
    }
    slab = first.InputRows(rows[0].first, rows[0].second);
  };
  std::vector<int64_t> max_rows(count, 0);
  int64_t max_slab = 0;
  for (int64_t r0 = 0; r0 < oh; r0 += th) {
    ranges(r0, std::min(oh, r0 + th));
    for (size_t k = 0; k < count; ++k) {
      const int64_t n = rows[k].second - rows[k].first;
      if (n <= 0) return Unsupported("a chain member would compute no rows");
      max_rows[k] = std::max(max_rows[k], n);
    }
    if (slab.second <= slab.first) return Unsupported("a chain tile would read no input rows");
    max_slab = std::max(max_slab, slab.second - slab.first);
  }
  // Scratchpad map: every member's weights, bias and requantization rows (resident), the
  // chain's input slab, every member's output tile, one accumulator plane, residual tiles.
  uint64_t off = 0;
  auto take = [&](uint64_t bytes) {
    const uint64_t at = off;
    off += DspAlign(bytes);
    return static_cast<uint32_t>(std::min<uint64_t>(at, UINT32_MAX));
  };
  struct Map {
    uint32_t w, bias, rq, rrq, out;
  };
  std::vector<Map> map(count);
  uint64_t acc_bytes = 0;
  for (size_t k = 0; k < count; ++k) {
    const DspConv& cv = *convs_[k];
    const int64_t m = cv.out_channels();
    map[k].w = take(cv.WeightBytes());
    map[k].bias = cv.has_bias() ? take(U(m) * 4) : 0;
    map[k].rq = cv.RequantBytes(m) ? take(cv.RequantBytes(m)) : 0;
    map[k].rrq = cv.has_residual() ? take(cv.ResidualRequantBytes(m)) : 0;
    acc_bytes = std::max(acc_bytes, cv.AccRegionBytes(max_rows[k]));
  }
  // Double buffering: the streamed slab, residual tiles and the chain's output get two sets
  // (tile t uses set t % 2); the intermediates never leave the compute engine.
  const int sets = double_buffer ? 2 : 1;
  uint32_t sx[2] = {0, 0}, sout[2] = {0, 0};
  std::vector<std::array<uint32_t, 2>> sres(count, {0, 0});
  for (int p = 0; p < sets; ++p) sx[p] = take(U(first.in_channels() * max_slab * first.in_width()));
  for (size_t k = 0; k < count; ++k) {
    const DspConv& cv = *convs_[k];
    const uint64_t plane = U(cv.out_channels() * max_rows[k] * cv.out_width());
    const bool streamed = k + 1 == count;
    map[k].out = take(plane * cv.OutBytes());
    if (streamed) sout[0] = map[k].out;
    if (streamed && double_buffer) sout[1] = take(plane * cv.OutBytes());
    for (int p = 0; p < sets && cv.has_residual(); ++p)
      sres[k][static_cast<size_t>(p)] = take(plane);
  }
  const uint32_t sacc = take(acc_bytes);
  if (off > scratch_bytes) return Unsupported("the chain's tiles do not fit the scratchpad");

  DspProgramBuilder b(scratch_bytes);
  for (size_t k = 0; k < count; ++k) {
    const DspConv& cv = *convs_[k];
    const int64_t m = cv.out_channels();
    const auto slot = [&](size_t s) { return static_cast<uint8_t>(base_[k] + s); };
    b.DmaIn(slot(1), 0, 1, static_cast<uint32_t>(cv.WeightBytes()), 0, map[k].w);
    if (cv.has_bias()) b.DmaIn(slot(2), 0, 1, static_cast<uint32_t>(m * 4), 0, map[k].bias);
    if (cv.RequantBytes(m)) {
      b.DmaIn(slot(4), 0, 1, static_cast<uint32_t>(cv.RequantBytes(m)), 0, map[k].rq);
    }
    if (cv.has_residual()) {
      b.DmaIn(slot(5), 0, 1, static_cast<uint32_t>(cv.ResidualRequantBytes(m)), 0, map[k].rrq);
    }
  }
  const int64_t h0 = first.in_height(), w0 = first.in_width(), c0 = first.in_channels();
  const int64_t tiles = (oh + th - 1) / th;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> tile_rows;
  std::vector<std::pair<int64_t, int64_t>> tile_slab;
  for (int64_t t = 0; t < tiles; ++t) {
    ranges(t * th, std::min(oh, (t + 1) * th));
    tile_rows.push_back(rows);
    tile_slab.push_back(slab);
  }
  // Tile t's slab and residual tiles into its buffer set.
  auto load = [&](int64_t t, int p, int32_t after) {
    const auto [s0, s1] = tile_slab[static_cast<size_t>(t)];
    int32_t last =
        b.DmaInAfter(after, static_cast<uint8_t>(base_[0]), U(s0 * w0), static_cast<uint32_t>(c0),
                     static_cast<uint32_t>((s1 - s0) * w0), U(h0 * w0), sx[p]);
    for (size_t k = 0; k < count; ++k) {
      const DspConv& cv = *convs_[k];
      if (!cv.has_residual()) continue;
      const auto [lo, hi] = tile_rows[static_cast<size_t>(t)][k];
      const int64_t ow = cv.out_width();
      last = b.DmaInAfter(after, static_cast<uint8_t>(base_[k] + 3), U(lo * ow),
                          static_cast<uint32_t>(cv.out_channels()),
                          static_cast<uint32_t>((hi - lo) * ow), U(cv.out_height() * ow),
                          sres[k][static_cast<size_t>(p)]);
    }
    return last;
  };
  // Every member in turn; member k reads member k - 1's output tile in place.
  auto compute = [&](int64_t t, int p, int32_t dep) {
    for (size_t k = 0; k < count; ++k) {
      const DspConv& cv = *convs_[k];
      const auto [lo, hi] = tile_rows[static_cast<size_t>(t)][k];
      DspCommand& c = b.ComputeAfter(dep);
      c.tile[0] = 0, c.tile[1] = 0, c.tile[2] = cv.out_channels(), c.tile[3] = lo, c.tile[4] = hi;
      c.tile[5] = static_cast<int64_t>(k);
      c.buf[DspConv::kX] = k == 0 ? sx[p] : map[k - 1].out;
      c.buf[DspConv::kW] = map[k].w, c.buf[DspConv::kBias] = map[k].bias;
      c.buf[DspConv::kRq] = map[k].rq, c.buf[DspConv::kRes] = sres[k][static_cast<size_t>(p)];
      c.buf[DspConv::kOut] = k + 1 == count ? sout[p] : map[k].out, c.buf[DspConv::kAcc] = sacc;
      c.buf[DspConv::kResRq] = map[k].rrq;
      dep = b.last();
    }
    return dep;
  };
  auto store = [&](int64_t t, int p, int32_t done) {
    const auto [lo, hi] = tile_rows[static_cast<size_t>(t)][count - 1];
    const uint64_t ob = last.OutBytes();
    const int64_t ow = last.out_width();
    b.DmaOut(static_cast<uint8_t>(num_inputs_), U(lo * ow) * ob,
             static_cast<uint32_t>(last.out_channels()),
             static_cast<uint32_t>(U((hi - lo) * ow) * ob), U(oh * ow) * ob, sout[p], done);
  };
  b.EmitTiles(tiles, double_buffer, load, compute, store);
  return b.Take();
}

void AddDspChains(const Graph& graph, uint32_t scratch_bytes,
                  const std::function<bool(std::span<const int32_t>)>& may_fuse,
                  DspProgramSet* set) {
  const auto n = static_cast<int32_t>(graph.num_nodes());
  // Estimated cycles of every node's own program.
  auto single_cycles = [&](int32_t id) -> int64_t {
    auto op = MakeDspOp(graph, graph.node(id));
    return op.ok() ? Cycles(set->by_node.at(id), **op) : std::numeric_limits<int64_t>::max() / 4;
  };
  auto has_program = [&](int32_t id) { return set->by_node.count(id) > 0; };
  for (int32_t start = 0; start < n;) {
    // The maximal run of linked nodes from `start`.
    int32_t end = start + 1;
    while (end < n && has_program(end - 1) && has_program(end) &&
           DspChainLink(graph, end - 1, end)) {
      ++end;
    }
    const int32_t len = end - start;
    if (len < 2) {
      start = end;
      continue;
    }
    // Fewest cycles over segmentations: best[i] covers run nodes [0, i).
    const int64_t inf = std::numeric_limits<int64_t>::max() / 4;
    std::vector<int64_t> best(static_cast<size_t>(len) + 1, inf),
        from(static_cast<size_t>(len) + 1, 0);
    std::vector<std::vector<std::optional<DspProgram>>> programs(static_cast<size_t>(len) + 1);
    best[0] = 0;
    for (int32_t i = 1; i <= len; ++i) {
      programs[static_cast<size_t>(i)].resize(static_cast<size_t>(i));
      for (int32_t j = std::max(0, i - static_cast<int32_t>(kDspMaxChainLength)); j < i; ++j) {
        if (best[static_cast<size_t>(j)] >= inf) continue;
        int64_t cost = inf;
        if (i - j == 1) {
          cost = single_cycles(start + j);
        } else {
          std::vector<int32_t> members;
          for (int32_t m = start + j; m < start + i; ++m) members.push_back(m);
          if (!may_fuse(members)) continue;
          auto chain = MakeDspChain(graph, members);
          if (!chain.ok()) continue;
          auto program = (*chain)->Plan(scratch_bytes);
          if (!program.ok()) continue;
          cost = Cycles(*program, **chain);
          program->members = members;
          programs[static_cast<size_t>(i)][static_cast<size_t>(j)] = std::move(program).value();
        }
        if (best[static_cast<size_t>(j)] + cost < best[static_cast<size_t>(i)]) {
          best[static_cast<size_t>(i)] = best[static_cast<size_t>(j)] + cost;
          from[static_cast<size_t>(i)] = j;
        }
      }
    }
    for (int32_t i = len; i > 0;) {
      const auto j = static_cast<int32_t>(from[static_cast<size_t>(i)]);
      auto& p = programs[static_cast<size_t>(i)][static_cast<size_t>(j)];
      if (i - j > 1 && p) set->chains.emplace(start + i - 1, std::move(*p));
      i = j;
    }
    start = end;
  }
}

int64_t DspProgramSetCycles(const Graph& graph, const DspProgramSet& set) {
  int64_t total = 0;
  std::vector<bool> fused(graph.num_nodes(), false);
  for (const auto& [last, program] : set.chains) {
    auto chain = MakeDspChain(graph, program.members);
    if (!chain.ok()) continue;
    total += Cycles(program, **chain);
    for (int32_t m : program.members) fused[static_cast<size_t>(m)] = true;
  }
  for (const auto& [id, program] : set.by_node) {
    if (fused[static_cast<size_t>(id)]) continue;
    auto op = MakeDspOp(graph, graph.node(id));
    if (op.ok()) total += Cycles(program, **op);
  }
  return total;
}

}  // namespace kiln
