// Portable FusedConv over Block16O weights (ir/layout.h): a direct 2-D convolution that
// computes 16 output channels per output pixel, so the innermost loop is 16 independent
// multiply-adds a compiler vectorises for any target. It is the kScalar kernel every CPU has,
// hence the fallback that makes a file packed for a faster ISA run anywhere; f16-stored
// weights are widened on the fly. Threads split output-channel blocks x output rows.
#include <algorithm>
#include <array>

#include "backends/cpu/cpu_kernels.h"
#include "ir/ops/window_geometry.h"
#include "kernels/activation.h"

namespace kiln::cpu {
namespace {

constexpr int64_t kBlock = 16;

bool Accepts(const Graph& g, const Node& n) {
  const Value& x = g.value(n.inputs[0]);
  return x.shape.size() == 4 && x.dtype == DType::kF32;
}

class FusedConvBlock16Scalar : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    const Shape& w = ctx.input(1).shape;
    weights_f16_ = ctx.input(1).dtype == DType::kF16;
    group_ = ctx.attrs().GetInt("group", 1);
    KILN_ASSIGN_OR_RETURN(WindowGeometry g,
                          ResolveWindow(ctx.attrs(), {x[2], x[3]}, {w[2], w[3]}, false));
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    n_ = x[0];
    c_ = x[1];
    ih_ = x[2];
    iw_ = x[3];
    m_ = w[0];
    cg_ = w[1];
    mg_ = m_ / group_;
    kh_ = w[2];
    kw_ = w[3];
    oh_ = g.output[0];
    ow_ = g.output[1];
    sh_ = g.strides[0];
    sw_ = g.strides[1];
    dh_ = g.dilations[0];
    dw_ = g.dilations[1];
    ph_ = g.pads_begin[0];
    pw_ = g.pads_begin[1];
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float* x = inputs[0].as<const float>();
    const void* w = inputs[1].data;
    const float* bias = inputs.size() > 2 ? inputs[2].as<const float>() : nullptr;
    const float* residual = inputs.size() > 3 ? inputs[3].as<const float>() : nullptr;
    float* y = outputs[0].as<float>();
    const int64_t blocks = (m_ + kBlock - 1) / kBlock;
    auto work = [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t n = item / (blocks * oh_);
        const int64_t ob = (item / oh_) % blocks;
        const int64_t oh = item % oh_;
        if (weights_f16_) {
          Row(x, static_cast<const uint16_t*>(w), bias, residual, y, n, ob, oh);
        } else {
          Row(x, static_cast<const float*>(w), bias, residual, y, n, ob, oh);
        }
      }
    };
    const int64_t items = n_ * blocks * oh_;
    if (pool_) {
      pool_->ParallelFor(items, work);
    } else {
      work(0, items);
    }
    return Status::Ok();
  }

 private:
  static float Weight(const float* w, int64_t index) { return w[index]; }
  static float Weight(const uint16_t* w, int64_t index) { return HalfToFloat(w[index]); }

  // One output row of 16 output channels, in chunks of kTile pixels whose accumulators stay
  // in L1 while the input rows stream through once per tap; W is float or f16 bits.
  template <typename W>
  void Row(const float* x, const W* w, const float* bias, const float* residual, float* y,
           int64_t n, int64_t ob, int64_t oh) const {
    constexpr int64_t kTile = 64;
    const int64_t lanes = std::min(kBlock, m_ - ob * kBlock);
    // Input channel base of each lane (its group's first channel).
    std::array<int64_t, kBlock> cbase{};
    for (int64_t l = 0; l < lanes; ++l) cbase[l] = ((ob * kBlock + l) / mg_) * cg_;
    const bool same_channels = cbase[0] == cbase[lanes - 1];
    const int64_t plane = ih_ * iw_;
    for (int64_t ow0 = 0; ow0 < ow_; ow0 += kTile) {
      const int64_t tile = std::min(kTile, ow_ - ow0);
      float acc[kTile][kBlock];
      for (int64_t t = 0; t < kTile; ++t) {
        for (int64_t l = 0; l < kBlock; ++l)
          acc[t][l] = bias && l < lanes ? bias[ob * kBlock + l] : 0.f;
      }
      for (int64_t ic = 0; ic < cg_; ++ic) {
        for (int64_t kh = 0; kh < kh_; ++kh) {
          const int64_t ih = oh * sh_ - ph_ + kh * dh_;
          if (ih < 0 || ih >= ih_) continue;
          for (int64_t kw = 0; kw < kw_; ++kw) {
            const int64_t wbase = (((ob * cg_ + ic) * kh_ + kh) * kw_ + kw) * kBlock;
            float wv[kBlock];
            for (int64_t l = 0; l < kBlock; ++l) wv[l] = Weight(w, wbase + l);
            for (int64_t t = 0; t < tile; ++t) {
              const int64_t iw = (ow0 + t) * sw_ - pw_ + kw * dw_;
              if (iw < 0 || iw >= iw_) continue;
              const int64_t xoff = ih * iw_ + iw;
              if (same_channels) {
                const float xv = x[(n * c_ + cbase[0] + ic) * plane + xoff];
                for (int64_t l = 0; l < kBlock; ++l) acc[t][l] += wv[l] * xv;
              } else {
                for (int64_t l = 0; l < lanes; ++l) {
                  acc[t][l] += wv[l] * x[(n * c_ + cbase[l] + ic) * plane + xoff];
                }
              }
            }
          }
        }
      }
      for (int64_t l = 0; l < lanes; ++l) {
        const int64_t base = ((n * m_ + ob * kBlock + l) * oh_ + oh) * ow_ + ow0;
        for (int64_t t = 0; t < tile; ++t) {
          float v = acc[t][l];
          if (residual) v += residual[base + t];
          y[base + t] = ApplyActivation(act_, v);
        }
      }
    }
  }

  ActivationParams act_;
  bool weights_f16_ = false;
  ThreadPool* pool_ = nullptr;
  int64_t group_ = 1, n_ = 0, c_ = 0, ih_ = 0, iw_ = 0, m_ = 0, cg_ = 0, mg_ = 0, kh_ = 0, kw_ = 0,
          oh_ = 0, ow_ = 0, sh_ = 1, sw_ = 1, dh_ = 1, dw_ = 1, ph_ = 0, pw_ = 0;
};

}  // namespace

void RegisterFusedConvBlock16Scalar(KernelRegistry& r) {
  KernelTraits traits;
  traits.accepts = Accepts;
  traits.packing = WeightPacking{1, Layout::kBlock16O};
  RegisterKernel<FusedConvBlock16Scalar>(r, OpType::kFusedConv, DType::kF32, kExecutorCpu,
                                         Isa::kScalar, Layout::kPlain, traits);
}

}  // namespace kiln::cpu
