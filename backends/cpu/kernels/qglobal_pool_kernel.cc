// QGlobalAveragePool of 8-bit codes to 8-bit codes on the CPU (a quantized classifier's last
// pool: mobilenetv2's 1280 planes of 7x7). Per plane the codes are summed eight at a time in
// one 64-bit word (portable SWAR: a 7x7 plane is six words and a byte), the sum centred and
// requantized in int32 — exact, and equal to the reference's RequantizeWide, since the kernel
// takes planes of fewer than 2^31 / 255 codes only — and the planes split over the session's
// pool. The reference kernel summed each plane in int64 and requantized through 128-bit
// products: 34 us for mobilenetv2's pool. Other types (i16 input, i32 output) and clamps
// outside the output type go to the reference.
#include <algorithm>
#include <cstring>

#include "ir/quant_code.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"
#include "kernels/reference/quantized_util.h"
#include "kernels/requantize.h"

namespace kiln::cpu {
namespace {

// The sum of n bytes, each XORed with `flip` (0x80 turns i8 codes into code + 128).
uint32_t SumBytes(const uint8_t* p, int64_t n, uint8_t flip) {
  constexpr uint64_t kLow = 0x00ff00ff00ff00ffULL;
  const uint64_t flips = 0x0101010101010101ULL * flip;
  uint32_t total = 0;
  int64_t i = 0;
  while (i + 8 <= n) {
    // Four 16-bit lanes, each taking two bytes per word: 128 words keep them below 2^16.
    uint64_t lanes = 0;
    const int64_t end = std::min(n - n % 8, i + 128 * 8);
    for (; i < end; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, sizeof(w));
      w ^= flips;
      lanes += (w & kLow) + ((w >> 8) & kLow);
    }
    total += static_cast<uint32_t>((lanes & 0xffff) + ((lanes >> 16) & 0xffff) +
                                   ((lanes >> 32) & 0xffff) + (lanes >> 48));
  }
  for (; i < n; ++i) total += static_cast<uint8_t>(p[i] ^ flip);
  return total;
}

class QGlobalAveragePoolCpu : public CpuKernelBase {
 public:
  explicit QGlobalAveragePoolCpu(Isa isa) : CpuKernelBase(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    const Value& x = ctx.input(0);
    const DType out = ctx.output(0).dtype;
    clamp_ = ReadClamp(ctx.attrs(), out);
    inner_ = NumElements(Shape(x.shape.begin() + 2, x.shape.end()));
    if (!Is8BitCode(x.dtype) || !Is8BitCode(out) || !ctx.has_input(1) ||
        !ClampWithinCodes(clamp_, out) || inner_ >= (int64_t{1} << 31) / 255) {
      return UseReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(auto rq, ReadRequant(ctx.input(1), 1));
    requant_ = rq[0];
    signed_ = x.dtype == DType::kI8;
    // An i8 code c is summed as c + 128: the zero point moves with it.
    centre_ = inner_ * (ZeroPointOf(x) + (signed_ ? 128 : 0));
    out_zero_ = ZeroPointOf(ctx.output(0));
    planes_ = x.shape[0] * x.shape[1];
    pool_ = ctx.thread_pool();
    // Below ~16K codes a share costs more to hand off than it saves.
    const int64_t by_size = std::max<int64_t>(1, planes_ * inner_ / 16384);
    shares_ = std::min<int64_t>({pool_ ? pool_->num_threads() : 1, planes_, by_size});
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const auto* x = static_cast<const uint8_t*>(inputs[0].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    const uint8_t flip = signed_ ? 0x80 : 0;
    auto share = [&](int64_t s) {
      const int64_t end = planes_ * (s + 1) / shares_;  // once: a division per plane cost 3x
      for (int64_t p = planes_ * s / shares_; p < end; ++p) {
        const auto sum = static_cast<int32_t>(SumBytes(x + p * inner_, inner_, flip) - centre_);
        y[p] = static_cast<uint8_t>(
            RequantizeToOutput(sum, requant_, out_zero_, clamp_.lo, clamp_.hi));
      }
    };
    RunShares(pool_, shares_, share);
    return Status::Ok();
  }

 private:
  QuantClamp clamp_;
  Requant requant_;
  bool signed_ = false;
  int64_t inner_ = 0, centre_ = 0, planes_ = 0, shares_ = 1;
  int32_t out_zero_ = 0;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterQGlobalPoolInt8(KernelRegistry& r) {
  RegisterCpuInt8Codes<QGlobalAveragePoolCpu>(r, OpType::kQGlobalAveragePool);
}

}  // namespace kiln::cpu
