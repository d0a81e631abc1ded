// Helpers the DSP ops use to plan a command stream: a bump allocator over the scratchpad and
// emitters for DMA and compute commands.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/dsp/dsp_program.h"

namespace kiln {

// Scratchpad regions are 64-byte aligned (the DMA engine's burst and the vector width).
inline uint64_t DspAlign(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

class DspProgramBuilder {
 public:
  explicit DspProgramBuilder(uint32_t scratch_bytes) { program_.scratch_bytes = scratch_bytes; }
  // A 2-D DMA of `rows` rows of `row_bytes` (main rows `main_stride` apart, packed in the
  // scratchpad), after every earlier command (dep -1). Returns the command's index.
  int32_t DmaIn(uint8_t operand, uint64_t main_offset, uint32_t rows, uint32_t row_bytes,
                uint64_t main_stride, uint32_t scratch_offset);
  // The same, waiting only for command `dep` (and earlier DMA): a prefetch into a buffer that
  // command `dep` was the last to read (double buffering).
  int32_t DmaInAfter(int32_t dep, uint8_t operand, uint64_t main_offset, uint32_t rows,
                     uint32_t row_bytes, uint64_t main_stride, uint32_t scratch_offset);
  int32_t DmaOut(uint8_t operand, uint64_t main_offset, uint32_t rows, uint32_t row_bytes,
                 uint64_t main_stride, uint32_t scratch_offset, int32_t dep);
  // A compute command waiting for `dep` and every DMA command emitted before it (so it never
  // overwrites a buffer a DMA-out still reads); tile and buf are filled by the caller.
  DspCommand& Compute(int32_t dep);
  // A compute command waiting only for `dep` (and earlier computes): double-buffered plans,
  // whose `dep` is the tile's last DMA-in, itself issued after the DMA-out that last read the
  // tile's output buffer.
  DspCommand& ComputeAfter(int32_t dep);
  int32_t last() const { return static_cast<int32_t>(program_.commands.size()) - 1; }
  DspProgram Take() { return std::move(program_); }

 private:
  DspProgram program_;
  int32_t last_dma_ = -1;
};

}  // namespace kiln
