// The tile and band geometry the depthwise channel-lanes kernels share (fp32: ukernels.h, int8:
// int8_ukernels.h). Portable code in a portable file: the per-ISA files call it, and an inline
// copy compiled with their -m flags could be the one the linker keeps for every caller
// (scripts/check_isa_objects.sh).
#include <algorithm>

#include "backends/cpu/ukernels/int8_ukernels.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {

int64_t DwLanesTileCols(const DwConvParams& p) { return (p.out_w - 1) * p.stride_w + p.kernel_w; }

int64_t DwLanesBandRows(const DwConvParams& p) {
  const int64_t row_bytes = DwLanesTileCols(p) * 64;
  const int64_t fit = (kDwLanesTileBytes / row_bytes - p.kernel_h) / p.stride_h + 1;
  const int64_t max_rows = fit < 1 ? 1 : (fit > p.out_h ? p.out_h : fit);
  const int64_t bands = (p.out_h + max_rows - 1) / max_rows;
  return (p.out_h + bands - 1) / bands;
}

int64_t DwLanesTileRows(const DwConvParams& p) {
  return (DwLanesBandRows(p) - 1) * p.stride_h + p.kernel_h;
}

int64_t DwLanesScratchFloats(const DwConvParams& p) {
  return (DwLanesTileRows(p) * DwLanesTileCols(p) + 16) * 16;
}

int64_t QDwLanesTileRows(const QDwLanesParams& p, int64_t out_rows) {
  return (out_rows - 1) * p.stride_h + (p.kernel_h - 1) * p.dilation_h + 1;
}

QDwLanesBand QDwLanesBandOf(const QDwLanesParams& p, int64_t oy0, int64_t oy1) {
  QDwLanesBand b;
  const int64_t top = oy0 * p.stride_h - p.pad_top;
  b.rows = QDwLanesTileRows(p, oy1 - oy0);
  b.iy0 = std::clamp<int64_t>(top, 0, p.in_h);
  b.iy1 = std::clamp<int64_t>(top + b.rows, b.iy0, p.in_h);
  b.above = std::clamp<int64_t>(b.iy0 - top, 0, b.rows);
  b.below = std::clamp<int64_t>(b.iy1 - top, b.above, b.rows);
  return b;
}

}  // namespace kiln::cpu
