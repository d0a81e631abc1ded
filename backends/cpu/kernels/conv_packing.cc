// Weight packers/unpackers of the CPU convolution layouts.
#include "backends/cpu/kernels/conv_packing.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ir/winograd_weights.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {

int64_t ConvGemmPanels(const Conv2dGeometry& g) {
  return (g.out_c_per_group() + kGemmMr - 1) / kGemmMr;
}

size_t ConvGemmPackedFloats(const Conv2dGeometry& g) {
  return static_cast<size_t>(g.groups * ConvGemmPanels(g) * g.gemm_k() * kGemmMr);
}

void PackConvGemm(const Conv2dGeometry& g, const float* oihw, float* packed) {
  const int64_t k_len = g.gemm_k(), ocpg = g.out_c_per_group(), panels = ConvGemmPanels(g);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t p = 0; p < panels; ++p) {
      float* dst = packed + (grp * panels + p) * k_len * kGemmMr;
      for (int64_t k = 0; k < k_len; ++k) {
        for (int r = 0; r < kGemmMr; ++r) {
          const int64_t oc = p * kGemmMr + r;
          dst[k * kGemmMr + r] = oc < ocpg ? oihw[(grp * ocpg + oc) * k_len + k] : 0.f;
        }
      }
    }
  }
}

void UnpackConvGemm(const Conv2dGeometry& g, const float* packed, float* oihw) {
  const int64_t k_len = g.gemm_k(), ocpg = g.out_c_per_group(), panels = ConvGemmPanels(g);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t oc = 0; oc < ocpg; ++oc) {
      const float* src = packed + (grp * panels + oc / kGemmMr) * k_len * kGemmMr + oc % kGemmMr;
      for (int64_t k = 0; k < k_len; ++k) oihw[(grp * ocpg + oc) * k_len + k] = src[k * kGemmMr];
    }
  }
}

size_t ConvWino43PackedFloats(const Conv2dGeometry& g) {
  return static_cast<size_t>(36 * ConvGemmPanels(g) * g.in_c * kGemmMr);
}

void PackConvWino43(const Conv2dGeometry& g, const float* oihw, float* packed) {
  const int64_t panels = ConvGemmPanels(g), c_in = g.in_c;
  std::fill(packed, packed + ConvWino43PackedFloats(g), 0.f);
  for (int64_t oc = 0; oc < g.out_c; ++oc) {
    for (int64_t c = 0; c < c_in; ++c) {
      float u[36];
      WinogradTransform43(oihw + (oc * c_in + c) * 9, u);
      for (int64_t e = 0; e < 36; ++e) {
        packed[((e * panels + oc / kGemmMr) * c_in + c) * kGemmMr + oc % kGemmMr] = u[e];
      }
    }
  }
}

size_t ConvWino43Block16Floats(const Conv2dGeometry& g) {
  return static_cast<size_t>((g.out_c + 15) / 16 * 16 * g.in_c * 36);
}

void PackConvWino43Block16(const Conv2dGeometry& g, const float* oihw, float* packed) {
  // The compiler's kWino43Block16O layout (ir/layout.h): [ceil(O/16)][C][36][16].
  const int64_t c_in = g.in_c;
  std::fill(packed, packed + ConvWino43Block16Floats(g), 0.f);
  for (int64_t oc = 0; oc < g.out_c; ++oc) {
    for (int64_t c = 0; c < c_in; ++c) {
      float u[36];
      WinogradTransform43(oihw + (oc * c_in + c) * 9, u);
      for (int64_t e = 0; e < 36; ++e) packed[(((oc / 16) * c_in + c) * 36 + e) * 16 + oc % 16] = u[e];
    }
  }
}

void UnpackConvWino43(const Conv2dGeometry& g, const float* packed, float* oihw) {
  const int64_t panels = ConvGemmPanels(g), c_in = g.in_c;
  for (int64_t oc = 0; oc < g.out_c; ++oc) {
    for (int64_t c = 0; c < c_in; ++c) {
      float u[36];
      for (int64_t e = 0; e < 36; ++e) {
        u[e] = packed[((e * panels + oc / kGemmMr) * c_in + c) * kGemmMr + oc % kGemmMr];
      }
      WinogradInverse43(u, oihw + (oc * c_in + c) * 9);
    }
  }
}

size_t PackedConvFloats(const Conv2dGeometry& g, std::string_view layout) {
  if (layout == kLayoutConvGemmA8) return ConvGemmPackedFloats(g);
  if (layout == kLayoutConvWino43A8) {
    const bool fits = g.kernel_h == 3 && g.kernel_w == 3 && g.groups == 1;
    return fits ? ConvWino43PackedFloats(g) : 0;
  }
  if (layout == kLayoutOihw) return static_cast<size_t>(g.out_c * g.gemm_k());
  return 0;
}

Expected<std::vector<float>> PackConvWeights(const Conv2dGeometry& g, std::string_view layout,
                                             const float* oihw) {
  if (layout == kLayoutConvWino43A8 && PackedConvFloats(g, layout) == 0) {
    return InvalidArgument("layout conv_wino43_a8 needs a 3x3 group-1 convolution, not " +
                           g.ToString());
  }
  std::vector<float> out(PackedConvFloats(g, layout));
  if (layout == kLayoutConvGemmA8) {
    PackConvGemm(g, oihw, out.data());
  } else if (layout == kLayoutConvWino43A8 && !out.empty()) {
    PackConvWino43(g, oihw, out.data());
  } else if (layout == kLayoutOihw) {
    if (!out.empty()) std::memcpy(out.data(), oihw, out.size() * sizeof(float));
  } else {
    return InvalidArgument("unknown conv weight layout '" + std::string(layout) + "'");
  }
  return out;
}

Expected<std::vector<float>> UnpackConvWeights(const Conv2dGeometry& g, std::string_view layout,
                                               const float* packed, size_t packed_floats) {
  if (PackedConvFloats(g, layout) == 0 && layout != kLayoutOihw) {
    return InvalidArgument("unknown conv weight layout '" + std::string(layout) + "'");
  }
  if (packed_floats != PackedConvFloats(g, layout)) {
    return InvalidArgument("packed conv weights hold " + std::to_string(packed_floats) +
                           " floats; layout '" + std::string(layout) + "' for " + g.ToString() +
                           " needs " + std::to_string(PackedConvFloats(g, layout)));
  }
  std::vector<float> oihw(static_cast<size_t>(g.out_c * g.gemm_k()));
  if (layout == kLayoutConvGemmA8) {
    UnpackConvGemm(g, packed, oihw.data());
  } else if (layout == kLayoutConvWino43A8) {
    UnpackConvWino43(g, packed, oihw.data());
  } else if (!oihw.empty()) {
    std::memcpy(oihw.data(), packed, oihw.size() * sizeof(float));
  }
  return oihw;
}

}  // namespace kiln::cpu
