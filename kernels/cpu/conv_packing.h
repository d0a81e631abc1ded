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
#include "kernels/cpu/conv_geometry.h"

namespace kiln::cpu {

// "conv_gemm_a8": the GEMM A operand of im2col / 1x1 convolution, per group. Output channels
// of a group are cut into panels of kGemmMr (= 8) rows; each panel stores, for k = 0..K-1
// (K = C/group * kH * kW, k = (c * kH + y) * kW + x, the im2col row order), the 8 weights
// W[oc0 + r][c][y][x], r = 0..7, zero past the group's last channel:
//   packed[((g * panels + p) * K + k) * 8 + r].
inline constexpr std::string_view kLayoutConvGemmA8 = "conv_gemm_a8";
// "oihw": the plain ONNX weights, used as they are (depthwise kernels read them directly).
inline constexpr std::string_view kLayoutOihw = "oihw";

int64_t ConvGemmPanels(const Conv2dGeometry& g);  // panels per group
size_t ConvGemmPackedFloats(const Conv2dGeometry& g);
void PackConvGemm(const Conv2dGeometry& g, const float* oihw, float* packed);
void UnpackConvGemm(const Conv2dGeometry& g, const float* packed, float* oihw);

// Packs `oihw` into `layout` (one of the names above); unknown layouts are errors.
Expected<std::vector<float>> PackConvWeights(const Conv2dGeometry& g, std::string_view layout,
                                             const float* oihw);
Expected<std::vector<float>> UnpackConvWeights(const Conv2dGeometry& g, std::string_view layout,
                                               const float* packed, size_t packed_floats);
size_t PackedConvFloats(const Conv2dGeometry& g, std::string_view layout);  // 0: unknown layout

}  // namespace kiln::cpu
