// Layout names, padded sizes, and the generic pack/unpack of blocked layouts.
#include "ir/layout.h"

#include <cstring>
#include <limits>

#include "ir/nchwc_convert.h"
#include "ir/winograd_weights.h"

namespace kiln {
namespace {

constexpr int64_t kBlock = 16;
constexpr int64_t kGemmPad = 64;

// Output channels as stored: padded to the layout's block.
int64_t PaddedO(Layout layout, int64_t o) {
  const int64_t b = layout == Layout::kGemmKO64 ? kGemmPad : kBlock;
  return (o + b - 1) / b * b;
}

// Byte offset of logical element (oc, r) of an [O, rest] weight in kBlock16O or kGemmKO64.
size_t BlockedOffset(Layout layout, int64_t o, int64_t rest, int64_t oc, int64_t r, size_t elem) {
  if (layout == Layout::kGemmKO64) {
    return static_cast<size_t>(r * PaddedO(layout, o) + oc) * elem;
  }
  const int64_t block = oc / kBlock, lane = oc % kBlock;
  return static_cast<size_t>(((block * rest + r) * kBlock + lane)) * elem;
}

// The layouts that store [O, rest] with O padded (kBlock16O, kGemmKO64).
bool IsBlockedLayout(Layout layout) {
  return layout == Layout::kBlock16O || layout == Layout::kGemmKO64;
}

// [O, rest] dimensions of a kBlock16O tensor; false for a scalar or unknown shape.
bool BlockDims(const Shape& shape, int64_t* o, int64_t* rest) {
  if (shape.empty()) return false;
  *o = shape[0];
  *rest = NumElements(Shape(shape.begin() + 1, shape.end()));
  return *o >= 0 && *rest >= 0 && *rest != kMaxElements;
}

// Bytes of a kNCHW8c tensor (C padded to 8); SIZE_MAX unless rank 4 and within int64.
size_t NCHW8cBytes(const Shape& s, size_t elem) {
  if (s.size() != 4 || NumElements(s) < 0 || NumElements(s) == kMaxElements) {
    return std::numeric_limits<size_t>::max();
  }
  const __int128 total =
      static_cast<__int128>(s[0]) * ((s[1] + 7) / 8 * 8) * s[2] * s[3] * static_cast<int64_t>(elem);
  if (total > static_cast<__int128>(std::numeric_limits<int64_t>::max())) {
    return std::numeric_limits<size_t>::max();
  }
  return static_cast<size_t>(total);
}

// Plain [N, C, H, W] <-> kNCHW8c (padding 0); `to_blocked` picks the direction.
std::vector<uint8_t> ConvertToFromNCHW8c(const Shape& s, const uint8_t* src, size_t elem,
                                         bool to_blocked) {
  std::vector<uint8_t> out(
      to_blocked ? NCHW8cBytes(s, elem) : static_cast<size_t>(NumElements(s)) * elem, 0);
  ConvertNCHW8c(src, out.data(), elem, s, to_blocked);
  return out;
}

// [O, C] of a kWino43Block16O tensor: f32 [O, C, 3, 3] only.
bool WinoDims(DType dtype, const Shape& shape, int64_t* o, int64_t* c) {
  if (dtype != DType::kF32 || shape.size() != 4 || shape[2] != 3 || shape[3] != 3) return false;
  *o = shape[0];
  *c = shape[1];
  return *o >= 0 && *c >= 0 && NumElements(shape) != kMaxElements;
}

// Bytes of padded O * rest elements (O padded to 16, or to 64 for kGemmKO64), SIZE_MAX past
// int64.
size_t BlockedBytes(int64_t o, int64_t rest, size_t elem, Layout layout = Layout::kBlock16O) {
  __int128 total = static_cast<__int128>(PaddedO(layout, o)) * rest * static_cast<int64_t>(elem);
  if (total > static_cast<__int128>(std::numeric_limits<int64_t>::max())) {
    return std::numeric_limits<size_t>::max();
  }
  return static_cast<size_t>(total);
}

// Plain f32 [O, C, 3, 3] <-> kWino43Block16O.
std::vector<uint8_t> PackWino(const Shape& shape, const uint8_t* plain) {
  const int64_t o = shape[0], c = shape[1];
  std::vector<uint8_t> out(BlockedBytes(o, c * 36, sizeof(float)), 0);
  float* dst = reinterpret_cast<float*>(out.data());
  for (int64_t oc = 0; oc < o; ++oc) {
    for (int64_t ic = 0; ic < c; ++ic) {
      float g[9], u[36];
      std::memcpy(g, plain + static_cast<size_t>(oc * c + ic) * sizeof(g), sizeof(g));
      WinogradTransform43(g, u);
      for (int64_t e = 0; e < 36; ++e)
        dst[(((oc / kBlock) * c + ic) * 36 + e) * kBlock + oc % kBlock] = u[e];
    }
  }
  return out;
}

std::vector<uint8_t> UnpackWino(const Shape& shape, const uint8_t* packed) {
  const int64_t o = shape[0], c = shape[1];
  std::vector<uint8_t> out(static_cast<size_t>(o * c * 9) * sizeof(float));
  float* dst = reinterpret_cast<float*>(out.data());
  for (int64_t oc = 0; oc < o; ++oc) {
    for (int64_t ic = 0; ic < c; ++ic) {
      float u[36];
      for (int64_t e = 0; e < 36; ++e) {
        const size_t at =
            static_cast<size_t>((((oc / kBlock) * c + ic) * 36 + e) * kBlock + oc % kBlock);
        std::memcpy(&u[e], packed + at * sizeof(float), sizeof(float));
      }
      WinogradInverse43(u, dst + (oc * c + ic) * 9);
    }
  }
  return out;
}

// [O, C, taps] of a kI8O8K4 tensor: 8-bit, rank >= 1 ([O] is C = taps = 1; [O, C] has one
// tap; [O, C, k...] has prod(k) taps).
struct I8Dims {
  int64_t o = 0, c = 1, taps = 1;
};
bool GetI8Dims(DType dtype, const Shape& shape, I8Dims* d) {
  if ((dtype != DType::kI8 && dtype != DType::kU8) || shape.empty()) return false;
  if (NumElements(shape) == kMaxElements || NumElements(shape) < 0) return false;
  d->o = shape[0];
  d->c = shape.size() > 1 ? shape[1] : 1;
  d->taps = shape.size() > 2 ? NumElements(Shape(shape.begin() + 2, shape.end())) : 1;
  return true;
}

// Bytes of a kI8O8K4 tensor: O padded to 8, C to 4; SIZE_MAX past int64.
size_t I8O8K4Bytes(const I8Dims& d) {
  const __int128 total = static_cast<__int128>((d.o + 7) / 8 * 8) * d.taps * ((d.c + 3) / 4 * 4);
  if (total > static_cast<__int128>(std::numeric_limits<int64_t>::max())) {
    return std::numeric_limits<size_t>::max();
  }
  return static_cast<size_t>(total);
}

// Byte offset of logical element (oc, c, t): [O/8][taps][C/4][8][4].
size_t I8O8K4Offset(const I8Dims& d, int64_t oc, int64_t c, int64_t t) {
  const int64_t c4 = (d.c + 3) / 4;
  return static_cast<size_t>((((oc / 8 * d.taps + t) * c4 + c / 4) * 8 + oc % 8) * 4 + c % 4);
}

// Plain 8-bit [O, C, taps] <-> a layout whose element (oc, c, t) lives at offset(d, oc, c, t)
// of `bytes` (u8 codes flipped to signed by XOR 0x80, both ways; padding 0).
using I8Offset = size_t (*)(const I8Dims&, int64_t, int64_t, int64_t);
std::vector<uint8_t> PackEightBit(DType dtype, const I8Dims& d, const uint8_t* plain,
                                  I8Offset offset, size_t bytes) {
  const uint8_t flip = dtype == DType::kU8 ? 0x80 : 0;
  std::vector<uint8_t> out(bytes, 0);
  for (int64_t oc = 0; oc < d.o; ++oc)
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t t = 0; t < d.taps; ++t)
        out[offset(d, oc, c, t)] = plain[(oc * d.c + c) * d.taps + t] ^ flip;
  return out;
}

std::vector<uint8_t> UnpackEightBit(DType dtype, const I8Dims& d, const uint8_t* packed,
                                    I8Offset offset) {
  const uint8_t flip = dtype == DType::kU8 ? 0x80 : 0;
  std::vector<uint8_t> out(static_cast<size_t>(d.o * d.c * d.taps));
  for (int64_t oc = 0; oc < d.o; ++oc)
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t t = 0; t < d.taps; ++t)
        out[static_cast<size_t>((oc * d.c + c) * d.taps + t)] = packed[offset(d, oc, c, t)] ^ flip;
  return out;
}

// Byte offset of logical element (oc, c, t) of a kDspK4 tensor: [O][taps][C/4][4].
size_t DspK4Offset(const I8Dims& d, int64_t oc, int64_t c, int64_t t) {
  const int64_t c4 = (d.c + 3) / 4;
  return static_cast<size_t>(((oc * d.taps + t) * c4 + c / 4) * 4 + c % 4);
}

size_t DspK4Bytes(const I8Dims& d) {
  const __int128 total = static_cast<__int128>(d.o) * d.taps * ((d.c + 3) / 4 * 4);
  if (total > static_cast<__int128>(std::numeric_limits<int64_t>::max())) {
    return std::numeric_limits<size_t>::max();
  }
  return static_cast<size_t>(total);
}

}  // namespace

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kPlain:
      return "plain";
    case Layout::kNHWC:
      return "nhwc";
    case Layout::kNC4HW4:
      return "nc4hw4";
    case Layout::kPacked:
      return "packed";
    case Layout::kBlock16O:
      return "block16o";
    case Layout::kGemmKO64:
      return "gemmko64";
    case Layout::kWino43Block16O:
      return "wino43block16o";
    case Layout::kI8O8K4:
      return "i8o8k4";
    case Layout::kDspK4:
      return "dspk4";
    case Layout::kNCHW8c:
      return "nchw8c";
  }
  return "unknown";
}

bool IsValidLayout(int32_t layout) {
  if (layout == static_cast<int32_t>(Layout::kDspK4) ||
      layout == static_cast<int32_t>(Layout::kNCHW8c)) {
    return true;
  }
  return layout >= 0 && layout <= static_cast<int32_t>(Layout::kI8O8K4) &&
         layout != static_cast<int32_t>(Layout::kPacked);
}

bool LayoutsShareBytes(Layout a, Layout b, const Shape& shape) {
  if (a == b) return true;
  const bool pair = (a == Layout::kPlain && b == Layout::kNCHW8c) ||
                    (a == Layout::kNCHW8c && b == Layout::kPlain);
  return pair && shape.size() == 4 && shape[1] % kNCHWcBlock == 0 && shape[2] == 1 && shape[3] == 1;
}

size_t LayoutByteSize(Layout layout, DType dtype, const Shape& shape) {
  const int64_t n = NumElements(shape);
  if (n < 0 || n == kMaxElements) return std::numeric_limits<size_t>::max();
  const size_t elem = DTypeSize(dtype);
  if (layout == Layout::kNCHW8c) return NCHW8cBytes(shape, elem);
  if (layout == Layout::kWino43Block16O) {
    int64_t o = 0, c = 0;
    if (!WinoDims(dtype, shape, &o, &c)) return std::numeric_limits<size_t>::max();
    if (c > std::numeric_limits<int64_t>::max() / 36) return std::numeric_limits<size_t>::max();
    return BlockedBytes(o, c * 36, elem);
  }
  if (layout == Layout::kI8O8K4 || layout == Layout::kDspK4) {
    I8Dims d;
    if (!GetI8Dims(dtype, shape, &d)) return std::numeric_limits<size_t>::max();
    return layout == Layout::kI8O8K4 ? I8O8K4Bytes(d) : DspK4Bytes(d);
  }
  if (!IsBlockedLayout(layout)) {
    if (elem && static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / elem) {
      return std::numeric_limits<size_t>::max();
    }
    return static_cast<size_t>(n) * elem;
  }
  int64_t o = 0, rest = 0;
  if (!BlockDims(shape, &o, &rest)) return std::numeric_limits<size_t>::max();
  return BlockedBytes(o, rest, elem, layout);
}

Expected<std::vector<uint8_t>> PackLayout(Layout layout, DType dtype, const Shape& shape,
                                          const uint8_t* plain, size_t size) {
  const size_t elem = DTypeSize(dtype);
  if (size != LayoutByteSize(Layout::kPlain, dtype, shape)) {
    return InvalidArgument("pack: " + std::to_string(size) + " bytes do not hold " +
                           std::string(DTypeName(dtype)) + ShapeToString(shape));
  }
  if (layout == Layout::kPlain) return std::vector<uint8_t>(plain, plain + size);
  if (layout == Layout::kNCHW8c) {
    if (NCHW8cBytes(shape, elem) == std::numeric_limits<size_t>::max()) {
      return InvalidArgument("pack: nchw8c needs a rank-4 [N, C, H, W] tensor, not " +
                             ShapeToString(shape));
    }
    return ConvertToFromNCHW8c(shape, plain, elem, true);
  }
  if (layout == Layout::kWino43Block16O) {
    int64_t o = 0, c = 0;
    if (!WinoDims(dtype, shape, &o, &c) ||
        LayoutByteSize(layout, dtype, shape) == std::numeric_limits<size_t>::max()) {
      return InvalidArgument("pack: wino43block16o needs f32 [O, C, 3, 3], not " +
                             std::string(DTypeName(dtype)) + ShapeToString(shape));
    }
    return PackWino(shape, plain);
  }
  if (layout == Layout::kI8O8K4 || layout == Layout::kDspK4) {
    I8Dims d;
    if (!GetI8Dims(dtype, shape, &d) ||
        LayoutByteSize(layout, dtype, shape) == std::numeric_limits<size_t>::max()) {
      return InvalidArgument("pack: " + std::string(LayoutName(layout)) +
                             " needs an 8-bit tensor of rank >= 1, not " +
                             std::string(DTypeName(dtype)) + ShapeToString(shape));
    }
    return layout == Layout::kI8O8K4 ? PackEightBit(dtype, d, plain, I8O8K4Offset, I8O8K4Bytes(d))
                                     : PackEightBit(dtype, d, plain, DspK4Offset, DspK4Bytes(d));
  }
  if (!IsBlockedLayout(layout)) {
    return Unsupported("pack: layout " + std::string(LayoutName(layout)) +
                       " is not a weight layout");
  }
  int64_t o = 0, rest = 0;
  if (!BlockDims(shape, &o, &rest)) {
    return InvalidArgument("pack: " + std::string(LayoutName(layout)) + " needs rank >= 1");
  }
  std::vector<uint8_t> out(LayoutByteSize(layout, dtype, shape), 0);
  for (int64_t oc = 0; oc < o; ++oc) {
    for (int64_t r = 0; r < rest; ++r) {
      std::memcpy(out.data() + BlockedOffset(layout, o, rest, oc, r, elem),
                  plain + static_cast<size_t>(oc * rest + r) * elem, elem);
    }
  }
  return out;
}

Expected<std::vector<uint8_t>> UnpackLayout(Layout layout, DType dtype, const Shape& shape,
                                            const uint8_t* packed, size_t size) {
  const size_t elem = DTypeSize(dtype);
  if (size != LayoutByteSize(layout, dtype, shape)) {
    return InvalidArgument("unpack: " + std::to_string(size) + " bytes do not hold " +
                           std::string(DTypeName(dtype)) + ShapeToString(shape) + " in layout " +
                           std::string(LayoutName(layout)));
  }
  if (layout == Layout::kPlain) return std::vector<uint8_t>(packed, packed + size);
  if (layout == Layout::kWino43Block16O) return UnpackWino(shape, packed);
  if (layout == Layout::kNCHW8c) return ConvertToFromNCHW8c(shape, packed, elem, false);
  if (layout == Layout::kI8O8K4 || layout == Layout::kDspK4) {
    I8Dims d;
    GetI8Dims(dtype, shape, &d);  // LayoutByteSize above accepted the shape
    return UnpackEightBit(dtype, d, packed, layout == Layout::kI8O8K4 ? I8O8K4Offset : DspK4Offset);
  }
  if (!IsBlockedLayout(layout)) {
    return Unsupported("unpack: layout " + std::string(LayoutName(layout)) +
                       " is not a weight layout");
  }
  int64_t o = 0, rest = 0;
  BlockDims(shape, &o, &rest);
  std::vector<uint8_t> out(static_cast<size_t>(o * rest) * elem);
  for (int64_t oc = 0; oc < o; ++oc) {
    for (int64_t r = 0; r < rest; ++r) {
      std::memcpy(out.data() + static_cast<size_t>(oc * rest + r) * elem,
                  packed + BlockedOffset(layout, o, rest, oc, r, elem), elem);
    }
  }
  return out;
}

}  // namespace kiln
