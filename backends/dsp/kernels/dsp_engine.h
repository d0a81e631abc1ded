// The DSP target's host implementation: a scratchpad and a DMA engine that run one node's
// command stream. DMA commands are the only code that touches main memory; compute commands
// get the scratchpad alone. The instrumented mode checks every access at run time.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/dsp/kernels/dsp_op.h"

namespace kiln {

// One node operand in main memory (inputs first, then outputs; null for omitted ones).
struct DspOperand {
  uint8_t* data = nullptr;
  uint64_t bytes = 0;
};

// Checks `program` before it runs (a program from a model file is trusted no further): its
// scratchpad is within the target's limits; every DMA block lies inside its operand and the
// scratchpad; every compute tile lies inside the op's geometry and its regions inside the
// scratchpad; dependencies point backwards; every output byte is written by some DMA-out.
Status ValidateDspProgram(const DspProgram& program, const DspOp& op,
                          std::span<const uint64_t> operand_bytes, size_t num_inputs);

// What a program does, counted without running it (a validated program: ValidateDspProgram
// bounds what the counts multiply).
DspCounters CountDspProgram(const DspProgram& program, const DspOp& op);

// Estimated cycles of a program on the target's two engines (ir/dsp_program.h): each command
// starts when its engine is free and what it waits for has finished, and lasts the fixed
// command overhead plus its DMA bytes / dma_bytes_per_cycle or its MACs / macs_per_cycle +
// element ops / elems_per_cycle. Equals the serial sum when nothing overlaps. For validated
// programs only, as CountDspProgram.
int64_t DspProgramCycles(const DspProgram& program, const DspOp& op, const DspCostModel& cost);

// The instrumented mode's check of the program's dependencies: commands that may run at the
// same time (different engines, neither waiting for the other through `dep` chains) must not
// touch the same scratchpad byte when one of them writes it.
class DspHazardChecker {
 public:
  explicit DspHazardChecker(const DspProgram& program);
  // Command i reads or writes [offset, offset + bytes); Internal naming the command it races.
  Status Access(size_t i, uint64_t offset, uint64_t bytes, bool write);

 private:
  bool Before(int32_t a, size_t i) const;       // command a has finished whenever command i starts
  std::vector<uint8_t> kind_;                   // 0 DMA, 1 compute
  std::vector<std::array<int32_t, 2>> seen_;    // latest finished command per engine
  std::vector<int32_t> writer_;                 // by scratchpad byte: last writing command
  std::array<std::vector<int32_t>, 2> reader_;  // by engine and byte: last reading command
};

// Scratchpad bytes a run needs from its caller: the scratchpad, 64-byte guard zones around it,
// and in instrumented mode one shadow byte per scratchpad byte ("written since the node
// started").
size_t DspRunBytes(uint32_t scratch_bytes, bool instrumented);

struct DspAccessReport {
  int64_t dma_rows_checked = 0;       // main-memory rows whose range was checked
  int64_t scratch_reads_checked = 0;  // compute / DMA-out reads checked against the shadow
};

// Runs a validated program with `memory` (DspRunBytes bytes, any alignment) as the scratchpad.
// Instrumented: the scratchpad is poisoned first; every DMA row is checked to lie inside its
// operand; every compute read and DMA-out must read bytes a DMA-in or compute wrote during this
// node; the guard zones must be intact after every compute. Any violation is an Internal error.
Status RunDspProgram(const DspProgram& program, const DspOp& op,
                     std::span<const DspOperand> operands, void* memory, bool instrumented,
                     DspCounters* counters, DspAccessReport* report);

}  // namespace kiln
