// Data movement on OpenCL (cl/tensor.cl): Reshape-like copies (when the plan does not elide
// them), Transpose, Slice and Concat as strided copies, and 2-D Resize through per-axis
// tables built by the reference's own coordinate rules (ir/ops/resize_params.h).
#include <algorithm>

#include "backends/opencl/kernels/cl_kernel.h"
#include "backends/opencl/kernels/opencl_kernels.h"
#include "ir/ops/resize_params.h"
#include "ir/ops/slice_params.h"

namespace kiln::opencl {
namespace {

constexpr int kMaxRank = 6;

std::vector<int64_t> Contiguous(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// {rank, dims[6], src strides[6], dst strides[6]} after dropping unit dims; false past rank 6.
bool CopyGeometry(const Shape& dims, const std::vector<int64_t>& ss, const std::vector<int64_t>& ds,
                  std::vector<int>* geo) {
  std::vector<int64_t> d2, s2, t2;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    d2.push_back(dims[d]);
    s2.push_back(ss[d]);
    t2.push_back(ds[d]);
  }
  if (d2.empty()) d2 = {1}, s2 = {0}, t2 = {0};
  if (d2.size() > kMaxRank) return false;
  geo->assign(1 + 3 * kMaxRank, 0);
  (*geo)[0] = static_cast<int>(d2.size());
  for (size_t d = 0; d < d2.size(); ++d) {
    (*geo)[1 + d] = static_cast<int>(d2[d]);
    (*geo)[1 + kMaxRank + d] = static_cast<int>(s2[d]);
    (*geo)[1 + 2 * kMaxRank + d] = static_cast<int>(t2[d]);
  }
  return true;
}

// Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: the bytes unchanged.
class CopyCl : public ClKernel {
 public:
  Status Setup(ClEnv&) override { return Status::Ok(); }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void*) override {
    const ClTensor* src = T(in[0]);
    const ClTensor* dst = T(out[0]);
    if (src->mem == dst->mem && src->byte_offset == dst->byte_offset) return Status::Ok();
    return launch.Copy(src->mem, src->byte_offset, dst->mem, dst->byte_offset, dst->bytes);
  }
};

bool AcceptsCopy(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n) || n.inputs.empty() || n.inputs[0] == kNoValue) return false;
  if (g.value(n.inputs[0]).is_constant()) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    if (n.outputs[i] != kNoValue) return false;  // Dropout's mask
  }
  return true;
}

// Strided copies: one launch per (source, geometry, destination offset).
class StridedCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    parts_.clear();
    const Shape& y = ctx.output(0).shape;
    switch (ctx.node().op) {
      case OpType::kTranspose: {
        const Shape& x = ctx.input(0).shape;
        std::vector<int64_t> perm = ctx.attrs().GetInts("perm", {});
        if (perm.empty()) {
          for (size_t d = x.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
        }
        const auto xs = Contiguous(x);
        std::vector<int64_t> ss(y.size());
        for (size_t d = 0; d < y.size(); ++d) ss[d] = xs[static_cast<size_t>(perm[d])];
        KILN_RETURN_IF_ERROR(Add(0, y, ss, Contiguous(y), 0));
        break;
      }
      case OpType::kSlice: {
        const Shape& x = ctx.input(0).shape;
        std::vector<int64_t> v[4];
        for (size_t i = 1; i < 5; ++i) {
          if (!ctx.has_input(i)) continue;
          KILN_ASSIGN_OR_RETURN(v[i - 1], ConstantValueInts(ctx.input(i)));
        }
        KILN_ASSIGN_OR_RETURN(SliceParams sp, ResolveSlice(x, v[0], v[1], v[2], v[3]));
        const auto xs = Contiguous(x);
        std::vector<int64_t> ss(x.size());
        int64_t start = 0;
        for (size_t d = 0; d < x.size(); ++d) {
          ss[d] = xs[d] * sp.step[d];
          start += sp.start[d] * xs[d];
        }
        KILN_RETURN_IF_ERROR(Add(0, y, ss, Contiguous(y), 0, start));
        break;
      }
      case OpType::kConcat: {
        int64_t axis = ctx.attrs().GetInt("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(y.size());
        const auto a = static_cast<size_t>(axis);
        const int64_t outer = NumElements(Shape(y.begin(), y.begin() + axis));
        const int64_t inner = NumElements(Shape(y.begin() + axis + 1, y.end()));
        int64_t at = 0;
        for (size_t i = 0; i < ctx.num_inputs(); ++i) {
          const int64_t len = ctx.input(i).shape[a];
          KILN_RETURN_IF_ERROR(
              Add(i, {outer, len * inner}, {len * inner, 1}, {y[a] * inner, 1}, at * inner));
          at += len;
        }
        break;
      }
      default:
        return Unsupported("strided copy op");
    }
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    for (Part& p : parts_) {
      KILN_ASSIGN_OR_RETURN(p.geo_buf, UploadBytes(env, p.geo.data(), p.geo.size() * sizeof(int)));
      KILN_ASSIGN_OR_RETURN(p.kernel, env.CreateKernel("strided_copy"));
    }
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    const bool bind = NeedsBind(in, out, scratch);
    for (Part& p : parts_) {
      if (p.total == 0) continue;
      if (bind) {
        const ClTensor* src = T(in[p.input]);
        const ClTensor* dst = T(out[0]);
        ClArgs a(p.kernel.get());
        a.Mem(src->mem).U32(src->offset + static_cast<cl_uint>(p.src_offset));
        a.Mem(dst->mem).U32(dst->offset + static_cast<cl_uint>(p.dst_offset));
        a.I32(static_cast<int>(p.total)).Mem(p.geo_buf.get());
        KILN_RETURN_IF_ERROR(a.status("strided_copy"));
      }
      const size_t local = 128;
      const size_t global = (static_cast<size_t>(p.total) + local - 1) / local * local;
      KILN_RETURN_IF_ERROR(launch.Run(p.kernel.get(), 1, &global, &local));
    }
    return Status::Ok();
  }

 private:
  struct Part {
    size_t input = 0;
    int64_t total = 0, src_offset = 0, dst_offset = 0;
    std::vector<int> geo;
    ClBuffer geo_buf;
    ClKernelObject kernel;
  };
  Status Add(size_t input, const Shape& dims, const std::vector<int64_t>& ss,
             const std::vector<int64_t>& ds, int64_t dst_offset, int64_t src_offset = 0) {
    Part p;
    p.input = input;
    p.total = NumElements(dims);
    p.src_offset = src_offset;
    p.dst_offset = dst_offset;
    if (!CopyGeometry(dims, ss, ds, &p.geo)) return Unsupported("copy of rank above 6");
    parts_.push_back(std::move(p));
    return Status::Ok();
  }
  std::vector<Part> parts_;
};

bool AcceptsStrided(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n)) return false;
  for (ValueId in : n.inputs) {
    if (in != kNoValue && g.value(in).dtype == DType::kF32 && g.value(in).is_constant()) {
      return false;  // data inputs come from the device
    }
  }
  const Shape& y = g.value(n.outputs[0]).shape;
  if (n.op == OpType::kConcat) return true;
  std::vector<int> geo;
  return CopyGeometry(y, std::vector<int64_t>(y.size(), 1), std::vector<int64_t>(y.size(), 1),
                      &geo);
}

Expected<ResizeParams> ResolveResizeNode(const Graph& g, const Node& n) {
  auto opt = [&](size_t i) -> const Value* {
    return i < n.inputs.size() && n.inputs[i] != kNoValue ? &g.value(n.inputs[i]) : nullptr;
  };
  KILN_ASSIGN_OR_RETURN(auto roi, ConstantValueFloats(opt(1), "roi"));
  KILN_ASSIGN_OR_RETURN(auto scales, ConstantValueFloats(opt(2), "scales"));
  KILN_ASSIGN_OR_RETURN(auto sizes, ConstantValueInts(opt(3), "sizes"));
  return ResolveResize(n.attrs, g.value(n.inputs[0]).shape, roi, scales, sizes);
}

bool AcceptsResize(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n)) return false;
  auto p = ResolveResizeNode(g, n);
  if (!p.ok() || p->input.size() != 4 || p->coord == ResizeCoordMode::kTfCropAndResize) {
    return false;
  }
  return p->input[0] == p->output[0] && p->input[1] == p->output[1];
}

class ResizeCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    KILN_ASSIGN_OR_RETURN(p_, ResolveResizeNode(ctx.graph(), ctx.node()));
    if (p_.output != ctx.output(0).shape) return Internal("Resize output shape");
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    for (size_t a = 2; a < 4; ++a) {
      std::vector<cl_int> lo, hi;
      std::vector<float> w;
      const int64_t in = p_.input[a];
      for (int64_t o = 0; o < p_.output[a]; ++o) {
        bool outside = false;
        const float x = ResizeSourceCoordinate(p_, a, o, &outside);
        int64_t l, h;
        float wt = 0.f;
        if (p_.mode == ResizeMode::kLinear) {
          const float c = x < 0.f ? 0.f : (x > static_cast<float>(in - 1) ? in - 1 : x);
          l = static_cast<int64_t>(c);
          h = l + 1 < in ? l + 1 : l;
          wt = c - static_cast<float>(l);
        } else {
          l = h = ResizeNearestIndex(p_, x, in);
        }
        lo.push_back(static_cast<cl_int>(l));
        hi.push_back(static_cast<cl_int>(h));
        w.push_back(wt);
      }
      const size_t i = a - 2;
      KILN_ASSIGN_OR_RETURN(lo_[i], UploadBytes(env, lo.data(), lo.size() * sizeof(cl_int)));
      KILN_ASSIGN_OR_RETURN(hi_[i], UploadBytes(env, hi.data(), hi.size() * sizeof(cl_int)));
      KILN_ASSIGN_OR_RETURN(w_[i], UploadBytes(env, w.data(), w.size() * sizeof(float)));
    }
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("resize2d"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    const int h = static_cast<int>(p_.input[2]), w = static_cast<int>(p_.input[3]);
    const int oh = static_cast<int>(p_.output[2]), ow = static_cast<int>(p_.output[3]);
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Tensor(T(out[0])).I32(h).I32(w).I32(oh).I32(ow);
      a.Mem(lo_[0].get()).Mem(hi_[0].get()).Mem(w_[0].get());
      a.Mem(lo_[1].get()).Mem(hi_[1].get()).Mem(w_[1].get());
      KILN_RETURN_IF_ERROR(a.status("resize2d"));
    }
    const size_t local[3] = {16, 4, 1};
    const size_t global[3] = {static_cast<size_t>((ow + 15) / 16 * 16),
                              static_cast<size_t>((oh + 3) / 4 * 4),
                              static_cast<size_t>(p_.input[0] * p_.input[1])};
    return launch.Run(kernel_.get(), 3, global, local);
  }

 private:
  ResizeParams p_;
  ClBuffer lo_[2], hi_[2], w_[2];
  ClKernelObject kernel_;
};

template <typename K>
std::unique_ptr<Kernel> Make() {
  return std::make_unique<K>();
}

}  // namespace

void RegisterOpenClTensorKernels(KernelRegistry& r) {
  auto reg = [&](OpType op, KernelFactory f, bool (*accepts)(const Graph&, const Node&)) {
    KernelTraits t;
    t.accepts = accepts;
    r.Register({op, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL}, f, t);
  };
  for (OpType op : {OpType::kReshape, OpType::kFlatten, OpType::kSqueeze, OpType::kUnsqueeze,
                    OpType::kIdentity, OpType::kDropout}) {
    reg(op, Make<CopyCl>, AcceptsCopy);
  }
  for (OpType op : {OpType::kTranspose, OpType::kSlice, OpType::kConcat}) {
    reg(op, Make<StridedCl>, AcceptsStrided);
  }
  reg(OpType::kResize, Make<ResizeCl>, AcceptsResize);
}

}  // namespace kiln::opencl
