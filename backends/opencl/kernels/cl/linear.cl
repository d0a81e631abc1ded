// Fully connected and matrix products: FusedGemm (weights stored [N, K], one work-group
// reduces each output), MatMul (16x16 local-memory tiles, batch offsets from a host table) and
// Softmax.

// y[m, n] = act(alpha * sum_k a[m, k] * w[n, k] + c[m, n]). Global (ls * N, M), local (ls, 1).
__kernel void gemm_rows(__global const stor* a, uint a_off, __global const stor* w,
                        __global const float* c, int c_rows, __global stor* y, uint y_off, int M,
                        int N, int K, float alpha, int act, float act_alpha, float act_beta,
                        __local float* scratch) {
  const int n = get_group_id(0), m = get_group_id(1);
  const int lid = get_local_id(0), ls = get_local_size(0);
  float acc = 0.f;
  for (int k = lid; k < K; k += ls) {
    acc = mad(LD(a, a_off + (uint)(m * K + k)), LD(w, n * K + k), acc);
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    const float v = alpha * scratch[0] + (c_rows > 0 ? c[(m % c_rows) * N + n] : 0.f);
    ST(y, y_off + (uint)(m * N + n), kiln_act(v, act, act_alpha, act_beta));
  }
}

// C[b] = A[b] x B[b] for [M, K] x [K, N]; batch b's element offsets in `boff` (a, b pairs).
// Global (ceil(N/16)*16, ceil(M/16)*16, batches), local (16, 16).
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void matmul_tiled(__global const stor* a, uint a_off, __global const stor* b, uint b_off,
                  __global stor* y, uint y_off, __global const int* boff, int M, int N, int K) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int n = get_global_id(0), m = get_global_id(1), bz = get_global_id(2);
  const uint ab = a_off + (uint)boff[2 * bz], bb = b_off + (uint)boff[2 * bz + 1];
  __local float As[16][16];
  __local float Bs[16][17];
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = (m < M && k0 + tx < K) ? LD(a, ab + (uint)(m * K + k0 + tx)) : 0.f;
    Bs[ty][tx] = (n < N && k0 + ty < K) ? LD(b, bb + (uint)((k0 + ty) * N + n)) : 0.f;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = mad(As[ty][k], Bs[k][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (m < M && n < N) ST(y, y_off + (uint)((bz * M + m) * N + n), acc);
}

// Softmax over `len` elements spaced `inner` apart; one work-group per (outer, inner) row.
__kernel void softmax_rows(__global const stor* x, uint x_off, __global stor* y, uint y_off,
                           int len, int inner, __local float* scratch) {
  const int row = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);
  const int o = row / inner, i = row - o * inner;
  const uint base = (uint)(o * len * inner + i);
  float mx = -FLT_MAX;
  for (int r = lid; r < len; r += ls) mx = fmax(mx, LD(x, x_off + base + (uint)(r * inner)));
  scratch[lid] = mx;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  mx = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0.f;
  for (int r = lid; r < len; r += ls) sum += exp(LD(x, x_off + base + (uint)(r * inner)) - mx);
  scratch[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sum = scratch[0];
  for (int r = lid; r < len; r += ls) {
    const uint at = base + (uint)(r * inner);
    ST(y, y_off + at, exp(LD(x, x_off + at) - mx) / sum);
  }
}
