// Shared private pieces of the QConvCpu driver's files (qconv.cc, qconv_gemm.cc and
// qconv_depthwise*.cc): scratch alignment, output element sizes and the loop over shares.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backends/cpu/kernels/qconv.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage in each qconv*.cc

constexpr int64_t kAlign = 64;
inline int64_t AlignUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
inline int64_t Elem(QType t) { return t == QType::kI32 ? 4 : 1; }

// Shares (each with its own scratch slot) per thread: several, so that a worker that wakes late
// still finds work the caller has not taken (two shares for two threads often ran on one).
inline int64_t MaxShares(int threads) { return threads <= 1 ? 1 : 4 * int64_t{threads}; }

// Runs fn(share, begin, end) over `items` split into contiguous shares (one scratch slot each).
template <typename F>
void ForShares(ThreadPool* pool, int threads, int64_t items, const F& fn) {
  const int64_t shares = std::min<int64_t>(pool ? MaxShares(threads) : 1, items);
  RunShares(pool, shares,
            [&](int64_t sh) { fn(sh, items * sh / shares, items * (sh + 1) / shares); });
}

}  // namespace
}  // namespace kiln::cpu
