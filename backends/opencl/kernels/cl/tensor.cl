// Data movement: strided copies (Transpose, Slice, a Concat that is not elided, Split) and
// Resize through per-axis source tables built on the host by the reference's own rules.

// dst[dst_off + sum idx_d * dstride_d] = src[src_off + sum idx_d * sstride_d] over dims;
// geometry = {rank, dims[6], sstride[6], dstride[6]}.
__kernel void strided_copy(__global const stor* src, uint src_off, __global stor* dst,
                           uint dst_off, int total, __constant int* geo) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int rank = geo[0];
  int rem = i, is = 0, id = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const int dim = geo[1 + d];
    const int idx = rem % dim;
    rem /= dim;
    is += idx * geo[7 + d];
    id += idx * geo[13 + d];
  }
  ST(dst, dst_off + (uint)id, LD(src, src_off + (uint)is));
}

// Resize over the last two axes of [planes, H, W] -> [planes, OH, OW]. Tables per output row
// and column: source indices lo, hi and the weight of hi (nearest: lo == hi, weight 0).
__kernel void resize2d(__global const stor* x, uint x_off, __global stor* y, uint y_off, int H,
                       int W, int OH, int OW, __global const int* hlo, __global const int* hhi,
                       __global const float* hw, __global const int* wlo,
                       __global const int* whi, __global const float* ww) {
  const int ow = get_global_id(0), oh = get_global_id(1), plane = get_global_id(2);
  if (ow >= OW || oh >= OH) return;
  const uint xb = x_off + (uint)(plane * H * W);
  const int h0 = hlo[oh], h1 = hhi[oh], w0 = wlo[ow], w1 = whi[ow];
  const float fh = hw[oh], fw = ww[ow];
  const float a = LD(x, xb + (uint)(h0 * W + w0)), b = LD(x, xb + (uint)(h0 * W + w1));
  const float c = LD(x, xb + (uint)(h1 * W + w0)), d = LD(x, xb + (uint)(h1 * W + w1));
  const float top = a + (b - a) * fw, bottom = c + (d - c) * fw;
  ST(y, y_off + (uint)((plane * OH + oh) * OW + ow), top + (bottom - top) * fh);
}
