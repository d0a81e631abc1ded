// MaxPool and QAveragePool on 8-bit codes. MaxPool (a quantized model's pools move codes, which
// are ordered like the real values): a vertical max of the window's rows, then a horizontal max
// over each output's columns, per plane; 2-D and 1-D, any stride, no dilation, ceil_mode, windows
// that always hold an input element (pads smaller than the window). Other shapes go to the
// reference.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/ops/window_geometry.h"
#include "ir/quant_code.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"
#include "kernels/reference/quantized_util.h"
#include "kernels/requantize.h"

namespace kiln::cpu {
namespace {

struct MaxPoolGeometry : PoolWindow2d {
  int64_t row = 0;  // the padded row's length (even); 2 * row + 8 bytes of scratch per share
};

// dst[i] = max(dst[i], src[i]): restrict-qualified so the compiler vectorises it (byte pointers
// may alias anything otherwise).
template <typename T>
void MaxInto(T* __restrict dst, const T* __restrict src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] < src[i] ? src[i] : dst[i];
}

template <typename T>
void Deinterleave(const T* __restrict v, T* __restrict even, T* __restrict odd, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    even[i] = v[2 * i];
    odd[i] = v[2 * i + 1];
  }
}

// One plane: y = max over each window (every window holds at least one input element).
template <typename T>
void MaxPoolPlane(const MaxPoolGeometry& p, const T* x, T* y, T* v) {
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    const int64_t y0 = std::max<int64_t>(0, oy * p.stride_h - p.pad_top);
    const int64_t y1 = std::min(p.in_h, oy * p.stride_h - p.pad_top + p.kernel_h);
    // v: the window rows' column maxima, the horizontal padding holding the type's lowest
    // value (never the answer: a window always reaches the input).
    T* vi = v + p.pad_left;
    std::memcpy(vi, x + y0 * p.in_w, static_cast<size_t>(p.in_w) * sizeof(T));
    for (int64_t iy = y0 + 1; iy < y1; ++iy) MaxInto(vi, x + iy * p.in_w, p.in_w);
    T* yr = y + oy * p.out_w;
    if (p.stride_w == 1) {
      std::memcpy(yr, v, static_cast<size_t>(p.out_w) * sizeof(T));
      for (int64_t kx = 1; kx < p.kernel_w; ++kx) MaxInto(yr, v + kx, p.out_w);
    } else if (p.stride_w == 2) {
      // Even and odd columns apart, so every tap is a contiguous (vectorisable) run.
      T* even = v + p.row;
      T* odd = even + p.row / 2 + 1;
      Deinterleave(v, even, odd, p.row / 2);
      std::memcpy(yr, even, static_cast<size_t>(p.out_w) * sizeof(T));
      for (int64_t kx = 1; kx < p.kernel_w; ++kx) {
        MaxInto(yr, (kx % 2 ? odd : even) + kx / 2, p.out_w);
      }
    } else {
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const T* w = v + ox * p.stride_w;
        T m = w[0];
        for (int64_t kx = 1; kx < p.kernel_w; ++kx) m = std::max(m, w[kx]);
        yr[ox] = m;
      }
    }
  }
}

// 3x3 stride 1 with pads of 1 (inception's branch pools) on one plane as flat runs: the three
// rows' maximum for the interior rows in one loop (the first and last row apart), then the
// three columns' maximum in one loop over the plane, written to y; the first and last column of
// each row (whose flat neighbours belong to the rows beside) recomputed. Per-row copies and merges
// (MaxPoolPlane) had cost more than the arithmetic on 14x14 and 7x7 planes (googlenet int8's
// 512 x 14x14 pools 145 us against 21 in fp32).
template <typename T>
void MaxPool3x3SamePlane(int64_t h, int64_t w, const T* __restrict x, T* __restrict y,
                         T* __restrict v) {
  const int64_t n = h * w;
  // v: the window rows' maxima.
  if (h == 1) {
    for (int64_t i = 0; i < w; ++i) v[i] = x[i];
  } else {
    for (int64_t i = 0; i < w; ++i) v[i] = std::max(x[i], x[i + w]);
    for (int64_t i = w; i < n - w; ++i) v[i] = std::max(std::max(x[i - w], x[i]), x[i + w]);
    for (int64_t i = n - w; i < n; ++i) v[i] = std::max(x[i - w], x[i]);
  }
  // y: the window columns' maxima of v, flat; then each row's first and last column.
  for (int64_t i = 1; i < n - 1; ++i) y[i] = std::max(std::max(v[i - 1], v[i]), v[i + 1]);
  for (int64_t r = 0; r < h; ++r) {
    const T* vr = v + r * w;
    y[r * w] = w > 1 ? std::max(vr[0], vr[1]) : vr[0];
    if (w > 1) y[r * w + w - 1] = std::max(vr[w - 2], vr[w - 1]);
  }
}

// 3x3 stride 2 (pads 0 or 1, ceil_mode or not): the stride-1 maxima of every centred window
// (MaxPool3x3SamePlane into f), then each output the one at its window's centre, which sees
// exactly the window's rows and columns inside the input; an output whose centre lies past the
// input (a ceil_mode window of one row or column) takes its window's maximum directly. On small
// planes four times the maxima computed flat cost less than MaxPoolPlane's per-row merges
// (googlenet int8's 480 x 14x14 -> 7x7 pool: see the commit).
template <typename T>
void MaxPool3x3Stride2Plane(const PoolWindow2d& p, const T* __restrict x, T* __restrict y,
                            T* __restrict v, T* __restrict f) {
  const int64_t h = p.in_h, w = p.in_w;
  MaxPool3x3SamePlane(h, w, x, f, v);
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    const int64_t cy = 2 * oy - p.pad_top + 1;
    T* yr = y + oy * p.out_w;
    for (int64_t ox = 0; ox < p.out_w; ++ox) {
      const int64_t cx = 2 * ox - p.pad_left + 1;
      if (cy < h && cx < w) {
        yr[ox] = f[cy * w + cx];
        continue;
      }
      const int64_t y0 = std::max<int64_t>(0, cy - 1), y1 = std::min(h, cy + 2);
      const int64_t x0 = std::max<int64_t>(0, cx - 1), x1 = std::min(w, cx + 2);
      T m = x[y0 * w + x0];
      for (int64_t iy = y0; iy < y1; ++iy) {
        for (int64_t ix = x0; ix < x1; ++ix) m = std::max(m, x[iy * w + ix]);
      }
      yr[ox] = m;
    }
  }
}

// 2x2 stride 2 tiling the input exactly (no padding, even sizes): `rows` output rows of all the
// planes at once (their input row pairs are consecutive), each row pair's maximum, then each
// output the maximum of a column pair, in flat loops (mnist int8's 8 x 28x28 pool 2.2 us, most of
// it MaxPoolPlane's per-row set-up).
template <typename T>
void MaxPool2x2Blocks(int64_t w, const T* __restrict x, T* __restrict y, T* __restrict v,
                      int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* a = x + 2 * r * w;
    T* vr = v + r * w;
    for (int64_t i = 0; i < w; ++i) vr[i] = std::max(a[i], a[i + w]);
  }
  for (int64_t j = 0; j < rows * w / 2; ++j) y[j] = std::max(v[2 * j], v[2 * j + 1]);
}

class QMaxPoolCpu : public CpuKernelBase {
 public:
  explicit QMaxPoolCpu(Isa isa) : CpuKernelBase(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    signed_ = ctx.input(0).dtype == DType::kI8;
    KILN_ASSIGN_OR_RETURN(auto window, ResolvePoolWindow2d(ctx));
    if (!window) return UseReference(ctx);
    static_cast<PoolWindow2d&>(p_) = *window;
    // Pads of a whole window or more (or negative) go to the reference.
    for (const auto& [pad, k] : {std::pair{p_.pad_top, p_.kernel_h},
                                 {p_.pad_bottom, p_.kernel_h},
                                 {p_.pad_left, p_.kernel_w},
                                 {p_.pad_right, p_.kernel_w}}) {
      if (pad < 0 || pad >= k) return UseReference(ctx);
    }
    // Every window must reach the input (ceil_mode's last windows may hang past it).
    if ((p_.out_h - 1) * p_.stride_h - p_.pad_top >= p_.in_h ||
        (p_.out_w - 1) * p_.stride_w - p_.pad_left >= p_.in_w) {
      return UseReference(ctx);
    }
    // The padded row: every window's columns [ox * stride_w, + kernel_w) inside it.
    row_ = std::max(p_.pad_left + p_.in_w, (p_.out_w - 1) * p_.stride_w + p_.kernel_w);
    row_ += row_ % 2;
    p_.row = row_;
    const bool k3 = p_.kernel_h == 3 && p_.kernel_w == 3;
    path_ = Path::kRows;
    if (k3 && p_.stride_h == 1 && p_.stride_w == 1 && p_.pad_top == 1 && p_.pad_bottom == 1 &&
        p_.pad_left == 1 && p_.pad_right == 1 && p_.out_h == p_.in_h && p_.out_w == p_.in_w) {
      path_ = Path::kSame3x3;
    } else if (p_.kernel_h == 2 && p_.kernel_w == 2 && p_.stride_h == 2 && p_.stride_w == 2 &&
               p_.pad_top == 0 && p_.pad_left == 0 && p_.in_h == 2 * p_.out_h &&
               p_.in_w == 2 * p_.out_w) {
      path_ = Path::kBlocks2x2;
    } else if (k3 && p_.stride_h == 2 && p_.stride_w == 2 && p_.pad_top <= 1 && p_.pad_left <= 1 &&
               p_.in_w <= 32) {
      // Only on planes up to 32 wide: on googlenet int8's 112 -> 56 pool the four-fold maxima
      // cost more than they saved (90 -> 135 us). (The checks above keep every window inside
      // the input by one tap at least.)
      path_ = Path::kStride2By3x3;
    }
    planes_ = x[0] * x[1];
    pool_ = ctx.thread_pool();
    shares_ = std::max<int64_t>(1, std::min<int64_t>(pool_ ? pool_->num_threads() : 1, planes_));
    return Status::Ok();
  }

 protected:
  // Each share's rows in whole cache lines of their own: packed back to back, two shares wrote
  // the same line on every row (this pool ran slower at two threads than at one).
  int64_t ShareBytes() const {
    const int64_t plane = p_.in_h * p_.in_w;
    const int64_t flat = path_ == Path::kStride2By3x3 ? 2 * plane
                         : path_ == Path::kRows       ? 0
                                                      : plane;
    return (std::max(2 * row_ + 64, flat) + 63) / 64 * 64;
  }
  size_t FastScratchBytes() const override { return static_cast<size_t>(shares_ * ShareBytes()); }

  // Planes [pl0, pl1) of x into y by the path Prepare chose, v the share's scratch.
  template <typename T>
  void Planes(const T* x, T* y, T* v, int64_t pl0, int64_t pl1) const {
    const int64_t in_plane = p_.in_h * p_.in_w, out_plane = p_.out_h * p_.out_w;
    for (int64_t pl = pl0; pl < pl1; ++pl) {
      const T* xp = x + pl * in_plane;
      T* yp = y + pl * out_plane;
      switch (path_) {
        case Path::kBlocks2x2:
          MaxPool2x2Blocks(p_.in_w, xp, yp, v, p_.out_h);
          break;
        case Path::kSame3x3:
          MaxPool3x3SamePlane(p_.in_h, p_.in_w, xp, yp, v);
          break;
        case Path::kStride2By3x3:
          MaxPool3x3Stride2Plane(p_, xp, yp, v, v + in_plane);
          break;
        case Path::kRows:
          MaxPoolPlane(p_, xp, yp, v);
          break;
      }
    }
  }

  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void* scratch) override {
    auto share = [&](int64_t s) {
      auto* v = static_cast<uint8_t*>(scratch) + s * ShareBytes();
      if (path_ == Path::kRows) {  // MaxPoolPlane pads its rows with the lowest code
        std::memset(v, signed_ ? 0x80 : 0x00, static_cast<size_t>(row_));
      }
      const int64_t pl0 = planes_ * s / shares_, pl1 = planes_ * (s + 1) / shares_;
      if (signed_) {
        Planes(static_cast<const int8_t*>(inputs[0].data), static_cast<int8_t*>(outputs[0].data),
               reinterpret_cast<int8_t*>(v), pl0, pl1);
      } else {
        Planes(static_cast<const uint8_t*>(inputs[0].data), static_cast<uint8_t*>(outputs[0].data),
               v, pl0, pl1);
      }
    };
    RunShares(pool_, shares_, share);
    return Status::Ok();
  }

 private:
  MaxPoolGeometry p_;
  bool signed_ = false;
  // MaxPoolPlane, or the flat kernels' windows: MaxPool3x3SamePlane, MaxPool2x2Blocks,
  // MaxPool3x3Stride2Plane.
  enum class Path { kRows, kSame3x3, kBlocks2x2, kStride2By3x3 };
  Path path_ = Path::kRows;
  int64_t row_ = 0, planes_ = 0, shares_ = 1;
  ThreadPool* pool_ = nullptr;
};

// QAveragePool of 8-bit codes to 8-bit codes where every window lies inside the input (no
// padding reached, so every window has all kernel_h x kernel_w taps: densenet's 2x2 stride-2
// transitions): per output row the window rows' column sums of the codes (uint16, in the
// unsigned domain), each output the sum of its window's columns, then its code from a table
// of every possible sum made at prepare from the reference's arithmetic (sum - taps x zero
// point, requantized, clamped). Windows of up to 16 taps; others go to the reference.
class QAveragePoolCpu : public CpuKernelBase {
 public:
  explicit QAveragePoolCpu(Isa isa) : CpuKernelBase(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    const Value& x = ctx.input(0);
    const DType out = ctx.output(0).dtype;
    const QuantClamp clamp = ReadClamp(ctx.attrs(), out);
    KILN_ASSIGN_OR_RETURN(auto window, ResolvePoolWindow2d(ctx));
    if (!window || !Is8BitCode(x.dtype) || !Is8BitCode(out) || !ClampWithinCodes(clamp, out) ||
        !ctx.has_input(1)) {
      return UseReference(ctx);
    }
    p_ = *window;
    const int64_t taps = p_.kernel_h * p_.kernel_w;
    // Every window inside the input: the tap count is always `taps`, whatever
    // count_include_pad says.
    if (taps > 16 || p_.pad_top != 0 || p_.pad_left != 0 ||
        (p_.out_h - 1) * p_.stride_h + p_.kernel_h > p_.in_h ||
        (p_.out_w - 1) * p_.stride_w + p_.kernel_w > p_.in_w) {
      return UseReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Requant> rq, ReadRequant(ctx.input(1), taps));
    flip_ = x.dtype == DType::kI8 ? 0x80 : 0;
    // Sums of codes in the unsigned domain (i8 codes + 128: the zero point moves with them).
    const int32_t zero = ZeroPointOf(x) + (flip_ ? 128 : 0), out_zero = ZeroPointOf(ctx.output(0));
    table_.resize(static_cast<size_t>(255 * taps + 1));
    for (int32_t sum = 0; sum <= 255 * taps; ++sum) {
      table_[static_cast<size_t>(sum)] = static_cast<uint8_t>(
          RequantizeToOutput(sum - static_cast<int32_t>(taps) * zero,
                             rq[static_cast<size_t>(taps - 1)], out_zero, clamp.lo, clamp.hi));
    }
    planes_ = x.shape[0] * x.shape[1];
    pool_ = ctx.thread_pool();
    shares_ = std::max<int64_t>(1, std::min<int64_t>(pool_ ? pool_->num_threads() : 1, planes_));
    return Status::Ok();
  }

 protected:
  // Per share one row of column sums, in cache lines of its own.
  int64_t ShareBytes() const { return (p_.in_w * 2 + 63) / 64 * 64; }
  size_t FastScratchBytes() const override { return static_cast<size_t>(shares_ * ShareBytes()); }

  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void* scratch) override {
    const auto* x = static_cast<const uint8_t*>(inputs[0].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    const int64_t in_plane = p_.in_h * p_.in_w, out_plane = p_.out_h * p_.out_w;
    const uint8_t* table = table_.data();
    auto share = [&](int64_t s) {
      auto* __restrict cols =
          reinterpret_cast<uint16_t*>(static_cast<uint8_t*>(scratch) + s * ShareBytes());
      for (int64_t pl = planes_ * s / shares_; pl < planes_ * (s + 1) / shares_; ++pl) {
        for (int64_t oy = 0; oy < p_.out_h; ++oy) {
          const uint8_t* __restrict row = x + pl * in_plane + oy * p_.stride_h * p_.in_w;
          for (int64_t i = 0; i < p_.in_w; ++i) cols[i] = static_cast<uint8_t>(row[i] ^ flip_);
          for (int64_t ky = 1; ky < p_.kernel_h; ++ky) {
            const uint8_t* __restrict r = row + ky * p_.in_w;
            for (int64_t i = 0; i < p_.in_w; ++i) cols[i] += static_cast<uint8_t>(r[i] ^ flip_);
          }
          uint8_t* yr = y + pl * out_plane + oy * p_.out_w;
          for (int64_t ox = 0; ox < p_.out_w; ++ox) {
            const uint16_t* c = cols + ox * p_.stride_w;
            uint32_t sum = 0;
            for (int64_t kx = 0; kx < p_.kernel_w; ++kx) sum += c[kx];
            yr[ox] = table[sum];
          }
        }
      }
    };
    RunShares(pool_, shares_, share);
    return Status::Ok();
  }

 private:
  PoolWindow2d p_;
  uint8_t flip_ = 0;
  std::vector<uint8_t> table_;  // the output code of every window sum
  int64_t planes_ = 0, shares_ = 1;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterQPoolInt8(KernelRegistry& r) {
  RegisterCpuInt8Codes<QMaxPoolCpu>(r, OpType::kMaxPool);
  RegisterCpuInt8Codes<QAveragePoolCpu>(r, OpType::kQAveragePool);
}

}  // namespace kiln::cpu
