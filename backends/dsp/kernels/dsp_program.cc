// Counters, the serial cost estimate and the program builder of the DSP target.
#include "backends/dsp/kernels/dsp_program.h"

#include <algorithm>

#include "backends/dsp/kernels/dsp_builder.h"

namespace kiln {

void DspCounters::Add(const DspCounters& o) {
  dma_in_bytes += o.dma_in_bytes;
  dma_out_bytes += o.dma_out_bytes;
  macs += o.macs;
  elem_ops += o.elem_ops;
  commands += o.commands;
  dma_commands += o.dma_commands;
  compute_commands += o.compute_commands;
}

namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }
}  // namespace

int64_t DspSerialCycles(const DspCounters& c, const DspCostModel& cost) {
  return c.commands * cost.command_overhead_cycles +
         CeilDiv(c.dma_in_bytes + c.dma_out_bytes, cost.dma_bytes_per_cycle) +
         CeilDiv(c.macs, cost.macs_per_cycle) + CeilDiv(c.elem_ops, cost.elems_per_cycle);
}

const char* DspCmdKindName(DspCmdKind k) {
  switch (k) {
    case DspCmdKind::kDmaIn:
      return "dma-in";
    case DspCmdKind::kDmaOut:
      return "dma-out";
    case DspCmdKind::kCompute:
      return "compute";
  }
  return "?";
}

int32_t DspProgramBuilder::DmaIn(uint8_t operand, uint64_t main_offset, uint32_t rows,
                                 uint32_t row_bytes, uint64_t main_stride,
                                 uint32_t scratch_offset) {
  DspCommand c;
  c.kind = DspCmdKind::kDmaIn;
  c.operand = operand;
  c.main_offset = main_offset;
  c.rows = rows;
  c.row_bytes = row_bytes;
  c.main_stride = main_stride;
  c.scratch_offset = scratch_offset;
  c.scratch_stride = row_bytes;
  program_.commands.push_back(c);
  last_dma_ = last();
  return last();
}

int32_t DspProgramBuilder::DmaInAfter(int32_t dep, uint8_t operand, uint64_t main_offset,
                                      uint32_t rows, uint32_t row_bytes, uint64_t main_stride,
                                      uint32_t scratch_offset) {
  DmaIn(operand, main_offset, rows, row_bytes, main_stride, scratch_offset);
  program_.commands.back().dep = dep;
  return last();
}

int32_t DspProgramBuilder::DmaOut(uint8_t operand, uint64_t main_offset, uint32_t rows,
                                  uint32_t row_bytes, uint64_t main_stride, uint32_t scratch_offset,
                                  int32_t dep) {
  DmaIn(operand, main_offset, rows, row_bytes, main_stride, scratch_offset);
  program_.commands.back().kind = DspCmdKind::kDmaOut;
  program_.commands.back().dep = dep;
  return last();
}

DspCommand& DspProgramBuilder::Compute(int32_t dep) {
  return ComputeAfter(dep < 0 ? -1 : std::max(dep, last_dma_));
}

DspCommand& DspProgramBuilder::ComputeAfter(int32_t dep) {
  DspCommand c;
  c.kind = DspCmdKind::kCompute;
  c.dep = dep;
  program_.commands.push_back(c);
  return program_.commands.back();
}

}  // namespace kiln
