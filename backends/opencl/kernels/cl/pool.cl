// Pooling: MaxPool / AveragePool over 2-D windows (strides, dilations, pads; ceil_mode is in
// the output shape), and global / row reductions (GlobalAveragePool, GlobalMaxPool, ReduceMean
// over trailing axes). Semantics of kernels/reference/pool.cc.

// Global size (OW, OH, planes). is_max: MaxPool, else AveragePool; include_pad counts the taps
// inside input + pads (not the ceil_mode overhang).
__kernel void pool2d(__global const stor* x, uint x_off, __global stor* y, uint y_off, int H,
                     int W, int OH, int OW, int KH, int KW, int SH, int SW, int PH, int PW,
                     int PHE, int PWE, int DH, int DW, int is_max, int include_pad) {
  const int ow = get_global_id(0), oh = get_global_id(1), plane = get_global_id(2);
  if (ow >= OW || oh >= OH) return;
  const uint xb = x_off + (uint)(plane * H * W);
  const int ih0 = oh * SH - PH, iw0 = ow * SW - PW;
  float best = -FLT_MAX, sum = 0.f;
  int count = 0, padded = 0;
  for (int kh = 0; kh < KH; ++kh) {
    const int ih = ih0 + kh * DH;
    const bool hin = ih >= -PH && ih < H + PHE;
    for (int kw = 0; kw < KW; ++kw) {
      const int iw = iw0 + kw * DW;
      padded += (hin && iw >= -PW && iw < W + PWE) ? 1 : 0;
      if ((uint)ih >= (uint)H || (uint)iw >= (uint)W) continue;
      const float v = LD(x, xb + (uint)(ih * W + iw));
      best = v > best ? v : best;
      sum += v;
      ++count;
    }
  }
  float out;
  if (is_max) {
    out = best;
  } else {
    const int div = include_pad ? padded : count;
    out = div > 0 ? sum / (float)div : 0.f;
  }
  ST(y, y_off + (uint)((plane * OH + oh) * OW + ow), out);
}

// One work-group (size a power of two) per row of `len` contiguous elements: mean or max.
// Row r reads x[r * len ...] and writes y[r].
__kernel void reduce_rows(__global const stor* x, uint x_off, __global stor* y, uint y_off,
                          int len, int is_max, __local float* scratch) {
  const int row = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);
  const uint xb = x_off + (uint)(row * len);
  float acc = is_max ? -FLT_MAX : 0.f;
  for (int i = lid; i < len; i += ls) {
    const float v = LD(x, xb + (uint)i);
    acc = is_max ? fmax(acc, v) : acc + v;
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) {
      const float o = scratch[lid + s];
      scratch[lid] = is_max ? fmax(scratch[lid], o) : scratch[lid] + o;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) ST(y, y_off + (uint)row, is_max ? scratch[0] : scratch[0] / (float)len);
}

// Mean over the middle axis of [outer, len, inner] (inner > 1). Global size (inner, outer).
__kernel void reduce_mid_mean(__global const stor* x, uint x_off, __global stor* y, uint y_off,
                              int len, int inner) {
  const int i = get_global_id(0), o = get_global_id(1);
  if (i >= inner) return;
  float acc = 0.f;
  for (int r = 0; r < len; ++r) acc += LD(x, x_off + (uint)((o * len + r) * inner + i));
  ST(y, y_off + (uint)(o * inner + i), acc / (float)len);
}
