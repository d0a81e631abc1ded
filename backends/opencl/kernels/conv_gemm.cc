// Launch configuration and tuning of the tiled convolution GEMM.
#include "backends/opencl/kernels/conv_gemm.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "backends/opencl/cl_api.h"
#include "backends/opencl/kernels/cl_program.h"

namespace kiln::opencl {
namespace {

size_t Ceil(int v, int m) { return static_cast<size_t>((v + m - 1) / m); }

// Reduction length of one split: a multiple of the variants' K step.
int KChunk(const ConvGemmShape& s, int splits) {
  const int per = (s.k + splits - 1) / splits;
  return (per + kConvGemmTk - 1) / kConvGemmTk * kConvGemmTk;
}

size_t WorkGroups(const ConvGemmShape& s, const ConvGemmVariant& v) {
  return Ceil(s.p(), v.tn) * Ceil(s.m, v.tm) * static_cast<size_t>(s.n);
}

// Split counts worth trying: each split keeps at least 4 K steps.
std::vector<int> Splits(const ConvGemmShape& s) {
  std::vector<int> out = {1};
  for (int sp = 2; sp <= 16; sp *= 2) {
    if (KChunk(s, sp) >= 4 * kConvGemmTk && KChunk(s, sp) * (sp - 1) < s.k) out.push_back(sp);
  }
  return out;
}

std::vector<int> Variants(const ConvGemmShape& s) {
  std::vector<int> out;
  const auto vs = ConvGemmVariants();
  for (size_t i = 0; i < vs.size(); ++i) {
    if (vs[i].is_1x1 == s.is_1x1) out.push_back(static_cast<int>(i));
  }
  return out;
}

int VariantNamed(const ConvGemmShape& s, int tm, int tn) {
  const auto vs = ConvGemmVariants();
  for (size_t i = 0; i < vs.size(); ++i) {
    if (vs[i].is_1x1 == s.is_1x1 && vs[i].tm == tm && vs[i].tn == tn) return static_cast<int>(i);
  }
  return 0;
}

// Without timings: the biggest tile that still gives every compute unit two work-groups;
// else the smallest tile with the reduction split until it does.
ConvGemmChoice Heuristic(const ClEnv& env, const ConvGemmShape& s) {
  ConvGemmChoice c;
  if (!env.is_gpu()) {  // CPU OpenCL devices: few, large work-groups
    c.variant = VariantNamed(s, 64, 64);
    return c;
  }
  const size_t target = 2 * static_cast<size_t>(std::max(1, env.compute_units()));
  for (auto [tm, tn] : {std::pair{128, 64}, {64, 64}, {64, 32}, {32, 32}}) {
    c.variant = VariantNamed(s, tm, tn);
    if (WorkGroups(s, ConvGemmVariants()[c.variant]) >= target) return c;
  }
  const size_t wgs = WorkGroups(s, ConvGemmVariants()[c.variant]);
  for (int sp : Splits(s)) {
    c.splits = sp;
    if (wgs * static_cast<size_t>(sp) >= target) break;
  }
  return c;
}

double MedianMs(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times every candidate on the setup queue (profiling enabled) with scratch buffers shaped
// like the node's, and returns the fastest.
Expected<ConvGemmChoice> Tune(ClEnv& env, const ConvGemmShape& s, cl_mem weights, cl_mem bias,
                              cl_mem ktab) {
  const size_t elem = env.fp16() ? 2 : 4;
  const size_t x_elems = static_cast<size_t>(s.n) * s.c * s.h * s.w;
  const size_t y_elems = static_cast<size_t>(s.n) * s.m * s.p();
  size_t part_floats = 0;
  for (int sp : Splits(s)) part_floats = std::max(part_floats, ConvGemmPartialFloats(s, {0, sp}));
  KILN_ASSIGN_OR_RETURN(ClBuffer x, CreateDeviceBuffer(env, x_elems * elem));
  KILN_ASSIGN_OR_RETURN(ClBuffer y, CreateDeviceBuffer(env, y_elems * elem));
  KILN_ASSIGN_OR_RETURN(ClBuffer part, CreateDeviceBuffer(env, part_floats * 4));
  const cl_uchar zero = 0;
  KILN_RETURN_IF_ERROR(
      ClCheck(api::EnqueueFillBuffer(env.setup_queue(), x.get(), &zero, 1, 0, x_elems * elem),
              "clEnqueueFillBuffer"));
  ClTensor xt{x.get(), 0, 0, x_elems * elem}, yt{y.get(), 0, 0, y_elems * elem};
  ClTensor pt{part.get(), 0, 0, part_floats * 4};
  const ConvGemmBuffers b{&xt, weights, bias, nullptr, &yt, ktab, &pt};
  KILN_ASSIGN_OR_RETURN(ClKernelObject reduce, env.CreateKernel("conv_splitk_reduce"));
  ConvGemmChoice best;
  double best_ms = 1e30;
  for (int v : Variants(s)) {
    KILN_ASSIGN_OR_RETURN(ClKernelObject gemm, env.CreateKernel(ConvGemmVariants()[v].name));
    for (int sp : Splits(s)) {
      const ConvGemmChoice c{v, sp};
      KILN_RETURN_IF_ERROR(BindConvGemm(gemm.get(), reduce.get(), s, c, b, ActivationParams{}));
      std::vector<double> times;
      for (int rep = 0; rep < 4; ++rep) {
        ClLaunchEvents ev;
        ClLaunch launch(env.setup_queue(), &ev.first, &ev.last);
        KILN_RETURN_IF_ERROR(LaunchConvGemm(launch, gemm.get(), reduce.get(), s, c));
        KILN_RETURN_IF_ERROR(ClCheck(api::WaitForEvents(1, &ev.last), "clWaitForEvents"));
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ev.first, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, nullptr);
        clGetEventProfilingInfo(ev.last, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr);
        if (rep > 0) times.push_back(static_cast<double>(t1 - t0) * 1e-6);  // first: warm-up
      }
      const double ms = MedianMs(times);
      if (ms < best_ms) {
        best_ms = ms;
        best = c;
      }
    }
  }
  return best;
}

}  // namespace

std::string ConvGemmShape::Key() const {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "conv_gemm n%d c%d h%d w%d m%d k%d o%dx%d s%dx%d p%dx%d%s", n, c,
                h, w, m, k, oh, ow, sh, sw, ph, pw, is_1x1 ? " 1x1" : "");
  return buf;
}

std::string ConvGemmChoice::ToString() const {
  return std::string(ConvGemmVariants()[static_cast<size_t>(variant)].name) + " splits " +
         std::to_string(splits);
}

bool ConvGemmChoice::Parse(const std::string& s, ConvGemmChoice* out) {
  const size_t sp = s.find(" splits ");
  if (sp == std::string::npos) return false;
  const std::string name = s.substr(0, sp);
  const auto vs = ConvGemmVariants();
  for (size_t i = 0; i < vs.size(); ++i) {
    if (name == vs[i].name) {
      const int splits = std::atoi(s.c_str() + sp + 8);
      if (splits < 1 || splits > 64) return false;
      *out = ConvGemmChoice{static_cast<int>(i), splits};
      return true;
    }
  }
  return false;
}

size_t ConvGemmPartialFloats(const ConvGemmShape& s, const ConvGemmChoice& c) {
  return c.splits > 1 ? static_cast<size_t>(c.splits) * s.n * s.m * s.p() : 0;
}

Status BindConvGemm(cl_kernel gemm, cl_kernel reduce, const ConvGemmShape& s,
                    const ConvGemmChoice& c, const ConvGemmBuffers& b,
                    const ActivationParams& act) {
  ClArgs a(gemm);
  a.Tensor(b.x).Mem(b.weights).Mem(b.bias).Tensor(b.res).I32(b.res != nullptr).Tensor(b.y);
  a.Mem(b.ktab).Mem(b.part ? b.part->mem : nullptr).I32(s.m).I32(s.mpad).I32(s.k).I32(s.p());
  a.I32(s.h).I32(s.w).I32(s.ow).I32(s.sh).I32(s.sw).I32(s.ph).I32(s.pw).I32(s.c * s.h * s.w);
  a.I32(KChunk(s, c.splits)).I32(c.splits);
  a.I32(static_cast<int>(act.kind)).F32(act.alpha).F32(act.beta);
  KILN_RETURN_IF_ERROR(a.status(ConvGemmVariants()[static_cast<size_t>(c.variant)].name));
  if (c.splits == 1) return Status::Ok();
  ClArgs r(reduce);
  r.Mem(b.part->mem).I32(c.splits).I32(s.n * s.m * s.p()).Mem(b.bias).I32(s.m).I32(s.p());
  r.Tensor(b.res).I32(b.res != nullptr).Tensor(b.y);
  r.I32(static_cast<int>(act.kind)).F32(act.alpha).F32(act.beta);
  return r.status("conv_splitk_reduce");
}

Status LaunchConvGemm(ClLaunch& launch, cl_kernel gemm, cl_kernel reduce, const ConvGemmShape& s,
                      const ConvGemmChoice& c) {
  const ConvGemmVariant& v = ConvGemmVariants()[static_cast<size_t>(c.variant)];
  const size_t local[3] = {static_cast<size_t>(v.tn / v.rn), static_cast<size_t>(v.tm / v.rm), 1};
  const size_t global[3] = {Ceil(s.p(), v.tn) * local[0], Ceil(s.m, v.tm) * local[1],
                            static_cast<size_t>(s.n * c.splits)};
  KILN_RETURN_IF_ERROR(launch.Run(gemm, 3, global, local));
  if (c.splits == 1) return Status::Ok();
  const size_t total = static_cast<size_t>(s.n) * s.m * s.p();
  const size_t rlocal = 128, rglobal = (total + rlocal - 1) / rlocal * rlocal;
  return launch.Run(reduce, 1, &rglobal, &rlocal);
}

Expected<ConvGemmChoice> ChooseConvGemm(ClEnv& env, const ConvGemmShape& s, cl_mem weights,
                                        cl_mem bias, cl_mem ktab) {
  const std::string key = s.Key();
  ConvGemmChoice c;
  if (auto cached = env.TunedChoice(key); cached && ConvGemmChoice::Parse(*cached, &c) &&
                                          c.variant >= 0 &&
                                          ConvGemmVariants()[c.variant].is_1x1 == s.is_1x1) {
    return c;
  }
  if (!env.tuning()) return Heuristic(env, s);
  KILN_ASSIGN_OR_RETURN(c, Tune(env, s, weights, bias, ktab));
  env.RecordChoice(key, c.ToString());
  return c;
}

}  // namespace kiln::opencl
