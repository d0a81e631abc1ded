// Test helpers for the CPU conv kernels: random geometries and tensors, a naive direct
// convolution (the oracle the fast drivers are compared with), and a tolerance check.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_geometry.h"

namespace kiln::cpu::testing {

inline std::vector<float> RandomVector(size_t n, std::mt19937& rng, float lo = -1.f,
                                       float hi = 1.f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

// y = act(conv(x, w) + bias + residual), accumulated in double.
inline std::vector<float> NaiveConv(const Conv2dGeometry& g, const std::vector<float>& x,
                                    const std::vector<float>& w, const float* bias,
                                    const float* residual, const ActivationParams& act) {
  std::vector<float> y(static_cast<size_t>(g.batch * g.out_c * g.out_plane()));
  const int64_t cpg = g.in_c_per_group(), ocpg = g.out_c_per_group();
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oc = 0; oc < g.out_c; ++oc) {
      const int64_t grp = oc / ocpg;
      for (int64_t oy = 0; oy < g.out_h; ++oy)
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          double acc = bias ? bias[oc] : 0.0;
          for (int64_t c = 0; c < cpg; ++c)
            for (int64_t ky = 0; ky < g.kernel_h; ++ky)
              for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
                const int64_t iy = oy * g.stride_h + ky * g.dilation_h - g.pad_top;
                const int64_t ix = ox * g.stride_w + kx * g.dilation_w - g.pad_left;
                if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
                acc += static_cast<double>(
                           x[((n * g.in_c + grp * cpg + c) * g.in_h + iy) * g.in_w + ix]) *
                       w[((oc * cpg + c) * g.kernel_h + ky) * g.kernel_w + kx];
              }
          const size_t i = static_cast<size_t>(((n * g.out_c + oc) * g.out_h + oy) * g.out_w + ox);
          if (residual) acc += residual[i];
          y[i] = ApplyActivation(act, static_cast<float>(acc));
        }
    }
  return y;
}

// |got - want| <= atol + rtol * |want| everywhere; reports the first few mismatches.
inline void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float atol,
                        float rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float tol = atol + rtol * std::fabs(want[i]);
    if (!(std::fabs(got[i] - want[i]) <= tol)) {
      if (++bad <= 5)
        ADD_FAILURE() << what << ": [" << i << "] got " << got[i] << " want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements differ";
}

}  // namespace kiln::cpu::testing
