// QConvCpu's 8-bit depthwise path (Int8Kernels::dw_u8): each channel's codes in a plane padded
// with the zero code, multiplied per window row by weight quads.
#include <algorithm>
#include <cstring>

#include "backends/cpu/kernels/qconv.h"
#include "backends/cpu/kernels/qconv_impl.h"

namespace kiln::cpu {

void PrepareQDwU8(QDwU8Params& p) {
  // Lane j reads bytes up to r * stride_h * row + ox * stride_w + 4 * quads - 1, which must
  // stay inside the 64-byte load (vpermb indexes 6 bits).
  int64_t rpv = 1;
  if (p.out_w > 0 && p.out_w <= 8) {
    rpv = std::min<int64_t>(16 / p.out_w, std::max<int64_t>(1, p.out_h));
    while (rpv > 1 &&
           (rpv - 1) * p.stride_h * p.row + (p.out_w - 1) * p.stride_w + 4 * p.quads > 64) {
      --rpv;
    }
  }
  p.rows_per_vector = rpv;
  for (int64_t q = 0; q < kQDwU8MaxQuads; ++q) {
    for (int64_t j = 0; j < 16; ++j) {
      const int64_t r = rpv > 1 ? std::min(j / p.out_w, rpv - 1) : 0;
      const int64_t ox = rpv > 1 ? j % p.out_w : j;
      for (int64_t k = 0; k < 4; ++k) {
        p.index[q][4 * j + k] =
            static_cast<uint8_t>((r * p.stride_h * p.row + ox * p.stride_w + 4 * q + k) & 63);
      }
    }
  }
}

// Each channel's codes copied into a plane padded with the zero code (i8 codes flipped into
// the unsigned domain), then dw_u8 and the row epilogue.
void QConvCpu::RunDepthwiseU8(const uint8_t* x, const void* residual, void* y, uint8_t* scratch,
                              ThreadPool* pool) const {
  const Conv2dGeometry& g = s_.g;
  const int64_t out_plane = g.out_plane();
  const int64_t per = dw_plane_bytes_ + AlignUp(dw_group_ * out_plane * 4);
  const int64_t esize = Elem(s_.out_type);
  const bool x_signed = s_.x_type == QType::kI8;
  const uint8_t flip = x_signed ? 0x80 : 0;
  const int32_t zero_u = s_.x_zero + (x_signed ? 128 : 0);
  const int64_t row = dw_u8_.row, kq = g.kernel_h * dw_u8_.quads;
  ForShares(pool, threads_, g.batch * g.out_c, [&](int64_t share, int64_t b, int64_t e) {
    uint8_t* plane = scratch + share * per;
    auto* acc = reinterpret_cast<int32_t*>(scratch + share * per + dw_plane_bytes_);
    // The padding (and the slack past the last row) keeps the zero code for every channel.
    std::fill(plane, plane + dw_hp_ * row + 64, static_cast<uint8_t>(zero_u));
    for (int64_t p = b; p < e;) {
      // Up to dw_group_ channels of one image, their accumulators one plane apart.
      const int64_t c0 = p % g.out_c;
      const int64_t count = std::min({dw_group_, e - p, g.out_c - c0});
      for (int64_t r = 0; r < count; ++r) {
        const int64_t c = c0 + r;
        const uint8_t* xc = x + (p + r) * g.in_plane();
        for (int64_t iy = 0; iy < g.in_h; ++iy) {
          uint8_t* dst = plane + (iy + g.pad_top) * row + g.pad_left;
          const uint8_t* src = xc + iy * g.in_w;
          if (flip) {
            for (int64_t ix = 0; ix < g.in_w; ++ix) dst[ix] = src[ix] ^ flip;
          } else {
            std::memcpy(dst, src, static_cast<size_t>(g.in_w));
          }
        }
        k_->dw_u8(dw_u8_, plane, dw_quads_.data() + c * kq,
                  zero_u * dw_wsum_[static_cast<size_t>(c)], acc + r * out_plane);
      }
      auto* out = static_cast<uint8_t*>(y) + p * out_plane * esize;
      if (dw_group_ > 1) {  // no residual, 8-bit output (see Depthwise)
        k_->requant_rows(rows_.data() + c0, static_cast<int>(count), acc, out_plane, nullptr, out,
                         out_plane, out_plane);
      } else {
        QRowParams rp = RowFor(c0, nullptr);
        rp.residual = residual ? static_cast<const uint8_t*>(residual) + p * out_plane : nullptr;
        k_->requant_row(rp, acc, nullptr, out, out_plane);
      }
      p += count;
    }
  });
}

}  // namespace kiln::cpu
