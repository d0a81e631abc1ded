// QConvCpu's depthwise driver: the setup its four paths share (centred weights, the choice of
// path), RunDepthwise's dispatch, and the portable path on int16 phase planes, for layers none
// of the others (qconv_depthwise_direct.cc, _lanes.cc, _u8.cc) takes.
#include <algorithm>
#include <utility>

#include "backends/cpu/kernels/qconv.h"
#include "backends/cpu/kernels/qconv_impl.h"

namespace kiln::cpu {

bool QConvDepthwiseApplies(const Conv2dGeometry& g) { return g.is_depthwise(); }

QConvCpu QConvCpu::Depthwise(QConvSpec spec, const void* plain_w, bool w_signed,
                             const Int8Kernels& k, int threads) {
  QConvCpu c;
  c.s_ = std::move(spec);
  c.k_ = &k;
  c.threads_ = std::max(1, threads);
  c.depthwise_ = true;
  const Conv2dGeometry& g = c.s_.g;
  c.taps_ = g.kernel_size();
  c.dw_w_.resize(static_cast<size_t>(g.out_c * c.taps_));
  for (int64_t oc = 0; oc < g.out_c; ++oc) {
    for (int64_t t = 0; t < c.taps_; ++t) {
      const int64_t i = oc * c.taps_ + t;
      const int32_t code = w_signed ? static_cast<const int8_t*>(plain_w)[i]
                                    : static_cast<const uint8_t*>(plain_w)[i];
      c.dw_w_[static_cast<size_t>(i)] = code - c.s_.w_zero[static_cast<size_t>(oc)];
    }
  }
  QDwParams& p = c.dw_;
  p.out_h = g.out_h;
  p.out_w = g.out_w;
  p.kernel_h = g.kernel_h;
  p.kernel_w = g.kernel_w;
  p.stride_h = g.stride_h;
  p.stride_w = g.stride_w;
  p.dilation_h = g.dilation_h;
  p.dilation_w = g.dilation_w;
  const int64_t wp = g.in_w + g.pad_left + g.pad_right;
  c.dw_hp_ = g.in_h + g.pad_top + g.pad_bottom;
  c.dw_phase_w_ =
      std::max((wp + g.stride_w - 1) / g.stride_w,
               (g.out_w + 31) / 32 * 32 + (g.kernel_w - 1) * g.dilation_w / g.stride_w + 1);
  p.row = c.dw_phase_w_;
  p.phase_stride = c.dw_hp_ * c.dw_phase_w_;
  c.dw_plane_bytes_ = AlignUp(p.phase_stride * g.stride_w * 2);
  // The 8-bit paths (dw_direct, dw_u8): dilation 1, stride_w 1 or 2, up to 8 window columns
  // (dw_direct: 4), centred weights that fit s8 (symmetric int8 weights always do).
  const int64_t quads = (g.kernel_w + 3) / 4;
  bool fits = g.dilation_h == 1 && g.dilation_w == 1 && (g.stride_w == 1 || g.stride_w == 2) &&
              quads <= kQDwU8MaxQuads;
  for (int32_t v : c.dw_w_) fits = fits && v >= -128 && v <= 127;
  // dw_direct (QDwDirectParams): stride 1 on planes whose masks (1.5 bytes per output pixel
  // for 3x3) stay within 64 KiB, stride 2 onto more than 16 columns (the row pairs of narrower
  // outputs leave most lanes idle: 14 -> 7 took 25 us against the lanes' 9).
  const bool flat = g.stride_h == 1 && g.stride_w == 1 && g.out_w == g.in_w &&
                    (g.out_plane() + 63) / 64 * g.kernel_h * 4 * 8 <= 64 * 1024;
  c.dw_use_direct_ = fits && k.dw_direct != nullptr && quads == 1 && !c.s_.residual &&
                     c.s_.out_type != QType::kI32 && (flat || (g.stride_w == 2 && g.out_w > 16));
  c.dw_use_u8_ = fits && k.dw_u8 != nullptr;
  if (c.dw_use_u8_ || c.dw_use_direct_) {  // both read the weight quads and sums
    c.dw_quads_.assign(static_cast<size_t>(g.out_c * g.kernel_h * quads), 0);
    c.dw_wsum_.assign(static_cast<size_t>(g.out_c), 0);
    for (int64_t oc = 0; oc < g.out_c; ++oc) {
      for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
        for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
          const int32_t v = c.dw_w_[static_cast<size_t>((oc * g.kernel_h + ky) * g.kernel_w + kx)];
          c.dw_wsum_[static_cast<size_t>(oc)] += v;
          auto& quad = c.dw_quads_[static_cast<size_t>((oc * g.kernel_h + ky) * quads + kx / 4)];
          quad = static_cast<int32_t>(
              static_cast<uint32_t>(quad) |
              (static_cast<uint32_t>(static_cast<uint8_t>(v)) << (8 * (kx % 4))));
        }
      }
    }
  }
  if (c.dw_use_u8_) {
    QDwU8Params& u = c.dw_u8_;
    u.out_h = g.out_h;
    u.out_w = g.out_w;
    u.kernel_h = g.kernel_h;
    u.quads = quads;
    u.stride_h = g.stride_h;
    u.stride_w = g.stride_w;
    u.row = wp;
    PrepareQDwU8(u);
    // The plane and the 64 bytes a last-row load may read past it.
    c.dw_plane_bytes_ = std::max(c.dw_plane_bytes_, AlignUp(c.dw_hp_ * wp + 64));
    const bool epilogue_rows = !c.s_.residual && c.s_.out_type != QType::kI32;
    if (epilogue_rows && g.out_plane() <= 256) c.dw_group_ = kQGemmMr;
  }
  c.MakeRows();
  if (c.dw_use_direct_) {
    c.PrepareDirect();
  } else {
    c.PrepareLanes();
  }
  return c;
}

void QConvCpu::RunDepthwise(const uint8_t* x, const void* residual, void* y, uint8_t* scratch,
                            ThreadPool* pool) const {
  if (dw_use_direct_) {
    RunDepthwiseDirect(x, y, pool);
    return;
  }
  if (dw_use_lanes_) {
    RunDepthwiseLanes(x, y, scratch, pool);
    return;
  }
  if (dw_use_u8_) {
    RunDepthwiseU8(x, residual, y, scratch, pool);
    return;
  }
  const Conv2dGeometry& g = s_.g;
  const int64_t plane_bytes = dw_plane_bytes_;
  const int64_t per = plane_bytes + AlignUp(g.out_plane() * 4);
  const int64_t esize = Elem(s_.out_type);
  const int32_t zx = s_.x_zero;
  const bool x_signed = s_.x_type == QType::kI8;
  const int64_t sw = g.stride_w;
  ForShares(pool, threads_, g.batch * g.out_c, [&](int64_t share, int64_t b, int64_t e) {
    auto* xp = reinterpret_cast<int16_t*>(scratch + share * per);
    auto* acc = reinterpret_cast<int32_t*>(scratch + share * per + plane_bytes);
    std::fill(xp, xp + dw_.phase_stride * sw, int16_t{0});
    for (int64_t p = b; p < e; ++p) {
      const int64_t c = p % g.out_c;
      const uint8_t* xc = x + p * g.in_plane();
      // Centred codes into the padded phase planes (padding stays 0 = real 0), the whole
      // channel in one call where the stride is 1 or 2.
      int16_t* row0 = xp + g.pad_top * dw_.row;
      const int64_t pl = g.pad_left;
      if (sw == 1) {
        k_->centre(xc, g.in_w, g.in_h, g.in_w, x_signed, zx, row0 + pl, nullptr, dw_.row);
      } else if (sw == 2) {
        // Code ix sits at column ix + pad_left: phase (ix + pad_left) % 2, index / 2.
        int16_t* phase0 = row0 + pl / 2;                     // column pl + 2j, pl even
        int16_t* phase1 = row0 + dw_.phase_stride + pl / 2;  // column pl + 1 + 2j, pl even
        if (pl % 2 == 0) {
          k_->centre(xc, g.in_w, g.in_h, g.in_w, x_signed, zx, phase0, phase1, dw_.row);
        } else {
          k_->centre(xc, g.in_w, g.in_h, g.in_w, x_signed, zx, phase1, row0 + (pl + 1) / 2,
                     dw_.row);
        }
      } else {
        for (int64_t iy = 0; iy < g.in_h; ++iy) {
          int16_t* row = row0 + iy * dw_.row;
          const uint8_t* src = xc + iy * g.in_w;
          // Column col = ix + pad_left goes to phase col % sw, index col / sw.
          for (int64_t ix = 0; ix < g.in_w; ++ix) {
            const int64_t col = ix + g.pad_left;
            const int32_t code = x_signed ? static_cast<int8_t>(src[ix]) : src[ix];
            row[(col % sw) * dw_.phase_stride + col / sw] = static_cast<int16_t>(code - zx);
          }
        }
      }
      k_->dw_accumulate(dw_, xp, dw_w_.data() + c * taps_, acc);
      QRowParams rp = RowFor(c, nullptr);
      const int64_t plane0 = p * g.out_plane();
      rp.residual = residual ? static_cast<const uint8_t*>(residual) + plane0 : nullptr;
      k_->requant_row(rp, acc, nullptr, static_cast<uint8_t*>(y) + plane0 * esize, g.out_plane());
    }
  });
}

}  // namespace kiln::cpu
