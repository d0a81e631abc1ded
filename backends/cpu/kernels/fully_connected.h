// Y = act(A B + C) for a constant B, the shared driver of Gemm / MatMul / FusedGemm on every
// ISA. B is packed offline as plain row-major K x N floats (layout "gemm_b_kn", Gemm's alpha
// folded in), A (activations, M x K or K x M) is packed at run time into panels of 8 rows, and
// the packed-GEMM micro-kernel runs with rows = M, columns = N; C is a row added to every
// output row (ldc 0) or an M x N matrix, before the activation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/activation.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

inline constexpr std::string_view kLayoutGemmBKn = "gemm_b_kn";

// Packs B (K x N, or N x K when trans_b) times alpha into gemm_b_kn; and back (alpha = 1).
std::vector<float> PackGemmB(const float* b, int64_t k, int64_t n, bool trans_b, float alpha);
std::vector<float> UnpackGemmB(const float* packed, int64_t k, int64_t n);

class FullyConnected {
 public:
  FullyConnected() = default;
  FullyConnected(int64_t m, int64_t k, int64_t n, bool trans_a, const CpuKernels& kernels);

  size_t ScratchBytes() const;
  // a: M x K (K x M when trans_a); b: gemm_b_kn; c: null, a row of N (c_ld = 0) or M x N
  // (c_ld = N); y: M x N.
  void Run(const float* a, const float* b, const float* c, int64_t c_ld,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  int64_t m_ = 0, k_ = 0, n_ = 0, panels_ = 0, kc_ = 0, kblocks_ = 1;
  bool trans_a_ = false;
  const CpuKernels* kernels_ = nullptr;
};

}  // namespace kiln::cpu
