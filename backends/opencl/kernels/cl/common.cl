// Shared by every Kiln OpenCL kernel: storage precision, loads/stores, epilogue activations.
// Tensors are passed as (buffer, offset in elements). KILN_FP16 stores f32 tensors as f16
// (vload_half/vstore_half are core OpenCL, so no cl_khr_fp16 is needed); arithmetic and
// accumulation stay f32.
#ifdef KILN_FP16
typedef half stor;
#define LD(p, i) vload_half((i), (p))
#define ST(p, i, v) vstore_half((v), (i), (p))
#else
typedef float stor;
#define LD(p, i) ((p)[(i)])
#define ST(p, i, v) ((p)[(i)] = (v))
#endif

// The epilogue activations of ir/activation.h (codes are kiln::Activation values); the same
// formulas as kernels/activation.h.
inline float kiln_sigmoid(float x) {
  if (x >= 0.f) return 1.f / (1.f + exp(-x));
  const float e = exp(x);
  return e / (1.f + e);
}

inline float kiln_act(float x, int act, float alpha, float beta) {
  switch (act) {
    case 1: return x > 0.f ? x : 0.f;
    case 2: x = x < alpha ? alpha : x; return x > beta ? beta : x;
    case 3: return x < 0.f ? alpha * x : x;
    case 4: return kiln_sigmoid(x);
    case 5: return fmax(0.f, fmin(1.f, alpha * x + beta));
    case 6: return x * fmax(0.f, fmin(1.f, x / 6.f + 0.5f));
    case 7: return tanh(x);
    case 8: return x * kiln_sigmoid(x);
    default: return x;
  }
}
