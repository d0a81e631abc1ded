// Helpers the DSP ops use to plan a command stream: a bump allocator over the scratchpad and
// emitters for DMA and compute commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/dsp/kernels/dsp_program.h"

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

  // The tile loop of a streamed plan, single- or double-buffered. Tile t uses buffer set
  // t % sets (sets = 2 when double-buffered: tile t + 1 is loaded while tile t computes).
  //   load(t, set, after): DMA-ins of tile t's streamed inputs, each via DmaInAfter(after, ...)
  //     (after = the compute that last read that set, or -1: every earlier command); returns
  //     the last of them (-1: none);
  //   compute(t, set, dep): tile t's compute commands via ComputeAfter, the first after `dep`;
  //     returns the last;
  //   store(t, set, done): tile t's DMA-outs after `done`.
  // Why this ordering is safe: a prefetch into set p waits for the compute that last read it,
  // and is queued on the in-order DMA engine after the DMA-out that last read set p's output,
  // so a compute waiting for its tile's loads never overwrites an output still being copied.
  template <typename Load, typename ComputeTile, typename Store>
  void EmitTiles(int64_t tiles, bool double_buffer, Load load, ComputeTile compute, Store store) {
    const int64_t sets = double_buffer ? 2 : 1;
    std::vector<int32_t> loaded(static_cast<size_t>(tiles), -1), done(loaded);
    if (double_buffer && tiles > 0) loaded[0] = load(int64_t{0}, 0, -1);
    for (int64_t t = 0; t < tiles; ++t) {
      const auto i = static_cast<size_t>(t);
      const int set = static_cast<int>(t % sets);
      if (!double_buffer) {
        loaded[i] = load(t, set, -1);
      } else if (t + 1 < tiles) {
        loaded[i + 1] = load(t + 1, static_cast<int>((t + 1) % sets), t >= 1 ? done[i - 1] : -1);
      }
      done[i] = compute(t, set, loaded[i]);
      store(t, set, done[i]);
    }
  }

 private:
  DspProgram program_;
  int32_t last_dma_ = -1;
};

}  // namespace kiln
