// The driver of the tiled convolution GEMM (cl/conv_gemm.cl): its geometry, the launch
// configuration (tile-shape variant and reduction split) and how it is chosen per device: a
// cached earlier choice, else timing the candidates on the device (the tuner), else a
// heuristic from the compute-unit count.
#pragma once

#include <string>

#include "ir/activation.h"
#include "backends/opencl/kernels/cl_kernel.h"

namespace kiln::opencl {

struct ConvGemmShape {
  int n = 1;  // images
  int c = 0, h = 0, w = 0;
  int m = 0;     // output channels
  int mpad = 0;  // m padded to 64 (the gemmko64 weight rows)
  int k = 0;     // c * kh * kw
  int oh = 0, ow = 0;
  int sh = 1, sw = 1, ph = 0, pw = 0;
  bool is_1x1 = false;  // 1x1, stride 1, unpadded: reads the input directly
  int p() const { return oh * ow; }
  // The tuner's cache key (precision excluded: the cache is per program).
  std::string Key() const;
};

struct ConvGemmChoice {
  int variant = 0;  // index into ConvGemmVariants()
  int splits = 1;   // the reduction split into this many partial sums
  std::string ToString() const;
  static bool Parse(const std::string& s, ConvGemmChoice* out);
};

struct ConvGemmBuffers {
  const ClTensor* x = nullptr;
  cl_mem weights = nullptr;
  cl_mem bias = nullptr;  // m floats
  const ClTensor* res = nullptr;
  const ClTensor* y = nullptr;
  cl_mem ktab = nullptr;
  const ClTensor* part = nullptr;  // splits * n * m * p floats when splits > 1
};

// Floats of partial sums a choice needs.
size_t ConvGemmPartialFloats(const ConvGemmShape& s, const ConvGemmChoice& c);

Status BindConvGemm(cl_kernel gemm, cl_kernel reduce, const ConvGemmShape& s,
                    const ConvGemmChoice& c, const ConvGemmBuffers& b, const ActivationParams& act);
Status LaunchConvGemm(ClLaunch& launch, cl_kernel gemm, cl_kernel reduce, const ConvGemmShape& s,
                      const ConvGemmChoice& c);

Expected<ConvGemmChoice> ChooseConvGemm(ClEnv& env, const ConvGemmShape& s, cl_mem weights,
                                        cl_mem bias, cl_mem ktab);

}  // namespace kiln::opencl
