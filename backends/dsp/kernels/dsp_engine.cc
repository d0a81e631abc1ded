// Validation and execution of a DSP command stream (the scratchpad, the DMA engine, the
// instrumented access checks).
#include "backends/dsp/kernels/dsp_engine.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln {
namespace {

using u128 = unsigned __int128;
constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0x5c;
constexpr uint8_t kPoisonByte = 0xa5;
// Bounds on the work a program may ask of the DMA engine (a program from a file could
// otherwise loop for hours on empty rows): rows per command and per program.
constexpr uint32_t kMaxDmaRows = uint32_t{1} << 24;
constexpr uint64_t kMaxProgramDmaRows = uint64_t{1} << 26;

// End (exclusive) of a 2-D block's last row: offset + (rows - 1) * stride + row_bytes.
u128 BlockEnd(uint64_t offset, uint32_t rows, uint64_t stride, uint32_t row_bytes) {
  if (rows == 0) return offset;
  return u128{offset} + u128{rows - 1} * stride + row_bytes;
}

std::string CommandName(size_t i, const DspCommand& c) {
  return "command " + std::to_string(i) + " (" + DspCmdKindName(c.kind) + ")";
}

}  // namespace

Status ValidateDspProgram(const DspProgram& program, const DspOp& op,
                          std::span<const uint64_t> operand_bytes, size_t num_inputs) {
  const uint32_t scratch = program.scratch_bytes;
  if (scratch < kDspMinScratchBytes || scratch > kDspMaxScratchBytes) {
    return InvalidArgument("DSP program scratchpad of " + std::to_string(scratch) +
                           " bytes is outside " + std::to_string(kDspMinScratchBytes) + ".." +
                           std::to_string(kDspMaxScratchBytes));
  }
  // Every output byte must be written by some DMA-out (else it would hold stale data).
  std::vector<std::vector<bool>> covered(operand_bytes.size());
  for (size_t s = num_inputs; s < operand_bytes.size(); ++s)
    covered[s].assign(operand_bytes[s], false);
  std::vector<DspRegion> regions;
  uint64_t total_rows = 0;
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const DspCommand& c = program.commands[i];
    if (c.dep >= static_cast<int64_t>(i) || c.dep < -1) {
      return InvalidArgument(CommandName(i, c) + " depends on a later command");
    }
    if (c.kind == DspCmdKind::kCompute) {
      regions.clear();
      KILN_RETURN_IF_ERROR(op.Regions(c, &regions).WithContext(CommandName(i, c)));
      for (const DspRegion& r : regions) {
        if (r.offset % 4 != 0) {  // int32 operands (accumulators, biases) must be aligned
          return InvalidArgument(CommandName(i, c) + " has a scratchpad operand at offset " +
                                 std::to_string(r.offset) + ", not 4-byte aligned");
        }
        if (u128{r.offset} + r.bytes > scratch) {
          return InvalidArgument(CommandName(i, c) + " touches scratchpad bytes [" +
                                 std::to_string(r.offset) + ", +" + std::to_string(r.bytes) +
                                 ") beyond its " + std::to_string(scratch) + " bytes");
        }
      }
      continue;
    }
    if (c.kind != DspCmdKind::kDmaIn && c.kind != DspCmdKind::kDmaOut) {
      return InvalidArgument("command " + std::to_string(i) + " has an unknown kind");
    }
    const bool in = c.kind == DspCmdKind::kDmaIn;
    if (c.operand >= operand_bytes.size() || (in != (c.operand < num_inputs))) {
      return InvalidArgument(CommandName(i, c) + " names operand " + std::to_string(c.operand) +
                             (in ? ", not an input" : ", not an output"));
    }
    if (c.rows == 0 || c.row_bytes == 0 || c.rows > kMaxDmaRows) {
      return InvalidArgument(CommandName(i, c) + " copies " + std::to_string(c.rows) + " rows of " +
                             std::to_string(c.row_bytes) + " bytes");
    }
    total_rows += c.rows;
    if (total_rows > kMaxProgramDmaRows) {
      return InvalidArgument("DSP program copies more than " + std::to_string(kMaxProgramDmaRows) +
                             " DMA rows");
    }
    if (c.scratch_stride < c.row_bytes && c.rows > 1) {
      return InvalidArgument(CommandName(i, c) + " overlaps its scratchpad rows");
    }
    if (BlockEnd(c.scratch_offset, c.rows, c.scratch_stride, c.row_bytes) > scratch) {
      return InvalidArgument(CommandName(i, c) + " reaches beyond the scratchpad");
    }
    if (BlockEnd(c.main_offset, c.rows, c.main_stride, c.row_bytes) > operand_bytes[c.operand]) {
      return InvalidArgument(CommandName(i, c) + " reaches beyond operand " +
                             std::to_string(c.operand) + " (" +
                             std::to_string(operand_bytes[c.operand]) + " bytes)");
    }
    if (!in) {
      auto& cov = covered[c.operand];
      for (uint32_t r = 0; r < c.rows; ++r) {
        const uint64_t at = c.main_offset + r * c.main_stride;
        std::fill(cov.begin() + static_cast<int64_t>(at),
                  cov.begin() + static_cast<int64_t>(at + c.row_bytes), true);
      }
    }
  }
  for (size_t s = num_inputs; s < operand_bytes.size(); ++s) {
    if (std::find(covered[s].begin(), covered[s].end(), false) != covered[s].end()) {
      return InvalidArgument("DSP program leaves bytes of output operand " + std::to_string(s) +
                             " unwritten");
    }
  }
  return Status::Ok();
}

DspCounters CountDspProgram(const DspProgram& program, const DspOp& op) {
  DspCounters k;
  for (const DspCommand& c : program.commands) {
    ++k.commands;
    // rows and row_bytes mean something only for DMA commands (which validation bounds): a
    // compute command's may hold anything.
    const bool dma = c.kind != DspCmdKind::kCompute;
    const int64_t bytes = dma ? static_cast<int64_t>(c.rows) * c.row_bytes : 0;
    switch (c.kind) {
      case DspCmdKind::kDmaIn:
        k.dma_in_bytes += bytes;
        ++k.dma_commands;
        break;
      case DspCmdKind::kDmaOut:
        k.dma_out_bytes += bytes;
        ++k.dma_commands;
        break;
      case DspCmdKind::kCompute: {
        const DspCounters w = op.Work(c);
        k.macs += w.macs;
        k.elem_ops += w.elem_ops;
        ++k.compute_commands;
        break;
      }
    }
  }
  return k;
}

int64_t DspProgramCycles(const DspProgram& program, const DspOp& op, const DspCostModel& cost) {
  auto ceil_div = [](int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; };
  const size_t n = program.commands.size();
  std::vector<int64_t> finish(n, 0);
  int64_t engine_free[2] = {0, 0};  // DMA, compute
  int64_t all_done = 0;             // finish of every command so far
  for (size_t i = 0; i < n; ++i) {
    const DspCommand& c = program.commands[i];
    const int e = c.kind == DspCmdKind::kCompute ? 1 : 0;
    int64_t start = engine_free[e];
    if (c.dep < 0) {
      start = std::max(start, all_done);
    } else if (static_cast<size_t>(c.dep) < i) {
      start = std::max(start, finish[static_cast<size_t>(c.dep)]);
    }
    int64_t work = cost.command_overhead_cycles;
    if (e == 1) {
      const DspCounters w = op.Work(c);
      work += ceil_div(w.macs, cost.macs_per_cycle) + ceil_div(w.elem_ops, cost.elems_per_cycle);
    } else {
      work += ceil_div(static_cast<int64_t>(c.rows) * c.row_bytes, cost.dma_bytes_per_cycle);
    }
    finish[i] = start + work;
    engine_free[e] = finish[i];
    all_done = std::max(all_done, finish[i]);
  }
  return all_done;
}

DspHazardChecker::DspHazardChecker(const DspProgram& program)
    : kind_(program.commands.size()),
      seen_(program.commands.size()),
      writer_(program.scratch_bytes, -1),
      reader_{std::vector<int32_t>(program.scratch_bytes, -1),
              std::vector<int32_t>(program.scratch_bytes, -1)} {
  // seen_[i][e]: the latest command of engine e that has finished whenever command i starts.
  int32_t latest[2] = {-1, -1};
  int32_t previous[2] = {-1, -1};
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const DspCommand& c = program.commands[i];
    const int e = c.kind == DspCmdKind::kCompute ? 1 : 0;
    kind_[i] = static_cast<uint8_t>(e);
    std::array<int32_t, 2> s = {-1, -1};
    auto merge = [&](int32_t j) {
      if (j < 0) return;
      const auto& o = seen_[static_cast<size_t>(j)];
      s[0] = std::max(s[0], o[0]);
      s[1] = std::max(s[1], o[1]);
      s[kind_[static_cast<size_t>(j)]] = std::max(s[kind_[static_cast<size_t>(j)]], j);
    };
    merge(previous[e]);
    if (c.dep < 0) {
      merge(latest[0]);
      merge(latest[1]);
    } else if (static_cast<size_t>(c.dep) < i) {
      merge(c.dep);
    }
    seen_[i] = s;
    previous[e] = static_cast<int32_t>(i);
    latest[e] = static_cast<int32_t>(i);
  }
}

bool DspHazardChecker::Before(int32_t a, size_t i) const {
  return a >= 0 && static_cast<size_t>(a) < i && a <= seen_[i][kind_[static_cast<size_t>(a)]];
}

Status DspHazardChecker::Access(size_t i, uint64_t offset, uint64_t bytes, bool write) {
  const auto me = static_cast<int32_t>(i);
  auto race = [&](int32_t other) {
    return Internal("command " + std::to_string(i) + " " + (write ? "writes" : "reads") +
                    " scratchpad bytes that command " + std::to_string(other) +
                    " may still be using (no dependency orders them)");
  };
  for (uint64_t b = offset; b < offset + bytes && b < writer_.size(); ++b) {
    const int32_t w = writer_[b];
    if (w >= 0 && w != me && !Before(w, i)) return race(w);
    if (write) {
      for (const auto& r : reader_) {
        if (r[b] >= 0 && r[b] != me && !Before(r[b], i)) return race(r[b]);
      }
      writer_[b] = me;
    } else {
      reader_[kind_[i]][b] = me;
    }
  }
  return Status::Ok();
}

size_t DspRunBytes(uint32_t scratch_bytes, bool instrumented) {
  return 64 + 2 * kGuard + scratch_bytes + (instrumented ? scratch_bytes : 0);
}

Status RunDspProgram(const DspProgram& program, const DspOp& op,
                     std::span<const DspOperand> operands, void* memory, bool instrumented,
                     DspCounters* counters, DspAccessReport* report) {
  const uint32_t size = program.scratch_bytes;
  const auto base = reinterpret_cast<uintptr_t>(memory);
  auto* guard_lo = reinterpret_cast<uint8_t*>((base + 63) & ~uintptr_t{63});
  uint8_t* scratch = guard_lo + kGuard;
  uint8_t* guard_hi = scratch + size;
  uint8_t* shadow = guard_hi + kGuard;  // instrumented: 1 = written during this node
  if (instrumented) {
    std::memset(guard_lo, kGuardByte, kGuard);
    std::memset(guard_hi, kGuardByte, kGuard);
    std::memset(scratch, kPoisonByte, size);
    std::memset(shadow, 0, size);
  }
  auto all_written = [&](uint64_t off, uint64_t bytes) {
    return std::find(shadow + off, shadow + off + bytes, 0) == shadow + off + bytes;
  };
  auto guards_intact = [&] {
    for (size_t i = 0; i < kGuard; ++i) {
      if (guard_lo[i] != kGuardByte || guard_hi[i] != kGuardByte) return false;
    }
    return true;
  };
  std::vector<DspRegion> regions;
  std::optional<DspHazardChecker> hazards;
  if (instrumented) hazards.emplace(program);
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const DspCommand& c = program.commands[i];
    if (c.kind == DspCmdKind::kCompute) {
      if (instrumented) {
        regions.clear();
        KILN_RETURN_IF_ERROR(op.Regions(c, &regions));
        for (const DspRegion& r : regions) {
          if (!r.write) KILN_RETURN_IF_ERROR(hazards->Access(i, r.offset, r.bytes, false));
        }
        for (const DspRegion& r : regions) {
          if (r.write) KILN_RETURN_IF_ERROR(hazards->Access(i, r.offset, r.bytes, true));
        }
        for (const DspRegion& r : regions) {
          if (!r.write) {
            ++report->scratch_reads_checked;
            if (!all_written(r.offset, r.bytes)) {
              return Internal(CommandName(i, c) + " reads scratchpad bytes [" +
                              std::to_string(r.offset) + ", +" + std::to_string(r.bytes) +
                              ") that no DMA-in or compute wrote");
            }
          }
        }
      }
      op.Compute(c, scratch);
      if (instrumented) {
        if (!guards_intact()) return Internal(CommandName(i, c) + " wrote outside the scratchpad");
        for (const DspRegion& r : regions) {
          if (r.write) std::memset(shadow + r.offset, 1, r.bytes);
        }
      }
      const DspCounters w = op.Work(c);
      counters->macs += w.macs;
      counters->elem_ops += w.elem_ops;
      ++counters->compute_commands;
      ++counters->commands;
      continue;
    }
    const DspOperand& operand = operands[c.operand];
    const bool in = c.kind == DspCmdKind::kDmaIn;
    for (uint32_t r = 0; r < c.rows; ++r) {
      const uint64_t main_off = c.main_offset + static_cast<uint64_t>(r) * c.main_stride;
      const uint64_t sp_off = c.scratch_offset + static_cast<uint64_t>(r) * c.scratch_stride;
      if (instrumented) {
        ++report->dma_rows_checked;
        if (operand.data == nullptr || main_off + c.row_bytes > operand.bytes ||
            sp_off + c.row_bytes > size) {
          return Internal(CommandName(i, c) + " row " + std::to_string(r) +
                          " is outside its operand or the scratchpad");
        }
        KILN_RETURN_IF_ERROR(hazards->Access(i, sp_off, c.row_bytes, in));
        if (in) {
          std::memset(shadow + sp_off, 1, c.row_bytes);
        } else {
          ++report->scratch_reads_checked;
          if (!all_written(sp_off, c.row_bytes)) {
            return Internal(CommandName(i, c) + " copies out scratchpad bytes nothing wrote");
          }
        }
      }
      if (in) {
        std::memcpy(scratch + sp_off, operand.data + main_off, c.row_bytes);
      } else {
        std::memcpy(operand.data + main_off, scratch + sp_off, c.row_bytes);
      }
    }
    const int64_t bytes = static_cast<int64_t>(c.rows) * c.row_bytes;
    (in ? counters->dma_in_bytes : counters->dma_out_bytes) += bytes;
    ++counters->dma_commands;
    ++counters->commands;
  }
  return Status::Ok();
}

}  // namespace kiln
