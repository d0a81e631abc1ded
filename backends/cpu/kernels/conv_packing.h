// Offline weight packing for the CPU convolutions: plain OIHW f32 weights + geometry ->
// packed floats in a named layout, and back (for tests and for the reference oracle).
//
// Layout meanings are ISA-independent: every layout here is consumed by the portable kernels
// and by each SIMD kernel, so a model packed on (or for) an AVX-512 machine runs anywhere.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/status.h"
#include "backends/cpu/kernels/conv_geometry.h"

namespace kiln::cpu {

// "conv_gemm_a8": the GEMM A operand of im2col / 1x1 convolution, per group. Output channels
// of a group are cut into panels of kGemmMr (= 8) rows; each panel stores, for k = 0..K-1
// (K = C/group * kH * kW, k = (c * kH + y) * kW + x, the im2col row order), the 8 weights
// W[oc0 + r][c][y][x], r = 0..7, zero past the group's last channel:
//   packed[((g * panels + p) * K + k) * 8 + r].
inline constexpr std::string_view kLayoutConvGemmA8 = "conv_gemm_a8";
// "conv_wino43_a8": Winograd F(4x4, 3x3) weights of a 3x3, group-1 convolution. Each 3x3
// kernel g becomes U = G g G^T (6x6, G as in Lavin & Gray, computed in double); the 36 matrices
// U_e (out_c x in_c) are stored one after another, each cut into panels of 8 output channels,
// k = input channel: packed[((e * panels + p) * C + c) * 8 + r] = U_e[p * 8 + r][c], zero past
// the last channel. Unpacking inverts G on the 3x3 corner points (exact up to rounding).
inline constexpr std::string_view kLayoutConvWino43A8 = "conv_wino43_a8";
// "oihw": the plain ONNX weights, used as they are (depthwise kernels read them directly).
inline constexpr std::string_view kLayoutOihw = "oihw";

int64_t ConvGemmPanels(const Conv2dGeometry& g);  // panels per group
size_t ConvGemmPackedFloats(const Conv2dGeometry& g);
void PackConvGemm(const Conv2dGeometry& g, const float* oihw, float* packed);
void UnpackConvGemm(const Conv2dGeometry& g, const float* packed, float* oihw);

size_t ConvWino43PackedFloats(const Conv2dGeometry& g);
// The same U in 16-channel blocks, [ceil(O/16)][C][36][16] (zero past O): the layout proposed
// for the compiler (docs/cpu-kernels.md); ConvWinograd reads it with block16 = true.
size_t ConvWino43Block16Floats(const Conv2dGeometry& g);
void PackConvWino43Block16(const Conv2dGeometry& g, const float* oihw, float* packed);
void PackConvWino43(const Conv2dGeometry& g, const float* oihw, float* packed);
void UnpackConvWino43(const Conv2dGeometry& g, const float* packed, float* oihw);

// Packs `oihw` into `layout` (one of the names above); unknown layouts are errors.
Expected<std::vector<float>> PackConvWeights(const Conv2dGeometry& g, std::string_view layout,
                                             const float* oihw);
Expected<std::vector<float>> UnpackConvWeights(const Conv2dGeometry& g, std::string_view layout,
                                               const float* packed, size_t packed_floats);
size_t PackedConvFloats(const Conv2dGeometry& g, std::string_view layout);  // 0: unknown layout

}  // namespace kiln::cpu
