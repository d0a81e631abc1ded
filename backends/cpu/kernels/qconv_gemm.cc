// QConvCpu's GEMM driver, for ordinary and grouped convolutions over kI8O8K4 weights.
//
// GEMM: with activation bytes a (u8 codes, or i8 codes XOR 0x80, zero point za) and signed
// weight bytes b (i8 codes, or u8 codes XOR 0x80, zero point zb per channel), the reference's
// sum over the K = C/group * taps reduction is
//   sum (b - zb)(a - za) = sum b a - za sum b - zb sum a + K za zb,
// padding taps holding a = za (they then add 0, as the reference skips them). sum b and the
// constant terms fold into one per-channel offset at prepare; sum a (per output pixel) is only
// needed when some zb != 0. All of it is int32 arithmetic modulo 2^32, exact because the true
// accumulator fits int32 (the compiler guarantees it; the reference relies on it too).
// The input of each image is first rewritten as padded channel quads [C/4][Hp][Wp][4] (one
// 32-bit column per pixel, the micro-kernel's B operand). Stride-1 convolutions read B in place:
// on the padded grid of width Wp every tap is a constant offset, so a tile of consecutive grid
// positions is consecutive memory (the Wp - OW columns past each row are computed and dropped).
// Other strides gather each tile's columns into a panel first.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/qconv.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "backends/cpu/kernels/qconv_impl.h"

namespace kiln::cpu {

bool QConvGemmApplies(const Conv2dGeometry& g) {
  if (g.is_depthwise()) return false;
  return g.groups == 1 || g.out_c_per_group() % kQGemmMr == 0;
}

QConvCpu QConvCpu::Gemm(QConvSpec spec, const int8_t* packed, const Int8Kernels& k, int threads) {
  QConvCpu c;
  c.s_ = std::move(spec);
  c.k_ = &k;
  c.threads_ = std::max(1, threads);
  c.nr_ = k.gemm_nr;
  const Conv2dGeometry& g = c.s_.g;
  c.cpg_ = g.in_c_per_group();
  c.ocpg_ = g.out_c_per_group();
  c.taps_ = g.kernel_size();
  c.c4_ = (c.cpg_ + kQGemmKGroup - 1) / kQGemmKGroup;
  c.k4_ = c.taps_ * c.c4_;
  c.hp_ = g.in_h + g.pad_top + g.pad_bottom;
  c.wp_ = g.in_w + g.pad_left + g.pad_right;
  // Whole 64-byte lines per quad plane: shares that interleave column ranges
  // (columns_per_share_) then meet at line boundaries.
  c.plane_ = (c.hp_ * c.wp_ + c.nr_ + (g.kernel_w - 1) * g.dilation_w + 16 + 15) / 16 * 16;
  c.direct_ = g.stride_h == 1 && g.stride_w == 1;
  c.gw_ = c.wp_;
  // Stride 2: the phase planes make the taps constant offsets too; the gather of every tile's
  // columns (per column a division and per tap and quad a scalar copy) was most of a 3x3
  // stride-2 stem's time.
  c.phases_ = g.stride_h == 2 && g.stride_w == 2 && g.dilation_h == 1 && g.dilation_w == 1;
  if (c.phases_) {
    c.hph_ = (c.hp_ + 1) / 2;
    c.gw_ = (c.wp_ + 1) / 2;
    c.phase_plane_ = c.hph_ * c.gw_;
    // Past the last phase plane: the reads of a last tile's columns beyond the grid.
    c.plane_ = 4 * c.phase_plane_ + c.nr_ + c.gw_ + g.kernel_w + 16;
    c.direct_ = true;
  }
  c.gemv_ = g.groups == 1 && g.in_h == 1 && g.in_w == 1 && g.out_h == 1 && g.out_w == 1 &&
            c.taps_ == 1 && !c.s_.residual;
  c.grid_ = c.direct_ ? g.out_h * c.gw_ : g.out_plane();
  c.tiles_ = (c.grid_ + c.nr_ - 1) / c.nr_;
  c.panels_per_group_ = (c.ocpg_ + kQGemmMr - 1) / kQGemmMr;
  // Few tiles (small planes): split the output channels too, so every thread has work.
  const int64_t items = g.groups * c.tiles_;
  if (items < 2 * c.threads_) {
    c.oc_chunks_ = std::min<int64_t>(c.panels_per_group_, (2 * c.threads_ + items - 1) / items);
  }
  for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
    for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
      // Phases: tap (ky, kx) of output (oy, ox) reads grid row 2 oy + ky, column 2 ox + kx:
      // phase plane (ky % 2, kx % 2) at row oy + ky / 2, column ox + kx / 2.
      c.tap_offset_.push_back(c.phases_ ? ((ky % 2) * 2 + kx % 2) * c.phase_plane_ +
                                              ky / 2 * c.gw_ + kx / 2
                                        : ky * g.dilation_h * c.wp_ + kx * g.dilation_w);
      c.tap_bytes_.push_back(c.tap_offset_.back() * 4);
    }
  }
  c.x_stored_zero_ = c.s_.x_type == QType::kI8 ? c.s_.x_zero + 128 : c.s_.x_zero;
  if (c.cpg_ % kQGemmKGroup != 0) c.zero_row_.assign(static_cast<size_t>(g.in_h * g.in_w), 0);
  // Per-channel offset: bias - za sum b + K za zb (int64, then wrapped to int32).
  const int64_t kreal = c.cpg_ * c.taps_;
  const int64_t za = c.x_stored_zero_;
  c.offset_.resize(static_cast<size_t>(g.out_c));
  c.w_stored_zero_.resize(static_cast<size_t>(g.out_c));
  for (int64_t oc = 0; oc < g.out_c; ++oc) {
    const int64_t grp = oc / c.ocpg_;
    const int64_t panel = grp * c.panels_per_group_ + (oc % c.ocpg_) / kQGemmMr;
    const int64_t row = (oc % c.ocpg_) % kQGemmMr;
    const int8_t* p = packed + panel * c.k4_ * kQGemmMr * kQGemmKGroup;
    int64_t sum = 0;  // padding bytes are 0
    for (int64_t q = 0; q < c.k4_; ++q) {
      for (int64_t i = 0; i < kQGemmKGroup; ++i) {
        sum += p[(q * kQGemmMr + row) * kQGemmKGroup + i];
      }
    }
    const int64_t zb = c.s_.w_zero[static_cast<size_t>(oc)] - (c.s_.w_unsigned ? 128 : 0);
    c.w_stored_zero_[static_cast<size_t>(oc)] = static_cast<int32_t>(zb);
    c.any_w_zero_ |= zb != 0;
    const int64_t off = c.s_.bias[static_cast<size_t>(oc)] - za * sum + kreal * za * zb;
    c.offset_[static_cast<size_t>(oc)] = static_cast<int32_t>(static_cast<uint32_t>(off));
  }
  // AVX2 (Zen 3) only on planes up to 14x14: there its 14x14 projections ran 1.13-1.17x
  // faster at one thread, but at two the 28x28 to 112x112 layers lost 1.03-1.13x (one static
  // share per thread against whole planes interleaved first, then shares of tiles).
  const int64_t max_pixels = c.k_->columns_per_share_max_pixels;
  c.columns_per_share_ = c.k_->interleave4 != nullptr && c.taps_ == 1 && c.direct_ && !c.phases_ &&
                         !c.gemv_ && !c.any_w_zero_ && g.groups == 1 && c.hp_ == g.in_h &&
                         c.wp_ == g.in_w && (max_pixels == 0 || g.out_plane() <= max_pixels);
  // Planes up to 14x14 split their output channels among the threads, each thread with its
  // own copy of the columns: split by tiles, both threads wrote every output row (rows of
  // 196 bytes or fewer share cache lines across the split), and the depthwise layer after
  // an expansion reads channel blocks per thread. mobilenetv2 int8's 14x14 layers 1.06-1.27x
  // at two threads, squeezenet int8's 13x13 ones 1.04-1.22x; 28x28 planes lost 1.05-1.09x.
  if (c.columns_per_share_ && c.threads_ > 1 && g.out_plane() <= 196) {
    c.oc_chunks_ =
        std::max<int64_t>(c.oc_chunks_, std::min<int64_t>(c.panels_per_group_, c.threads_));
  }
  c.MakeRows();
  return c;
}

QConvCpu::QuadPlanes QConvCpu::QuadOf(const uint8_t* x, int64_t n, int64_t g, int64_t c4) const {
  const Conv2dGeometry& geo = s_.g;
  static const uint8_t kZeros[1] = {0};
  QuadPlanes p;
  for (int q = 0; q < 4; ++q) {
    const int64_t c = c4 * 4 + q;
    p.real[q] = c < cpg_;
    p.rows[q] = p.real[q] ? x + ((n * geo.in_c + g * cpg_ + c) * geo.in_h) * geo.in_w : kZeros;
    if (p.real[q]) {
      p.pad |= static_cast<uint32_t>(x_stored_zero_) << (8 * q);
      if (s_.x_type == QType::kI8) p.flip |= 0x80u << (8 * q);
    }
  }
  return p;
}

void QConvCpu::InterleaveColumns(const uint8_t* x, int64_t n, int64_t c4, uint8_t* x4, int64_t q0,
                                 int64_t q1) const {
  const QuadPlanes p = QuadOf(x, n, 0, c4);
  const uint8_t* z = zero_row_.data();
  auto* dst = reinterpret_cast<uint32_t*>(x4) + c4 * plane_;
  k_->interleave4(p.rows[0] + q0, p.real[1] ? p.rows[1] + q0 : z, p.real[2] ? p.rows[2] + q0 : z,
                  p.real[3] ? p.rows[3] + q0 : z, q1 - q0, 1, q1 - q0, p.flip, dst + q0, q1 - q0);
  if (q1 == grid_) std::fill(dst + grid_, dst + plane_, 0u);
}

void QConvCpu::Interleave(const uint8_t* x, int64_t n, int64_t g, int64_t c4, uint8_t* x4,
                          int64_t yy0, int64_t yy1) const {
  const Conv2dGeometry& geo = s_.g;
  const QuadPlanes quad = QuadOf(x, n, g, c4);
  const uint32_t pad = quad.pad, flip = quad.flip;
  const uint8_t* const* rows = quad.rows;
  const bool* real = quad.real;
  auto* dst = reinterpret_cast<uint32_t*>(x4) + (g * c4_ + c4) * plane_;
  if (k_->interleave4 && !phases_) {
    // The whole plane in one call, the padding around it filled here. A partial last quad (3
    // input channels of a stem) reads a plane of zero bytes for its missing channels (flip
    // keeps them 0).
    // Padded rows [yy0, yy1): input rows [iy0, iy1) between padding rows.
    const int64_t iy0 = std::clamp<int64_t>(yy0 - geo.pad_top, 0, geo.in_h);
    const int64_t iy1 = std::clamp<int64_t>(yy1 - geo.pad_top, iy0, geo.in_h);
    std::fill(dst + yy0 * wp_, dst + std::max(yy0, iy0 + geo.pad_top) * wp_, pad);
    for (int64_t iy = iy0; iy < iy1; ++iy) {
      uint32_t* drow = dst + (geo.pad_top + iy) * wp_;
      std::fill(drow, drow + geo.pad_left, pad);
      std::fill(drow + geo.pad_left + geo.in_w, drow + wp_, pad);
    }
    std::fill(dst + std::min(yy1, iy1 + geo.pad_top) * wp_, dst + yy1 * wp_, pad);
    if (iy1 > iy0) {
      const uint8_t* z = zero_row_.data();
      const int64_t o = iy0 * geo.in_w;
      // Without column padding the rows are contiguous on both sides: one row of all their
      // columns (a 14x14 plane is 4 steps of 64 columns instead of 14 masked ones).
      const bool flat = wp_ == geo.in_w;
      const int64_t n = flat ? (iy1 - iy0) * geo.in_w : geo.in_w, rows_n = flat ? 1 : iy1 - iy0;
      k_->interleave4(rows[0] + o, real[1] ? rows[1] + o : z, real[2] ? rows[2] + o : z,
                      real[3] ? rows[3] + o : z, n, rows_n, geo.in_w, flip,
                      dst + (geo.pad_top + iy0) * wp_ + geo.pad_left, wp_);
    }
    if (yy1 == hp_) std::fill(dst + hp_ * wp_, dst + plane_, 0u);
    return;
  }
  // With phases, each padded row is made in `row` and then split into its two phase rows.
  // (One small allocation per channel quad of a stride-2 layer and run. A per-share row in the
  // scratch, or a 4 KiB stack array, made the zoo mobilenetv2-12-int8 3-5 % slower in
  // alternating rounds with nothing on its path changed: kept as it measured best.)
  std::vector<uint32_t> row(phases_ ? static_cast<size_t>(wp_) : 0);
  for (int64_t yy = yy0; yy < yy1; ++yy) {
    uint32_t* drow = phases_ ? row.data() : dst + yy * wp_;
    const int64_t iy = yy - geo.pad_top;
    if (iy < 0 || iy >= geo.in_h) {
      std::fill(drow, drow + wp_, pad);
      if (phases_) SplitPhaseRow(drow, yy, pad, dst);
      continue;
    }
    std::fill(drow, drow + geo.pad_left, pad);
    uint32_t* d = drow + geo.pad_left;
    const int64_t o = iy * geo.in_w;
    const uint8_t* r0 = rows[0] + (real[0] ? o : 0);
    const uint8_t* r1 = rows[1] + (real[1] ? o : 0);
    const uint8_t* r2 = rows[2] + (real[2] ? o : 0);
    const uint8_t* r3 = rows[3] + (real[3] ? o : 0);
    if (k_->interleave4) {  // phases: row by row (partial quads: see above)
      const uint8_t* z = zero_row_.data();
      k_->interleave4(r0, real[1] ? r1 : z, real[2] ? r2 : z, real[3] ? r3 : z, geo.in_w, 1, 0,
                      flip, d, 0);
    } else if (real[1] && real[2] && real[3]) {
      int64_t ix = 0;
#if defined(__SSE2__)
      // SSE2 is the x86-64 baseline: byte then word unpacks make 16 quads per step.
      const __m128i fl = _mm_set1_epi32(static_cast<int32_t>(flip));
      for (; ix + 16 <= geo.in_w; ix += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + ix));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + ix));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r2 + ix));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r3 + ix));
        const __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
        const __m128i ce0 = _mm_unpacklo_epi8(c, e), ce1 = _mm_unpackhi_epi8(c, e);
        auto* o = reinterpret_cast<__m128i*>(d + ix);
        _mm_storeu_si128(o, _mm_xor_si128(_mm_unpacklo_epi16(ab0, ce0), fl));
        _mm_storeu_si128(o + 1, _mm_xor_si128(_mm_unpackhi_epi16(ab0, ce0), fl));
        _mm_storeu_si128(o + 2, _mm_xor_si128(_mm_unpacklo_epi16(ab1, ce1), fl));
        _mm_storeu_si128(o + 3, _mm_xor_si128(_mm_unpackhi_epi16(ab1, ce1), fl));
      }
#endif
      for (; ix < geo.in_w; ++ix) {
        d[ix] = (static_cast<uint32_t>(r0[ix]) | static_cast<uint32_t>(r1[ix]) << 8 |
                 static_cast<uint32_t>(r2[ix]) << 16 | static_cast<uint32_t>(r3[ix]) << 24) ^
                flip;
      }
    } else {  // the last quad of a channel count that is not a multiple of 4
      const int64_t s1 = real[1], s2 = real[2], s3 = real[3];  // 0: the zero byte, not advanced
      for (int64_t ix = 0; ix < geo.in_w; ++ix) {
        d[ix] =
            (static_cast<uint32_t>(r0[ix]) | static_cast<uint32_t>(r1[ix * s1]) << 8 |
             static_cast<uint32_t>(r2[ix * s2]) << 16 | static_cast<uint32_t>(r3[ix * s3]) << 24) ^
            flip;
      }
    }
    std::fill(d + geo.in_w, drow + wp_, pad);
    if (phases_) SplitPhaseRow(drow, yy, pad, dst);
  }
  if (yy1 < hp_) return;  // the rest comes with the last rows
  if (phases_) {
    // An odd padded height leaves the odd-row phases one row short: the pad code there (only
    // dropped columns read it), then zeros past the last phase plane.
    if (hp_ % 2) {  // the last rows of phase planes 2 and 3
      std::fill(dst + 3 * phase_plane_ - gw_, dst + 3 * phase_plane_, pad);
      std::fill(dst + 4 * phase_plane_ - gw_, dst + 4 * phase_plane_, pad);
    }
    std::fill(dst + 4 * phase_plane_, dst + plane_, 0u);
    return;
  }
  std::fill(dst + hp_ * wp_, dst + plane_, 0u);
}

// Padded row yy into phase planes (yy % 2, 0) and (yy % 2, 1), row yy / 2: even columns to
// the first, odd to the second (an odd width's last odd-column slot gets the pad code).
void QConvCpu::SplitPhaseRow(const uint32_t* row, int64_t yy, uint32_t pad, uint32_t* dst) const {
  uint32_t* even = dst + (yy % 2) * 2 * phase_plane_ + yy / 2 * gw_;
  uint32_t* odd = even + phase_plane_;
  const int64_t pairs = wp_ / 2;
  for (int64_t j = 0; j < pairs; ++j) {
    even[j] = row[2 * j];
    odd[j] = row[2 * j + 1];
  }
  if (wp_ % 2) {
    even[pairs] = row[2 * pairs];
    odd[pairs] = pad;
  }
}

void QConvCpu::GemmItem(int64_t chunk, int64_t tile, int64_t grp, const uint8_t* x4,
                        const int32_t* plane_sum, const int8_t* w, const void* residual, void* y,
                        int64_t n, uint8_t* panel) const {
  const Conv2dGeometry& g = s_.g;
  const int64_t q0 = tile * nr_;
  const int tn = static_cast<int>(std::min<int64_t>(nr_, grid_ - q0));
  const auto* xg = reinterpret_cast<const uint32_t*>(x4) + grp * c4_ * plane_;
  const int32_t* gsum = plane_sum ? plane_sum + grp * plane_ : nullptr;

  // Per-column plane positions (tap 0) and, with weight zero points, the columns' sums.
  int64_t base[64];
  // Column sums: read only with weight zero points (gsum); zeros otherwise (a shared array:
  // zeroing a local one cost 6 % of this function).
  static constexpr int32_t kNoSums[64] = {};
  int32_t sums[64];
  const int32_t* col_sum = gsum ? sums : kNoSums;
  if (gsum || !direct_) {  // read by the column sums and the gather only
    for (int j = 0; j < nr_; ++j) {
      const int64_t q = q0 + std::min(j, tn - 1);
      base[j] = direct_ ? q : (q / g.out_w) * g.stride_h * wp_ + (q % g.out_w) * g.stride_w;
    }
  }
  if (gsum) {
    for (int j = 0; j < tn; ++j) {
      int64_t sum = 0;
      for (int64_t t = 0; t < taps_; ++t)
        sum += gsum[base[j] + tap_offset_[static_cast<size_t>(t)]];
      sums[j] = static_cast<int32_t>(sum);
    }
    std::fill(sums + tn, sums + 64, 0);
  }
  if (!direct_) {  // gather the tile's columns: panel [taps][c4][nr][4]
    auto* pd = reinterpret_cast<uint32_t*>(panel);
    for (int64_t t = 0; t < taps_; ++t) {
      const int64_t off = tap_offset_[static_cast<size_t>(t)];
      for (int64_t c = 0; c < c4_; ++c) {
        const uint32_t* src = xg + c * plane_ + off;
        uint32_t* d = pd + (t * c4_ + c) * nr_;
        for (int j = 0; j < nr_; ++j) d[j] = src[base[j]];
      }
    }
  }
  int64_t p0 = grp * panels_per_group_, p1 = p0 + panels_per_group_;
  if (oc_chunks_ > 1) {
    p1 = p0 + panels_per_group_ * (chunk + 1) / oc_chunks_;
    p0 += panels_per_group_ * chunk / oc_chunks_;
  }
  int32_t d[kQGemmMr * 64];
  const int64_t esize = Elem(s_.out_type);
  // Runs of valid output columns (the whole tile, or each grid row's first out_w columns) as
  // (tile column, output pixel, length), found once for all the item's panels (pointwise
  // layers requantize the whole tile from registers and need none).
  const bool pointwise = s_.out_type != QType::kI32 && direct_ && taps_ == 1 && gw_ == g.out_w;
  int64_t runs[64][3];
  int nruns = 0;
  for (int64_t j = 0; j < tn && !pointwise;) {
    const int64_t q = q0 + j;
    int64_t pix = q, len = tn - j;
    if (direct_) {
      const int64_t oy = q / gw_, ox = q - oy * gw_;
      if (ox >= g.out_w) {
        j += gw_ - ox;
        continue;
      }
      pix = oy * g.out_w + ox;
      len = std::min<int64_t>(g.out_w - ox, tn - j);
    }
    runs[nruns][0] = j;
    runs[nruns][1] = pix;
    runs[nruns][2] = len;
    ++nruns;
    j += len;
  }
  if (pointwise && p1 > p0) {
    // Pointwise: the tile is one run of outputs; requantized straight from the registers, the
    // item's panels in one call.
    const int64_t oc0 = grp * ocpg_ + (p0 - grp * panels_per_group_) * kQGemmMr;
    const int64_t oc_last = grp * ocpg_ + (p1 - 1 - grp * panels_per_group_) * kQGemmMr;
    const int mr = static_cast<int>(std::min<int64_t>(kQGemmMr, (grp + 1) * ocpg_ - oc_last));
    const int64_t plane0 = (n * g.out_c + oc0) * g.out_plane();
    const uint8_t* res = residual ? static_cast<const uint8_t*>(residual) + plane0 + q0 : nullptr;
    k_->gemm_requant(c4_, w + p0 * k4_ * kQGemmMr * kQGemmKGroup, p1 - p0,
                     reinterpret_cast<const uint8_t*>(xg + q0), plane_ * 4, rows_.data() + oc0, mr,
                     tn, col_sum, res, g.out_plane(), static_cast<uint8_t*>(y) + plane0 + q0,
                     g.out_plane());
    return;
  }
  uint8_t res_tile[kQGemmMr * 64];  // the residual's codes of a tile's runs (below)
  if (residual) std::memset(res_tile, 0, sizeof(res_tile));
  for (int64_t pi = p0; pi < p1; ++pi) {
    const int8_t* a = w + pi * k4_ * kQGemmMr * kQGemmKGroup;
    const int64_t oc0 = grp * ocpg_ + (pi - grp * panels_per_group_) * kQGemmMr;
    const int mr = static_cast<int>(std::min<int64_t>(kQGemmMr, (grp + 1) * ocpg_ - oc0));
    const bool rows_at_once = !s_.residual && s_.out_type != QType::kI32;
    const uint8_t* taps_b = reinterpret_cast<const uint8_t*>(xg + q0);
    // The taps' products and the epilogue in one call where the table has it (8-bit output):
    // the sums never leave registers (the int32 tile stored and the rows epilogue's pass over
    // it had cost as much as the products on mobilenetv2's stem).
    const bool fused = direct_ && k_->gemm_taps_requant != nullptr && s_.out_type != QType::kI32;
    if (fused && nruns == 1 && runs[0][2] == tn) {  // the tile is one run: straight out
      const int64_t at = (n * g.out_c + oc0) * g.out_plane() + runs[0][1];
      k_->gemm_taps_requant(c4_, taps_, tap_bytes_.data(), a, taps_b, plane_ * 4,
                            rows_.data() + oc0, mr, tn, col_sum,
                            residual ? static_cast<const uint8_t*>(residual) + at : nullptr,
                            g.out_plane(), static_cast<uint8_t*>(y) + at, g.out_plane());
      continue;
    }
    if (!fused && direct_) {
      k_->gemm_taps(c4_, taps_, tap_bytes_.data(), a, taps_b, plane_ * 4, d, nr_, mr, tn);
    } else if (!fused) {
      k_->gemm(k4_, a, panel, nr_ * 4, d, nr_, mr, tn, false);
    }
    if (s_.out_type != QType::kI32 && nruns > 0 && (nruns > 1 || runs[0][2] < tn)) {
      // Runs broken by the grid's dropped columns (stride-1 3x3 layers, stride-2 phases):
      // the whole tile requantized into bytes at once (whole vectors, each row's constants
      // made once), then each run copied: per run, partial vectors and per-row setup (AVX2,
      // Zen 3: resnet18_rw int8's stem and 56x56 layers 1.05-1.08x against the model's other
      // ops, 28x28 and 14x14 even). A residual's codes for the runs are gathered into a tile of
      // their own first, so each row is one call over the whole tile (a call per row and run
      // had been a third of resnet18_rw int8's residual 3x3 layers).
      uint8_t bytes[kQGemmMr * 64];
      const int64_t plane0 = (n * g.out_c + oc0) * g.out_plane();
      // Row r of run ri: tile bytes at r * 64 + j, plane bytes at plane0 + r * plane + pix.
      const auto each_run_row = [&](auto&& fn) {
        for (int ri = 0; ri < nruns; ++ri) {
          for (int r = 0; r < mr; ++r) {
            fn(r * 64 + runs[ri][0], plane0 + r * g.out_plane() + runs[ri][1], runs[ri][2]);
          }
        }
      };
      if (residual) {
        const auto* res = static_cast<const uint8_t*>(residual);
        each_run_row([&](int64_t t, int64_t o, int64_t len) {
          std::memcpy(res_tile + t, res + o, static_cast<size_t>(len));
        });
      }
      if (fused) {
        k_->gemm_taps_requant(c4_, taps_, tap_bytes_.data(), a, taps_b, plane_ * 4,
                              rows_.data() + oc0, mr, tn, col_sum, residual ? res_tile : nullptr,
                              64, bytes, 64);
      } else if (residual) {
        for (int r = 0; r < mr; ++r) {
          // Columns outside the runs (the grid's dropped ones) read zeros: their outputs are
          // computed but never copied out.
          QRowParams rp = rows_[static_cast<size_t>(oc0 + r)];
          rp.residual = res_tile + r * 64;
          k_->requant_row(rp, d + r * nr_, col_sum, bytes + r * 64, tn);
        }
      } else {
        k_->requant_rows(rows_.data() + oc0, mr, d, nr_, col_sum, bytes, 64, tn);
      }
      each_run_row([&](int64_t t, int64_t o, int64_t len) {
        std::memcpy(static_cast<uint8_t*>(y) + o, bytes + t, static_cast<size_t>(len));
      });
      continue;
    }
    for (int ri = 0; ri < nruns; ++ri) {
      const int64_t j = runs[ri][0], pix = runs[ri][1], len = runs[ri][2];
      const int64_t plane0 = (n * g.out_c + oc0) * g.out_plane();
      if (rows_at_once) {
        k_->requant_rows(rows_.data() + oc0, mr, d + j, nr_, col_sum + j,
                         static_cast<uint8_t*>(y) + plane0 + pix, g.out_plane(), len);
      } else {
        for (int r = 0; r < mr; ++r) {
          const int64_t pr = plane0 + r * g.out_plane() + pix;
          const QRowParams rp =
              RowFor(oc0 + r, residual ? static_cast<const uint8_t*>(residual) + pr : nullptr);
          k_->requant_row(rp, d + r * nr_ + j, col_sum + j, static_cast<uint8_t*>(y) + pr * esize,
                          len);
        }
      }
    }
  }
}

void QConvCpu::RunGemm(const uint8_t* x, const int8_t* w, const void* residual, void* y,
                       uint8_t* scratch, ThreadPool* pool) const {
  const Conv2dGeometry& g = s_.g;
  uint8_t* x4 = scratch;
  int32_t* plane_sum = nullptr;
  uint8_t* panels = scratch + AlignUp(g.groups * c4_ * plane_ * 4);
  if (any_w_zero_) {
    plane_sum = reinterpret_cast<int32_t*>(panels);
    panels += AlignUp(g.groups * plane_ * 4);
  }
  const int64_t panel_bytes = AlignUp(k4_ * nr_ * 4);
  if (gemv_) {  // one pixel per image: matrix-vector products, x read as one quad column
    for (int64_t n = 0; n < g.batch; ++n) {
      uint8_t* xq = scratch;
      const uint8_t flip = s_.x_type == QType::kI8 ? 0x80 : 0;
      const uint8_t* xn = x + n * g.in_c;
      for (int64_t c = 0; c < c4_ * kQGemmKGroup; ++c) xq[c] = c < g.in_c ? xn[c] ^ flip : 0;
      const int64_t panels = panels_per_group_;
      ForShares(pool, threads_, panels, [&](int64_t, int64_t b, int64_t e) {
        int32_t d[kQGemmMr];
        int32_t col_sum[1] = {0};
        if (any_w_zero_) {
          for (int64_t c = 0; c < g.in_c; ++c) col_sum[0] += xq[c];
        }
        for (int64_t pi = b; pi < e; ++pi) {
          k_->gemv(c4_, w + pi * k4_ * kQGemmMr * kQGemmKGroup, xq, d);
          const int64_t oc0 = pi * kQGemmMr;
          const int mr = static_cast<int>(std::min<int64_t>(kQGemmMr, g.out_c - oc0));
          for (int r = 0; r < mr; ++r) {
            const QRowParams rp = RowFor(oc0 + r, nullptr);
            k_->requant_row(rp, d + r, col_sum,
                            static_cast<uint8_t*>(y) + (n * g.out_c + oc0 + r) * Elem(s_.out_type),
                            1);
          }
        }
      });
    }
    return;
  }
  // Pointwise layers whose padded planes are the planes (stride 1, no padding, one group, no
  // weight zero points, a whole tile per item): each share interleaves just its tiles'
  // columns and multiplies them at once, one parallel section instead of two (or a serial
  // interleave) per layer, and the columns still in its cache.
  if (columns_per_share_) {
    // One share per thread: finer shares would interleave a few columns per call. Items are
    // (output-channel chunk, tile) pairs, chunk-major: a 7x7 plane's two tiles (32 and 17
    // columns) with two chunks give each thread a chunk of every tile, not one tile each. Two
    // shares may then need the same columns: each interleaves into its own copy.
    const int64_t items = oc_chunks_ * tiles_;
    const int64_t shares = pool ? std::min<int64_t>(threads_, items) : 1;
    // Output-channel chunks over a large reduction (14x14 and 7x7 projections, 24 KiB of
    // columns and more): each share would interleave all the columns, as much work as at one
    // thread; the shares interleave disjoint channel quads first, then multiply. mobilenetv2-
    // 12-int8 at two threads, per op: 576 -> 96 on 14x14 17.7 -> 16.6 us, 960 -> 160 on 7x7
    // 14.7 -> 13.0; with 64 or 96 input channels the second parallel section cost more than
    // it saved (8.8 -> 9.3).
    if (shares > 1 && oc_chunks_ > 1 && c4_ * plane_ * 4 >= (int64_t{24} << 10)) {
      for (int64_t n = 0; n < g.batch; ++n) {
        RunShares(pool, shares, [&](int64_t sh) {
          for (int64_t c4 = c4_ * sh / shares; c4 < c4_ * (sh + 1) / shares; ++c4) {
            InterleaveColumns(x, n, c4, x4, 0, grid_);
          }
        });
        RunShares(pool, shares, [&](int64_t sh) {
          for (int64_t it = items * sh / shares; it < items * (sh + 1) / shares; ++it) {
            GemmItem(it / tiles_, it % tiles_, 0, x4, nullptr, w, residual, y, n, nullptr);
          }
        });
      }
      return;
    }
    const auto share = [&](int64_t n, int64_t sh) {
      const int64_t b = items * sh / shares, e = items * (sh + 1) / shares;
      uint8_t* xs = oc_chunks_ > 1 ? x4 + sh * AlignUp(c4_ * plane_ * 4) : x4;
      const bool one_chunk = b / tiles_ == (e - 1) / tiles_;
      const int64_t t0 = one_chunk ? b % tiles_ : 0, t1 = one_chunk ? (e - 1) % tiles_ : tiles_ - 1;
      const int64_t q1 = std::min((t1 + 1) * nr_, grid_);
      for (int64_t c4 = 0; c4 < c4_; ++c4) InterleaveColumns(x, n, c4, xs, t0 * nr_, q1);
      for (int64_t it = b; it < e; ++it) {
        GemmItem(it / tiles_, it % tiles_, 0, xs, nullptr, w, residual, y, n, nullptr);
      }
    };
    for (int64_t n = 0; n < g.batch; ++n)
      RunShares(pool, shares, [&](int64_t sh) { share(n, sh); });
    return;
  }
  for (int64_t n = 0; n < g.batch; ++n) {
    // Shared above 64 KiB of input: below, waking a worker for the copy costs more than it
    // saves. (It also required 32M MACs until the pool spun before sleeping; without that,
    // MobileNetV2's projection convs, few MACs but a large input, rewrote it on one thread:
    // int8 mobilenetv2 at 2 threads is 1.19x faster without it, resnet18_rw unchanged.)
    // Fewer channel quads than shares (a stem's one quad of 3 channels) also split the rows.
    const bool share = g.groups * c4_ * plane_ * 4 > (int64_t{64} << 10);
    const int64_t units = g.groups * c4_;
    const int64_t row_blocks =
        share && units < MaxShares(threads_) ? std::min(hp_, MaxShares(threads_) / units) : 1;
    ForShares(share ? pool : nullptr, threads_, units * row_blocks,
              [&](int64_t, int64_t b, int64_t e) {
                if (row_blocks == 1) {  // whole planes, (group, quad) stepped: no divisions
                  int64_t grp = b / c4_, c4 = b % c4_;
                  for (int64_t u = b; u < e; ++u) {
                    Interleave(x, n, grp, c4, x4, 0, hp_);
                    if (++c4 == c4_) {
                      c4 = 0;
                      ++grp;
                    }
                  }
                  return;
                }
                for (int64_t it = b; it < e; ++it) {
                  const int64_t u = it / row_blocks, rb = it % row_blocks;
                  Interleave(x, n, u / c4_, u % c4_, x4, hp_ * rb / row_blocks,
                             hp_ * (rb + 1) / row_blocks);
                }
              });
    if (plane_sum) {  // sum over the real channels of each padded position (pads hold za)
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const auto* xg = x4 + grp * c4_ * plane_ * 4;
        int32_t* ps = plane_sum + grp * plane_;
        for (int64_t pos = 0; pos < plane_; ++pos) {
          int32_t sum = 0;
          for (int64_t c = 0; c < c4_; ++c) {
            const uint8_t* px = xg + (c * plane_ + pos) * 4;
            sum += px[0] + px[1] + px[2] + px[3];  // padded channels hold 0
          }
          ps[pos] = sum;
        }
      }
    }
    const int64_t items = g.groups * tiles_ * oc_chunks_;
    ForShares(pool, threads_, items, [&](int64_t share, int64_t b, int64_t e) {
      uint8_t* panel = direct_ ? nullptr : panels + share * panel_bytes;
      // Item = (grp * tiles_ + tile) * oc_chunks_ + chunk, stepped without divisions.
      int64_t chunk = b % oc_chunks_, tile = b / oc_chunks_ % tiles_, grp = b / oc_chunks_ / tiles_;
      for (int64_t it = b; it < e; ++it) {
        GemmItem(chunk, tile, grp, x4, plane_sum, w, residual, y, n, panel);
        if (++chunk == oc_chunks_) {
          chunk = 0;
          if (++tile == tiles_) {
            tile = 0;
            ++grp;
          }
        }
      }
    });
  }
}

}  // namespace kiln::cpu
