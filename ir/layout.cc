// Layout names, padded sizes, and the generic pack/unpack of blocked layouts.
#include "ir/layout.h"

#include <cstring>
#include <limits>

#include "ir/winograd_weights.h"

namespace kiln {
namespace {

constexpr int64_t kBlock = 16;

// [O, rest] dimensions of a kBlock16O tensor; false for a scalar or unknown shape.
bool BlockDims(const Shape& shape, int64_t* o, int64_t* rest) {
  if (shape.empty()) return false;
  *o = shape[0];
  *rest = NumElements(Shape(shape.begin() + 1, shape.end()));
  return *o >= 0 && *rest >= 0 && *rest != kMaxElements;
}

// [O, C] of a kWino43Block16O tensor: f32 [O, C, 3, 3] only.
bool WinoDims(DType dtype, const Shape& shape, int64_t* o, int64_t* c) {
  if (dtype != DType::kF32 || shape.size() != 4 || shape[2] != 3 || shape[3] != 3) return false;
  *o = shape[0];
  *c = shape[1];
  return *o >= 0 && *c >= 0 && NumElements(shape) != kMaxElements;
}

// Bytes of blocks * 16 * rest elements, SIZE_MAX past int64.
size_t BlockedBytes(int64_t o, int64_t rest, size_t elem) {
  const int64_t blocks = (o + kBlock - 1) / kBlock;
  __int128 total = static_cast<__int128>(blocks) * kBlock * rest * static_cast<int64_t>(elem);
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
      for (int64_t e = 0; e < 36; ++e) dst[(((oc / kBlock) * c + ic) * 36 + e) * kBlock + oc % kBlock] = u[e];
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
        const size_t at = static_cast<size_t>((((oc / kBlock) * c + ic) * 36 + e) * kBlock + oc % kBlock);
        std::memcpy(&u[e], packed + at * sizeof(float), sizeof(float));
      }
      WinogradInverse43(u, dst + (oc * c + ic) * 9);
    }
  }
  return out;
}

}  // namespace

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kPlain: return "plain";
    case Layout::kNHWC: return "nhwc";
    case Layout::kNC4HW4: return "nc4hw4";
    case Layout::kPacked: return "packed";
    case Layout::kBlock16O: return "block16o";
    case Layout::kWino43Block16O: return "wino43block16o";
  }
  return "unknown";
}

bool IsValidLayout(int32_t layout) {
  return layout >= 0 && layout <= static_cast<int32_t>(kLastLayout) &&
         layout != static_cast<int32_t>(Layout::kPacked) && layout != 5;  // 5: not assigned
}

size_t LayoutByteSize(Layout layout, DType dtype, const Shape& shape) {
  const int64_t n = NumElements(shape);
  if (n < 0 || n == kMaxElements) return std::numeric_limits<size_t>::max();
  const size_t elem = DTypeSize(dtype);
  if (layout == Layout::kWino43Block16O) {
    int64_t o = 0, c = 0;
    if (!WinoDims(dtype, shape, &o, &c)) return std::numeric_limits<size_t>::max();
    if (c > std::numeric_limits<int64_t>::max() / 36) return std::numeric_limits<size_t>::max();
    return BlockedBytes(o, c * 36, elem);
  }
  if (layout != Layout::kBlock16O) {
    if (elem && static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / elem) {
      return std::numeric_limits<size_t>::max();
    }
    return static_cast<size_t>(n) * elem;
  }
  int64_t o = 0, rest = 0;
  if (!BlockDims(shape, &o, &rest)) return std::numeric_limits<size_t>::max();
  return BlockedBytes(o, rest, elem);
}

Expected<std::vector<uint8_t>> PackLayout(Layout layout, DType dtype, const Shape& shape,
                                          const uint8_t* plain, size_t size) {
  const size_t elem = DTypeSize(dtype);
  if (size != LayoutByteSize(Layout::kPlain, dtype, shape)) {
    return InvalidArgument("pack: " + std::to_string(size) + " bytes do not hold " +
                           std::string(DTypeName(dtype)) + ShapeToString(shape));
  }
  if (layout == Layout::kPlain) return std::vector<uint8_t>(plain, plain + size);
  if (layout == Layout::kWino43Block16O) {
    int64_t o = 0, c = 0;
    if (!WinoDims(dtype, shape, &o, &c) || LayoutByteSize(layout, dtype, shape) == std::numeric_limits<size_t>::max()) {
      return InvalidArgument("pack: wino43block16o needs f32 [O, C, 3, 3], not " +
                             std::string(DTypeName(dtype)) + ShapeToString(shape));
    }
    return PackWino(shape, plain);
  }
  if (layout != Layout::kBlock16O) {
    return Unsupported("pack: layout " + std::string(LayoutName(layout)) + " is not a weight layout");
  }
  int64_t o = 0, rest = 0;
  if (!BlockDims(shape, &o, &rest)) return InvalidArgument("pack: block16o needs rank >= 1");
  std::vector<uint8_t> out(LayoutByteSize(layout, dtype, shape), 0);
  for (int64_t oc = 0; oc < o; ++oc) {
    const int64_t block = oc / kBlock, lane = oc % kBlock;
    for (int64_t r = 0; r < rest; ++r) {
      const size_t dst = static_cast<size_t>(((block * rest + r) * kBlock + lane)) * elem;
      std::memcpy(out.data() + dst, plain + static_cast<size_t>(oc * rest + r) * elem, elem);
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
  if (layout != Layout::kBlock16O) {
    return Unsupported("unpack: layout " + std::string(LayoutName(layout)) +
                       " is not a weight layout");
  }
  int64_t o = 0, rest = 0;
  BlockDims(shape, &o, &rest);
  std::vector<uint8_t> out(static_cast<size_t>(o * rest) * elem);
  for (int64_t oc = 0; oc < o; ++oc) {
    const int64_t block = oc / kBlock, lane = oc % kBlock;
    for (int64_t r = 0; r < rest; ++r) {
      const size_t src = static_cast<size_t>(((block * rest + r) * kBlock + lane)) * elem;
      std::memcpy(out.data() + static_cast<size_t>(oc * rest + r) * elem, packed + src, elem);
    }
  }
  return out;
}

}  // namespace kiln
