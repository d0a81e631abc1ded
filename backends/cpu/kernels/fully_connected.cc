// FullyConnected: B packing, A panels and the threaded tile loop (ISA-independent).
#include "backends/cpu/kernels/fully_connected.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

constexpr int64_t kMicroPanelBytes = 16 * 1024;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<float> PackGemmB(const float* b, int64_t k, int64_t n, bool trans_b, float alpha) {
  std::vector<float> out(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const float v = trans_b ? b[j * k + i] : b[i * n + j];
      out[static_cast<size_t>(i * n + j)] = alpha == 1.f ? v : alpha * v;
    }
  }
  return out;
}

std::vector<float> UnpackGemmB(const float* packed, int64_t k, int64_t n) {
  return std::vector<float>(packed, packed + k * n);
}

FullyConnected::FullyConnected(int64_t m, int64_t k, int64_t n, bool trans_a,
                               const CpuKernels& kernels)
    : m_(m), k_(k), n_(n), trans_a_(trans_a), kernels_(&kernels) {
  panels_ = CeilDiv(m, kGemmMr);
  kblocks_ = std::max<int64_t>(1, CeilDiv(k, kMicroPanelBytes / (kernels.gemm_nr * 4)));
  kc_ = CeilDiv(std::max<int64_t>(k, 1), kblocks_);
}

size_t FullyConnected::ScratchBytes() const {
  if (m_ == 1) return 0;  // the matrix-vector path packs nothing
  return static_cast<size_t>(panels_ * k_ * kGemmMr) * sizeof(float);
}

void FullyConnected::Run(const float* a, const float* b, const float* c, int64_t c_ld,
                         const ActivationParams& act, float* y, void* scratch,
                         ThreadPool* pool) const {
  if (m_ == 1) {
    // One row (batch-1 fully connected): matrix-vector, column ranges over the pool.
    const int64_t chunk = 256;
    auto body = [&](int64_t b0, int64_t b1) {
      const int64_t j0 = b0 * chunk, j1 = std::min(n_, b1 * chunk);
      kernels_->gemv(k_, a, b + j0, n_, c ? c + j0 : nullptr, y + j0, j1 - j0, act);
    };
    const int64_t chunks = CeilDiv(n_, chunk);
    if (pool && pool->num_threads() > 1 && chunks > 1) {
      pool->ParallelFor(chunks, body);
    } else {
      body(0, chunks);
    }
    return;
  }
  // A panels: apack[(p * K + k) * 8 + r] = A[p * 8 + r][k], zero past M.
  float* apack = static_cast<float*>(scratch);
  for (int64_t p = 0; p < panels_; ++p) {
    float* dst = apack + p * k_ * kGemmMr;
    for (int64_t kk = 0; kk < k_; ++kk) {
      for (int r = 0; r < kGemmMr; ++r) {
        const int64_t row = p * kGemmMr + r;
        dst[kk * kGemmMr + r] = row < m_ ? (trans_a_ ? a[kk * m_ + row] : a[row * k_ + kk]) : 0.f;
      }
    }
  }
  const int nr = kernels_->gemm_nr;
  const int64_t tiles = CeilDiv(n_, nr);
  // Work items: column tiles (each thread owns whole output columns: no shared lines but at
  // tile edges). The k blocks run inside an item, so C accumulates in place.
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n0 = t * nr;
      const int tn = static_cast<int>(std::min<int64_t>(nr, n_ - n0));
      for (int64_t kb = 0; kb < kblocks_; ++kb) {
        const int64_t k0 = kb * kc_, kl = std::min(kc_, k_ - k0);
        const int flags = (kb == 0 ? kGemmFirst : 0) | (kb == kblocks_ - 1 ? kGemmLast : 0) |
                          (c && kblocks_ > 1 ? kGemmResidualFirst : 0);
        for (int64_t p = 0; p < panels_; ++p) {
          const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, m_ - p * kGemmMr));
          Epilogue ep;
          ep.residual = c ? c + p * kGemmMr * c_ld + n0 : nullptr;
          ep.ldr = c_ld;
          ep.act = act;
          kernels_->gemm(kl, apack + (p * k_ + k0) * kGemmMr, kGemmMr, b + k0 * n_ + n0, n_,
                         y + p * kGemmMr * n_ + n0, n_, mr, tn, flags, ep);
        }
      }
    }
  };
  if (pool && pool->num_threads() > 1 && tiles > 1) {
    pool->ParallelFor(tiles, body);
  } else {
    body(0, tiles);
  }
}

}  // namespace kiln::cpu
