// Convolution kernels besides the tiled GEMM: the split-K reduction with the fused epilogue,
// depthwise (one output per work-item) and a direct kernel for every other grouping.

// Finishes a split-K convolution: sums the splits' partials (each [N, M, P]), then bias,
// residual and activation.
__kernel void conv_splitk_reduce(__global const float* part, int splits, int total,
                                 __global const float* bias, int M, int P,
                                 __global const stor* res, uint res_off, int has_res,
                                 __global stor* y, uint y_off, int act, float alpha, float beta) {
  const int o = get_global_id(0);
  if (o >= total) return;
  float v = 0.f;
  for (int s = 0; s < splits; ++s) v += part[s * total + o];
  v += bias[(o / P) % M];
  if (has_res) v += LD(res, res_off + (uint)o);
  ST(y, y_off + (uint)o, kiln_act(v, act, alpha, beta));
}

// Depthwise: output channel c reads input channel c / mult. Global size (OW, OH, N * M).
__kernel void conv_depthwise(__global const stor* x, uint x_off, __global const stor* w,
                             __global const float* bias, __global const stor* res, uint res_off,
                             int has_res, __global stor* y, uint y_off, int C, int H, int W,
                             int M, int OH, int OW, int KH, int KW, int SH, int SW, int PH,
                             int PW, int DH, int DW, int act, float alpha, float beta) {
  const int ow = get_global_id(0), oh = get_global_id(1), nm = get_global_id(2);
  if (ow >= OW || oh >= OH) return;
  const int m = nm % M, n = nm / M;
  const int c = m / (M / C);
  const uint xb = x_off + (uint)((n * C + c) * H * W);
  const int ih0 = oh * SH - PH, iw0 = ow * SW - PW;
  float acc = 0.f;
  for (int kh = 0; kh < KH; ++kh) {
    const int ih = ih0 + kh * DH;
    if ((uint)ih >= (uint)H) continue;
    for (int kw = 0; kw < KW; ++kw) {
      const int iw = iw0 + kw * DW;
      if ((uint)iw >= (uint)W) continue;
      acc = mad(LD(w, (m * KH + kh) * KW + kw), LD(x, xb + (uint)(ih * W + iw)), acc);
    }
  }
  const int o = (nm * OH + oh) * OW + ow;
  float v = acc + bias[m];
  if (has_res) v += LD(res, res_off + (uint)o);
  ST(y, y_off + (uint)o, kiln_act(v, act, alpha, beta));
}

// Any grouping and dilation: one output per work-item. Global size (OW * OH, M, N).
__kernel void conv_direct(__global const stor* x, uint x_off, __global const stor* w,
                          __global const float* bias, __global const stor* res, uint res_off,
                          int has_res, __global stor* y, uint y_off, int C, int H, int W, int M,
                          int OH, int OW, int KH, int KW, int SH, int SW, int PH, int PW, int DH,
                          int DW, int group, int act, float alpha, float beta) {
  const int p = get_global_id(0), m = get_global_id(1), n = get_global_id(2);
  if (p >= OH * OW) return;
  const int oh = p / OW, ow = p - oh * OW;
  const int cg = C / group, mg = M / group;
  const int c0 = (m / mg) * cg;
  const int ih0 = oh * SH - PH, iw0 = ow * SW - PW;
  float acc = 0.f;
  for (int ci = 0; ci < cg; ++ci) {
    const uint xb = x_off + (uint)((n * C + c0 + ci) * H * W);
    const int wb = (m * cg + ci) * KH * KW;
    for (int kh = 0; kh < KH; ++kh) {
      const int ih = ih0 + kh * DH;
      if ((uint)ih >= (uint)H) continue;
      for (int kw = 0; kw < KW; ++kw) {
        const int iw = iw0 + kw * DW;
        if ((uint)iw >= (uint)W) continue;
        acc = mad(LD(w, wb + kh * KW + kw), LD(x, xb + (uint)(ih * W + iw)), acc);
      }
    }
  }
  const int o = (n * M + m) * OH * OW + p;
  float v = acc + bias[m];
  if (has_res) v += LD(res, res_off + (uint)o);
  ST(y, y_off + (uint)o, kiln_act(v, act, alpha, beta));
}
