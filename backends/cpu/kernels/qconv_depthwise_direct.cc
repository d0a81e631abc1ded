// QConvCpu's direct depthwise path (Int8Kernels::dw_direct): the codes read in place under
// per-layer masks, several channels per call.
#include <algorithm>

#include "backends/cpu/kernels/qconv.h"

namespace kiln::cpu {

void QConvCpu::PrepareDirect() {
  const Conv2dGeometry& g = s_.g;
  QDwDirectParams& p = dw_direct_;
  p.in_h = g.in_h;
  p.in_w = g.in_w;
  p.out_h = g.out_h;
  p.out_w = g.out_w;
  p.kernel_h = g.kernel_h;
  p.stride_h = g.stride_h;
  p.stride_w = g.stride_w;
  p.pad_top = g.pad_top;
  p.pad_left = g.pad_left;
  p.x_signed = s_.x_type == QType::kI8;
  p.zero_code = s_.x_zero + (p.x_signed ? 128 : 0);
  p.out_signed = s_.out_type == QType::kI8;
  p.out_zero = s_.out_zero;
  p.qmin = s_.qmin;
  p.qmax = s_.qmax;
  dw_direct_masks_.assign(static_cast<size_t>(QDwDirectMaskCount(p)), 0);
  QDwDirectMasks(p, g.kernel_w, dw_direct_masks_.data());
  dw_direct_start_.resize(static_cast<size_t>(g.out_c));
  for (int64_t oc = 0; oc < g.out_c; ++oc) {
    const auto i = static_cast<size_t>(oc);
    // Wrapping int32, as the reference's sum (int8_ukernels.h).
    dw_direct_start_[i] = static_cast<int32_t>(static_cast<uint32_t>(rows_[i].offset) -
                                               static_cast<uint32_t>(p.zero_code) *
                                                   static_cast<uint32_t>(dw_wsum_[i]));
  }
}

// Channels claimed a few at a time (their costs are equal; claims even out the two vCPUs'
// speeds, ClaimRanges), each call within one image.
void QConvCpu::RunDepthwiseDirect(const uint8_t* x, void* y, ThreadPool* pool) const {
  const Conv2dGeometry& g = s_.g;
  const int64_t items = g.batch * g.out_c, in_plane = g.in_plane(), out_plane = g.out_plane();
  QDwDirectParams params = dw_direct_;
  params.masks = dw_direct_masks_.data();
  const int slots = static_cast<int>(std::min<int64_t>(threads_, items));
  const int64_t chunk = std::max<int64_t>(1, items / (8 * slots));
  ClaimRanges(pool, slots, items, chunk, [&](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e;) {
      const int64_t c = i % g.out_c, nc = std::min(e - i, g.out_c - c);
      k_->dw_direct(params, x + i * in_plane, in_plane, static_cast<int>(nc),
                    dw_quads_.data() + c * g.kernel_h, dw_direct_start_.data() + c,
                    rows_.data() + c, static_cast<uint8_t*>(y) + i * out_plane, out_plane);
      i += nc;
    }
  });
}

}  // namespace kiln::cpu
