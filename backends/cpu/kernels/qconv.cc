// int8 convolution drivers over the Int8Kernels micro-kernels (QConvCpu): the parts the GEMM
// (qconv_gemm.cc) and depthwise (qconv_depthwise*.cc) drivers share, the scratch size, the
// dispatch and the per-channel epilogue parameters.
#include "backends/cpu/kernels/qconv.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/qconv_impl.h"

namespace kiln::cpu {

size_t QConvCpu::ScratchBytes() const {
  const Conv2dGeometry& g = s_.g;
  if (depthwise_ && dw_use_direct_) return kAlign;
  if (depthwise_ && dw_use_lanes_) {
    return static_cast<size_t>(threads_ * (dw_tile_bytes_ + dw_otile_bytes_) + kAlign);
  }
  if (depthwise_) {
    const int64_t per = dw_plane_bytes_ + AlignUp(dw_group_ * g.out_plane() * 4);
    return static_cast<size_t>(MaxShares(threads_) * per + kAlign);
  }
  if (gemv_) return static_cast<size_t>(AlignUp(c4_ * 4) + kAlign);
  int64_t bytes = AlignUp(g.groups * c4_ * plane_ * 4);
  // Pointwise layers split by output channels too: an interleaved copy per thread.
  if (columns_per_share_ && oc_chunks_ > 1) bytes *= threads_;
  if (any_w_zero_) bytes += AlignUp(g.groups * plane_ * 4);
  if (!direct_) bytes += MaxShares(threads_) * AlignUp(k4_ * nr_ * 4);
  return static_cast<size_t>(bytes + kAlign);
}

void QConvCpu::Run(const void* x, const int8_t* w, const void* residual, void* y, void* scratch,
                   ThreadPool* pool) const {
  auto* s = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(scratch) + kAlign - 1) &
                                       ~uintptr_t{kAlign - 1});
  if (depthwise_) {
    RunDepthwise(static_cast<const uint8_t*>(x), residual, y, s, pool);
  } else {
    RunGemm(static_cast<const uint8_t*>(x), w, residual, y, s, pool);
  }
}

QRowParams QConvCpu::RowFor(int64_t oc, const void* residual) const {
  if (!rows_.empty()) {  // made once at prepare
    QRowParams p = rows_[static_cast<size_t>(oc)];
    p.residual = residual;
    return p;
  }
  QRowParams p;
  p.offset = offset_.empty() ? s_.bias[static_cast<size_t>(oc)] : offset_[static_cast<size_t>(oc)];
  p.zero = w_stored_zero_.empty() ? 0 : w_stored_zero_[static_cast<size_t>(oc)];
  if (!s_.requant.empty()) p.requant = s_.requant[static_cast<size_t>(oc)];
  DeriveHighHalf(p);
  p.residual = residual;
  p.residual_type = s_.residual_type;
  p.residual_zero = s_.residual_zero;
  if (s_.residual) p.residual_requant = s_.residual_requant[static_cast<size_t>(oc)];
  p.out_type = s_.out_type;
  p.out_zero = s_.out_zero;
  p.qmin = s_.qmin;
  p.qmax = s_.qmax;
  return p;
}

void QConvCpu::MakeRows() {
  rows_.clear();
  std::vector<QRowParams> rows;
  for (int64_t oc = 0; oc < s_.g.out_c; ++oc) rows.push_back(RowFor(oc, nullptr));
  rows_ = std::move(rows);
}

}  // namespace kiln::cpu
