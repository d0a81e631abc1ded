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
  kPlain = 0,   // row-major in the ONNX dimension order (NCHW for images)
  kNHWC = 1,    // channels last
  kNC4HW4 = 2,  // channels blocked by 4 (MNN / OpenCL image friendly)
  kPacked = 3,  // retired before any file used it: never written, refused when read
  // Weights blocked by 16 along dim 0 (the output channels, O): a logical [O, r...] tensor is
  // stored as [ceil(O/16), r..., 16], O zero-padded to a multiple of 16. One block holds the
  // same weight of 16 consecutive output channels: one AVX-512 vector, two AVX2 vectors.
  kBlock16O = 4,
  // GPU convolution weights: a logical [O, r...] tensor stored as [prod(r), ceil(O/64)*64],
  // reduction index major with the output channels contiguous and zero-padded to 64, so a
  // work-group's tile of 16..64 output channels at one reduction step is one coalesced row.
  // (Format 1.3; the value 5 was kept free for it when 6 was assigned.)
  kGemmKO64 = 5,
  // Winograd F(4x4, 3x3) weights of a 3x3 convolution (f32 [O, C, 3, 3] only): each kernel g
  // stored as U = G g G^T (ir/winograd_weights.h, 36 values e = 6 i + j), in 16-output-channel
  // blocks [ceil(O/16), C, 36, 16], O zero-padded. What the CPU Winograd kernels read.
  kWino43Block16O = 6,
  // int8 GEMM weights (u8/i8 [O, C, k...], C = input channels per group, taps = prod(k); [O,
  // C] has one tap): stored as [ceil(O/8)][taps][ceil(C/4)][8][4] signed bytes, O and C
  // zero-padded. One 32-byte group holds 4 consecutive input channels of one tap for 8 output
  // channels: per channel, one vpdpbusd broadcast operand. u8 codes are stored XOR 0x80
  // (code - 128, so every stored byte is signed; the kernel shifts the zero point by 128 too).
  // Format 1.4; 7-15 are the CPU int8 layouts.
  kI8O8K4 = 7,
  // Values 8-15 are kept for CPU int8 layouts.
  // DSP convolution weights (8-bit [O, C, k...], taps = prod(k)): [O][taps][ceil(C/4)][4]
  // signed bytes, C zero-padded, u8 codes stored XOR 0x80. One output channel's weights are
  // contiguous (a channel tile is one DMA) and one tap's 4 consecutive input channels are one
  // int32: the DSP's vpdpbusd operand (docs/dsp-target.md). Format 1.5; 16-31 are the DSP's.
  kDspK4 = 16,
  // CPU activations with channels blocked by 8 (NCHWc, as oneDNN's nChw8c and ONNX Runtime's
  // NCHWc transformer): a logical [N, C, H, W] tensor stored as [N][ceil(C/8)][H][W][8], C
  // zero-padded. A pixel's 8 channels are one AVX2 vector, so a depthwise tap is one FMA and a
  // 1x1 layer reads ceil(C/8) contiguous streams instead of C planes (docs/cpu-kernels.md).
  // Format 1.7; 32-47 are CPU activation layouts.
  kNCHW8c = 32,
};
inline constexpr Layout kLastLayout = Layout::kNCHW8c;
// Channels per block of kNCHW8c.
inline constexpr int64_t kNCHWcBlock = 8;

std::string_view LayoutName(Layout layout);
// Known and meaningful in a file (kPacked is not).
bool IsValidLayout(int32_t layout);

// Bytes a tensor of this dtype and logical shape occupies in `layout` (padding included);
// SIZE_MAX when the element count overflows or is unknown.
size_t LayoutByteSize(Layout layout, DType dtype, const Shape& shape);

// Whether a tensor of this logical shape has the same bytes in layouts a and b: equal layouts,
// or plain and kNCHW8c for [N, C, 1, 1] with C a multiple of 8 (a per-channel vector such as
// a squeeze-excite scale, which a blocked kernel may then read as it is).
bool LayoutsShareBytes(Layout a, Layout b, const Shape& shape);

// Rearranges plain row-major bytes into `layout` (zero padding) and back. Element size comes
// from the dtype; the shape is the logical one.
Expected<std::vector<uint8_t>> PackLayout(Layout layout, DType dtype, const Shape& shape,
                                          const uint8_t* plain, size_t size);
Expected<std::vector<uint8_t>> UnpackLayout(Layout layout, DType dtype, const Shape& shape,
                                            const uint8_t* packed, size_t size);

}  // namespace kiln
