// Elementwise kernels: binary ops with numpy broadcasting (dims collapsed on the host; up to 6
// after collapsing), unary ops and the fused activations, and the per-channel affine of an
// inference BatchNormalization.

// Binary op codes (backends/opencl/kernels/eltwise.cc): 0 add, 1 sub, 2 mul, 3 div, 4 pow, 5 max, 6 min.
inline float kiln_binary(float a, float b, int op) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return pow(a, b);
    case 5: return fmax(a, b);
    default: return fmin(a, b);
  }
}

// Same shapes: one element per work-item.
__kernel void binary_same(__global const stor* a, uint a_off, __global const stor* b,
                          uint b_off, __global stor* y, uint y_off, int total, int op) {
  const int i = get_global_id(0);
  if (i >= total) return;
  ST(y, y_off + (uint)i, kiln_binary(LD(a, a_off + (uint)i), LD(b, b_off + (uint)i), op));
}

// Broadcasting: geometry = {rank, dims[6], a_strides[6], b_strides[6]} (0 strides broadcast).
__kernel void binary_bcast(__global const stor* a, uint a_off, __global const stor* b,
                           uint b_off, __global stor* y, uint y_off, int total, int op,
                           __constant int* geo) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int rank = geo[0];
  int rem = i, ia = 0, ib = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const int dim = geo[1 + d];
    const int idx = rem % dim;
    rem /= dim;
    ia += idx * geo[7 + d];
    ib += idx * geo[13 + d];
  }
  ST(y, y_off + (uint)i, kiln_binary(LD(a, a_off + (uint)ia), LD(b, b_off + (uint)ib), op));
}

// Unary op codes: 0..8 the activations of ir/activation.h (alpha/beta their parameters);
// 20 sqrt, 21 exp, 22 neg, 23 abs, 24 reciprocal.
__kernel void unary(__global const stor* x, uint x_off, __global stor* y, uint y_off, int total,
                    int op, float alpha, float beta) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const float v = LD(x, x_off + (uint)i);
  float r;
  switch (op) {
    case 20: r = sqrt(v); break;
    case 21: r = exp(v); break;
    case 22: r = -v; break;
    case 23: r = fabs(v); break;
    case 24: r = 1.f / v; break;
    default: r = kiln_act(v, op, alpha, beta);
  }
  ST(y, y_off + (uint)i, r);
}

// y = x * scale[c] + shift[c] over [N, C, inner].
__kernel void channel_affine(__global const stor* x, uint x_off, __global stor* y, uint y_off,
                             __global const float* scale, __global const float* shift, int C,
                             int inner, int total) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int c = (i / inner) % C;
  ST(y, y_off + (uint)i, mad(LD(x, x_off + (uint)i), scale[c], shift[c]));
}
