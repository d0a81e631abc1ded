// Convolution as an implicit GEMM, register-tiled: Y[m, p] = sum_k W[k, m] * X'[k, p] with
// m the output channel, p the output pixel and k = (ci, kh, kw). Pasted once per tile shape by
// the program builder with CG_NAME, CG_TM x CG_TN (the work-group's tile), CG_RM x CG_RN (one
// work-item's registers), CG_TK (reduction step) and CG_1X1 (a 1x1 stride-1 unpadded
// convolution reads X directly, no im2col table) defined. Weights are in layout gemmko64
// ([K, Mpad], Mpad a multiple of 64). With splits > 1 each split of the reduction writes
// partial sums to `part` and conv_splitk_reduce finishes the epilogue.
#define CG_TX (CG_TN / CG_RN)
#define CG_TY (CG_TM / CG_RM)
#define CG_NT (CG_TX * CG_TY)

__kernel __attribute__((reqd_work_group_size(CG_TX, CG_TY, 1)))
void CG_NAME(__global const stor* x, uint x_off, __global const stor* w,
             __global const float* bias, __global const stor* res, uint res_off, int has_res,
             __global stor* y, uint y_off, __global const int4* ktab, __global float* part,
             int M, int Mpad, int K, int P, int H, int W, int OW, int SH, int SW, int PH, int PW,
             int image, int kchunk, int splits, int act, float alpha, float beta) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int tid = ty * CG_TX + tx;
  const int p0 = get_group_id(0) * CG_TN, m0 = get_group_id(1) * CG_TM;
  const int z = get_group_id(2);
  const int n = z / splits, split = z - n * splits;
  const int kbeg = split * kchunk;
  const int kend = min(K, kbeg + kchunk);
  __local float As[CG_TK][CG_TM];
  __local float Bs[CG_TK][CG_TN];
  float acc[CG_RM][CG_RN];
#pragma unroll
  for (int i = 0; i < CG_RM; ++i)
#pragma unroll
    for (int j = 0; j < CG_RN; ++j) acc[i][j] = 0.f;

  const uint xb = x_off + (uint)(n * image);
  // This work-item's B column (one output pixel) and A column (one output channel).
  const int bp = tid % CG_TN, bk0 = tid / CG_TN;
  const int am = tid % CG_TM, ak0 = tid / CG_TM;
  const int pix = p0 + bp;
  const bool pix_ok = pix < P;
#if !CG_1X1
  const int oh = pix_ok ? pix / OW : 0;
  const int ih0 = oh * SH - PH, iw0 = (pix - oh * OW) * SW - PW;
#endif
  for (int k0 = kbeg; k0 < kend; k0 += CG_TK) {
#pragma unroll
    for (int r = ak0; r < CG_TK; r += CG_NT / CG_TM) {
      const int k = k0 + r;
      As[r][am] = (k < kend && m0 + am < Mpad) ? LD(w, k * Mpad + m0 + am) : 0.f;
    }
#pragma unroll
    for (int r = bk0; r < CG_TK; r += CG_NT / CG_TN) {
      const int k = k0 + r;
      float v = 0.f;
      if (k < kend && pix_ok) {
#if CG_1X1
        v = LD(x, xb + (uint)(k * P + pix));
#else
        const int4 t = ktab[k];
        const int ih = ih0 + t.y, iw = iw0 + t.z;
        if ((uint)ih < (uint)H && (uint)iw < (uint)W) v = LD(x, xb + (uint)(t.x + ih * W + iw));
#endif
      }
      Bs[r][bp] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < CG_TK; ++kk) {
      float a[CG_RM], b[CG_RN];
#pragma unroll
      for (int i = 0; i < CG_RM; ++i) a[i] = As[kk][ty + i * CG_TY];
#pragma unroll
      for (int j = 0; j < CG_RN; ++j) b[j] = Bs[kk][tx + j * CG_TX];
#pragma unroll
      for (int i = 0; i < CG_RM; ++i)
#pragma unroll
        for (int j = 0; j < CG_RN; ++j) acc[i][j] = mad(a[i], b[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#pragma unroll
  for (int i = 0; i < CG_RM; ++i) {
    const int m = m0 + ty + i * CG_TY;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < CG_RN; ++j) {
      const int p = p0 + tx + j * CG_TX;
      if (p >= P) continue;
      const int o = (n * M + m) * P + p;
      if (splits > 1) {
        part[(split * (get_num_groups(2) / splits) * M * P) + o] = acc[i][j];
      } else {
        float v = acc[i][j] + bias[m];
        if (has_res) v += LD(res, res_off + (uint)o);
        ST(y, y_off + (uint)o, kiln_act(v, act, alpha, beta));
      }
    }
  }
}

#undef CG_TX
#undef CG_TY
#undef CG_NT
