// QConvCpu's channel-lanes depthwise path (Int8Kernels::dw_lanes): 16 channels in the lanes
// per call, over whole planes or bands of output rows, a tile per thread.
#include <algorithm>
#include <cstring>

#include "backends/cpu/kernels/qconv.h"
#include "backends/cpu/kernels/qconv_impl.h"

namespace kiln::cpu {

void PrepareQDwLaneBlock(const int32_t (&offset)[16], const Requant (&requant)[16],
                         QDwLaneBlock& b) {
  b.high = true;
  for (int lane = 0; lane < 16; ++lane) {
    const int32_t s = requant[lane].shift;
    b.offset[lane] = offset[lane];
    b.multiplier[lane] = requant[lane].multiplier;
    const int64_t round = int64_t{1} << (s - 1);
    const int half = lane / 2;
    if (lane % 2 == 0) {
      b.round_even[half] = round;
      b.shift_even[half] = s;
    } else {
      b.round_odd[half] = round;
      b.shift_odd[half] = s;
      b.multiplier_odd[half] = requant[lane].multiplier;
    }
    b.high = b.high && s >= 33;
    b.round32[lane] = s >= 33 ? int32_t{1} << (s - 33) : 0;
    b.shift32[lane] = s >= 33 ? s - 32 : 0;
  }
}

void QConvCpu::PrepareLanes() {
  const Conv2dGeometry& g = s_.g;
  const int64_t wp = g.in_w + g.pad_left + g.pad_right;  // the tile row without column_pairs
  if (k_->dw_lanes == nullptr || s_.residual || s_.out_type == QType::kI32 || taps_ > kQDwMaxTaps ||
      g.out_h <= 0 || g.out_w <= 0) {
    return;
  }
  dw_use_lanes_ = true;
  QDwLanesParams& p = dw_lanes_;
  p.in_h = g.in_h;
  p.in_w = g.in_w;
  p.out_w = g.out_w;
  p.pad_top = g.pad_top;
  p.pad_left = g.pad_left;
  p.wp = wp;
  p.stride_h = g.stride_h;
  p.stride_w = g.stride_w;
  p.kernel_h = g.kernel_h;
  p.dilation_h = g.dilation_h;
  p.taps = taps_;
  for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
    for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
      p.tap_offset[ky * g.kernel_w + kx] = ky * g.dilation_h * wp + kx * g.dilation_w;
    }
  }
  // Column pairs (QDwLanesParams::column_pairs): the tile's left padding rounded up to even,
  // so input pixels 2m and 2m + 1 share a tile pixel; pair taps per window row: the most any
  // parity needs (kernel_w / 2 + 1), the other's last one all zero weights. On the zoo
  // mobilenetv2-12-int8's depthwise layers, against a tile of widened pixels: see the commit.
  int64_t pair_cols = 0;
  if (k_->dw_lanes_column_pairs && g.dilation_w == 1 && g.in_w % 2 == 0 &&
      (g.stride_w == 2 || (g.stride_w == 1 && g.out_w % 2 == 0))) {
    p.column_pairs = true;
    p.pair_shift = g.pad_left % 2;
    p.pad_left = g.pad_left + p.pair_shift;
    pair_cols = g.kernel_w / 2 + 1;
    // Every pair an output reads, and the input with its right padding (zeros either way).
    const int64_t read_pairs = ((g.out_w - 1) * g.stride_w + p.pair_shift) / 2 + pair_cols;
    p.wp = std::max(2 * read_pairs, (p.pad_left + g.in_w + g.pad_right + 1) / 2 * 2);
    p.taps = g.kernel_h * pair_cols;
    for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
      for (int64_t q = 0; q < pair_cols; ++q) {
        p.tap_offset[ky * pair_cols + q] = ky * g.dilation_h * (p.wp / 2) + q;
      }
    }
  }
  p.x_signed = s_.x_type == QType::kI8;
  p.x_zero = s_.x_zero;
  p.out_signed = s_.out_type == QType::kI8;
  p.out_zero = s_.out_zero;
  p.qmin = s_.qmin;
  p.qmax = s_.qmax;
  const int64_t blocks = (g.out_c + 15) / 16;
  // The weights in dw_lanes' form (QDwLanesFn), dw_lane_rows_ rows of 16 int32 per block:
  // one per tap, the centred weight in the low int16; or, with dw_lanes_tap_pairs, one per pair
  // of taps (an odd last tap paired with a zero weight), the pair's weights in the low and high
  // int16 and the lanes in the order of the kernel's two sum registers, channels 0-3, 8-11,
  // 4-7, 12-15 (made here once, not per call).
  const bool pairs = k_->dw_lanes_tap_pairs;
  dw_lane_rows_ = pairs ? (taps_ + 1) / 2 : p.column_pairs ? 2 * p.taps : p.taps;
  dw_lane_w_.assign(static_cast<size_t>(blocks * dw_lane_rows_ * 16), 0);
  dw_lane_blocks_.assign(static_cast<size_t>(blocks), QDwLaneBlock{});
  for (int64_t b = 0; b < blocks; ++b) {
    int32_t offset[16];
    Requant requant[16];
    for (int64_t lane = 0; lane < 16; ++lane) {
      const bool real = b * 16 + lane < g.out_c;
      const int64_t c = real ? b * 16 + lane : g.out_c - 1;  // lanes past out_c: never stored
      const QRowParams& r = rows_[static_cast<size_t>(c)];
      offset[lane] = real ? r.offset : 0;
      requant[lane] = r.requant;
    }
    // Slot -> channel of the block in the pairs' order (vpackssdw's interleave of two halves).
    static constexpr int64_t kPairSlotChannel[16] = {0, 1, 2, 3, 8,  9,  10, 11,
                                                     4, 5, 6, 7, 12, 13, 14, 15};
    for (int64_t slot = 0; slot < 16; ++slot) {
      const int64_t lane = pairs ? kPairSlotChannel[slot] : slot;
      const int64_t c = b * 16 + lane;
      const auto weight = [&](int64_t t) -> uint32_t {  // centred, as an int16's bits
        if (c >= g.out_c || t >= taps_) return 0;
        return static_cast<uint16_t>(dw_w_[static_cast<size_t>(c * taps_ + t)]);
      };
      // With column_pairs, parity e's pair tap (ky, q) holds window columns 2 q - e, 2 q + 1 - e.
      const auto column = [&](int64_t ky, int64_t kx) -> uint32_t {
        return kx >= 0 && kx < g.kernel_w ? weight(ky * g.kernel_w + kx) : 0;
      };
      for (int64_t row = 0; row < dw_lane_rows_; ++row) {
        const int64_t e = p.column_pairs ? row / p.taps : 0, t = row - e * p.taps;
        const int64_t ky = p.column_pairs ? t / pair_cols : 0;
        const int64_t kx = p.column_pairs ? 2 * (t % pair_cols) - e : 0;
        const uint32_t v = p.column_pairs ? column(ky, kx) | column(ky, kx + 1) << 16
                           : pairs        ? weight(2 * row) | weight(2 * row + 1) << 16
                                          : weight(row);
        dw_lane_w_[static_cast<size_t>((b * dw_lane_rows_ + row) * 16 + slot)] =
            static_cast<int32_t>(v);
      }
    }
    PrepareQDwLaneBlock(offset, requant, dw_lane_blocks_[static_cast<size_t>(b)]);
  }
  // Whole planes where the tile fits 256 KiB (a quarter of this machine's L2), else bands of
  // output rows whose tile does. The zoo mobilenetv2-12-int8's depthwise layers against the
  // per-channel path (1 thread): 7x7 3.6-3.9x faster, 14x14 1.8x, 28x28 1.2-1.4x, 56x56 (a
  // 215 KiB tile) 1.15x; 112x112 in bands 1.04-1.14x (as whole planes, 830 KiB, 1.14x slower;
  // in 64 KiB bands no faster: the halo rows are transposed twice).
  constexpr int64_t kBandBytes = 256 << 10;
  int64_t band = g.out_h;
  dw_column_bytes_ = k_->dw_lanes_pixel_bytes / (p.column_pairs ? 2 : 1);
  const int64_t row_bytes = p.wp * dw_column_bytes_;
  if (dw_hp_ * row_bytes > kBandBytes) {
    band = 1;
    while (band < g.out_h && QDwLanesTileRows(p, band + 1) * row_bytes <= kBandBytes) {
      ++band;
    }
  }
  // Items (16-channel blocks x bands) handed to the threads one at a time: an odd count
  // leaves one thread an item more (mobilenetv2's 144-channel layers: 9 blocks, 5 against
  // 4). Where few items do not divide among the threads, more bands until they do.
  if (threads_ > 1) {
    const int64_t blocks_n = g.batch * blocks;
    int64_t bands = (g.out_h + band - 1) / band;
    while ((blocks_n * bands) % threads_ != 0 && blocks_n * bands < 8 * threads_ &&
           bands < g.out_h) {
      ++bands;
    }
    band = (g.out_h + bands - 1) / bands;
  }
  dw_band_rows_ = band;
  // Each band output pixel's first tap (QDwLanesParams::pixel_offset), in tile int32 units.
  const bool split = p.column_pairs && p.stride_w == 1;
  const int64_t tile_w = p.column_pairs ? p.wp / 2 : p.wp;  // tile pixels per row
  const int64_t count = band * g.out_w;
  dw_pixel_offset_.assign(static_cast<size_t>((count + 15) / 16 * 16), 0);
  for (int64_t q = 0; q < count; ++q) {
    const int64_t r = q / g.out_w, ox = q % g.out_w;
    int64_t col = ox * g.stride_w;  // tile pixel in the row
    if (p.column_pairs) col = (ox * g.stride_w + p.pair_shift) / 2;
    const int64_t slot = q - q % 16 + QDwLanesSlot(split, q % 16);
    dw_pixel_offset_[static_cast<size_t>(slot)] =
        static_cast<int32_t>((r * g.stride_h * tile_w + col) * 16);
  }
  dw_tile_bytes_ = AlignUp(QDwLanesTileRows(p, band) * row_bytes);
  dw_otile_bytes_ = AlignUp((band * g.out_w + 15) / 16 * 256);
}

// Runs fn(slot, item) for every item in [0, items): one slot per thread taking part (scratch
// slot `slot` stays in that thread's cache across its items), items claimed one at a time.
template <typename F>
static void ForItemsPerThread(ThreadPool* pool, int threads, int64_t items, const F& fn) {
  const int slots = static_cast<int>(std::min<int64_t>(threads, items));
  ClaimRanges(pool, slots, items, 1, [&](int slot, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) fn(slot, i);
  });
}

// The tile's padding pixels (calls write only the interior).
void QConvCpu::ZeroLanePadding(uint8_t* tile) const {
  const int64_t wp = dw_lanes_.wp, rows = QDwLanesTileRows(dw_lanes_, dw_band_rows_);
  const int64_t left = dw_lanes_.pad_left, right = wp - left - dw_lanes_.in_w;
  const int64_t px = dw_column_bytes_;
  for (int64_t r = 0; r < rows; ++r) {
    std::memset(tile + r * wp * px, 0, static_cast<size_t>(left * px));
    std::memset(tile + (r * wp + left + dw_lanes_.in_w) * px, 0, static_cast<size_t>(right * px));
  }
}

// Items of 16 channels x a band of output rows, a tile per thread.
void QConvCpu::RunDepthwiseLanes(const uint8_t* x, void* y, uint8_t* scratch,
                                 ThreadPool* pool) const {
  const Conv2dGeometry& g = s_.g;
  const int64_t blocks = (g.out_c + 15) / 16;
  const int64_t bands = (g.out_h + dw_band_rows_ - 1) / dw_band_rows_;
  const int64_t items = g.batch * blocks * bands;
  const int64_t per = dw_tile_bytes_ + dw_otile_bytes_;
  const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
  // Per thread, not per share: each thread's tile stays in its cache across its items (with
  // a tile per share, 8 shares of 215 KiB on 56x56 planes, those layers scaled 1.25x at 2
  // threads; per thread 1.16-1.29x faster there).
  for (int64_t slot = 0; slot < std::min<int64_t>(threads_, items); ++slot) {
    ZeroLanePadding(scratch + slot * per);
  }
  // pixel_offset set here, not at prepare: a copy of this object must not point into another's.
  QDwLanesParams params = dw_lanes_;
  params.pixel_offset = dw_pixel_offset_.data();
  ForItemsPerThread(pool, threads_, items, [&](int64_t slot, int64_t item) {
    uint8_t* tile = scratch + slot * per;
    uint8_t* otile = scratch + slot * per + dw_tile_bytes_;
    const int64_t band = item % bands, blk = item / bands % blocks, n = item / bands / blocks;
    const int64_t c0 = blk * 16;
    const int nc = static_cast<int>(std::min<int64_t>(16, g.out_c - c0));
    const int64_t oy0 = band * dw_band_rows_, oy1 = std::min(g.out_h, oy0 + dw_band_rows_);
    k_->dw_lanes(params, x + (n * g.in_c + c0) * in_plane, in_plane, nc,
                 dw_lane_w_.data() + blk * dw_lane_rows_ * 16,
                 dw_lane_blocks_[static_cast<size_t>(blk)],
                 static_cast<uint8_t*>(y) + (n * g.out_c + c0) * out_plane, out_plane, oy0, oy1,
                 tile, otile);
  });
}

}  // namespace kiln::cpu
