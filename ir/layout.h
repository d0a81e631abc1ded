// Memory layout tags carried by every IR value. Values are stable (written into model files).
// A value keeps its logical shape whatever its layout; the layout says how its bytes are
// arranged, and may pad them (LayoutByteSize).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

enum class Layout : int32_t {
  kPlain = 0,    // row-major in the ONNX dimension order (NCHW for images)
  kNHWC = 1,     // channels last
  kNC4HW4 = 2,   // channels blocked by 4 (MNN / OpenCL image friendly)
  kPacked = 3,   // retired before any file used it: never written, refused when read
  // Weights blocked by 16 along dim 0 (the output channels, O): a logical [O, r...] tensor is
  // stored as [ceil(O/16), r..., 16], O zero-padded to a multiple of 16. One block holds the
  // same weight of 16 consecutive output channels: one AVX-512 vector, two AVX2 vectors.
  kBlock16O = 4,
  // Winograd F(4x4, 3x3) weights of a 3x3 convolution (f32 [O, C, 3, 3] only): each kernel g
  // stored as U = G g G^T (ir/winograd_weights.h, 36 values e = 6 i + j), in 16-output-channel
  // blocks [ceil(O/16), C, 36, 16], O zero-padded. What the CPU Winograd kernels read.
  // 5 is left for the GPU branch's GemmKO64 (not on main yet): refused when read until then.
  kWino43Block16O = 6,
};
inline constexpr Layout kLastLayout = Layout::kWino43Block16O;

std::string_view LayoutName(Layout layout);
// Known and meaningful in a file (kPacked is not).
bool IsValidLayout(int32_t layout);

// Bytes a tensor of this dtype and logical shape occupies in `layout` (padding included);
// SIZE_MAX when the element count overflows or is unknown.
size_t LayoutByteSize(Layout layout, DType dtype, const Shape& shape);

// Rearranges plain row-major bytes into `layout` (zero padding) and back. Element size comes
// from the dtype; the shape is the logical one.
Expected<std::vector<uint8_t>> PackLayout(Layout layout, DType dtype, const Shape& shape,
                                          const uint8_t* plain, size_t size);
Expected<std::vector<uint8_t>> UnpackLayout(Layout layout, DType dtype, const Shape& shape,
                                            const uint8_t* packed, size_t size);

}  // namespace kiln
