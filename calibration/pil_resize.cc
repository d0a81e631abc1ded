// PIL-compatible BILINEAR resize, following Pillow's libImaging/Resample.c step by step
// (precompute_coeffs, normalize_coeffs_8bpc, ImagingResampleHorizontal/Vertical_8bpc), so that
// images preprocessed here equal those preprocessed with PIL bit for bit.
#include "calibration/pil_resize.h"

#include <cmath>

namespace kiln {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;  // Pillow's PRECISION_BITS

double TriangleFilter(double x) {
  if (x < 0.0) x = -x;
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Per output pixel: first input index, tap count, and `ksize` fixed-point weights.
struct Coeffs {
  int ksize = 0;
  std::vector<int> xmin, count;
  std::vector<int32_t> weights;  // out_size * ksize
};

Coeffs PrecomputeCoeffs(int in_size, int out_size) {
  const double support_base = 1.0;  // bilinear
  double scale = static_cast<double>(in_size) / out_size;
  double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = support_base * filterscale;
  Coeffs c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.xmin.resize(out_size);
  c.count.resize(out_size);
  c.weights.assign(static_cast<size_t>(out_size) * c.ksize, 0);
  std::vector<double> k(c.ksize);
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double ww = 0.0;
    for (int x = 0; x < xmax; ++x) {
      k[x] = TriangleFilter((x + xmin - center + 0.5) * ss);
      ww += k[x];
    }
    for (int x = 0; x < xmax; ++x) {
      const double w = ww != 0.0 ? k[x] / ww : k[x];
      // normalize_coeffs_8bpc: round half away from zero into fixed point.
      c.weights[static_cast<size_t>(xx) * c.ksize + x] =
          w < 0 ? static_cast<int32_t>(-0.5 + w * (1 << kPrecisionBits))
                : static_cast<int32_t>(0.5 + w * (1 << kPrecisionBits));
    }
    c.xmin[xx] = xmin;
    c.count[xx] = xmax;
  }
  return c;
}

uint8_t Clip8(int64_t v) {
  if (v >= (int64_t{1} << kPrecisionBits << 8)) return 255;
  if (v <= 0) return 0;
  return static_cast<uint8_t>(v >> kPrecisionBits);
}

// Resamples rows [row0, row0 + rows) of `in` horizontally.
Image8 ResampleHorizontal(const Image8& in, int row0, int rows, int out_width, const Coeffs& c) {
  Image8 out{out_width, rows, in.channels, {}};
  out.pixels.resize(static_cast<size_t>(out_width) * rows * in.channels);
  const int ch = in.channels;
  for (int y = 0; y < rows; ++y) {
    const uint8_t* src = &in.pixels[static_cast<size_t>(row0 + y) * in.width * ch];
    uint8_t* dst = &out.pixels[static_cast<size_t>(y) * out_width * ch];
    for (int xx = 0; xx < out_width; ++xx) {
      const int32_t* k = &c.weights[static_cast<size_t>(xx) * c.ksize];
      for (int b = 0; b < ch; ++b) {
        int64_t ss = int64_t{1} << (kPrecisionBits - 1);
        for (int x = 0; x < c.count[xx]; ++x) ss += src[(x + c.xmin[xx]) * ch + b] * int64_t{k[x]};
        dst[xx * ch + b] = Clip8(ss);
      }
    }
  }
  return out;
}

// Resamples vertically; `row_offset` is subtracted from the coefficient bounds because the
// horizontal pass only produced the rows the vertical pass reads.
Image8 ResampleVertical(const Image8& in, int out_height, const Coeffs& c, int row_offset) {
  Image8 out{in.width, out_height, in.channels, {}};
  out.pixels.resize(static_cast<size_t>(in.width) * out_height * in.channels);
  const size_t row = static_cast<size_t>(in.width) * in.channels;
  for (int yy = 0; yy < out_height; ++yy) {
    const int32_t* k = &c.weights[static_cast<size_t>(yy) * c.ksize];
    const int ymin = c.xmin[yy] - row_offset;
    uint8_t* dst = &out.pixels[yy * row];
    for (size_t i = 0; i < row; ++i) {
      int64_t ss = int64_t{1} << (kPrecisionBits - 1);
      for (int y = 0; y < c.count[yy]; ++y) ss += in.pixels[(ymin + y) * row + i] * int64_t{k[y]};
      dst[i] = Clip8(ss);
    }
  }
  return out;
}

}  // namespace

Image8 ResizeBilinearPil(const Image8& in, int out_width, int out_height) {
  const bool horizontal = out_width != in.width;
  const bool vertical = out_height != in.height;
  if (!horizontal && !vertical) return in;
  const Coeffs ch = PrecomputeCoeffs(in.width, out_width);
  const Coeffs cv = PrecomputeCoeffs(in.height, out_height);
  if (!horizontal) return ResampleVertical(in, out_height, cv, 0);
  // Only the rows the vertical pass reads go through the horizontal pass (as in Pillow).
  const int first = cv.xmin[0];
  const int last = cv.xmin[out_height - 1] + cv.count[out_height - 1];
  Image8 tmp = vertical ? ResampleHorizontal(in, first, last - first, out_width, ch)
                        : ResampleHorizontal(in, 0, in.height, out_width, ch);
  if (!vertical) return tmp;
  return ResampleVertical(tmp, out_height, cv, first);
}

}  // namespace kiln
