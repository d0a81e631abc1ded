// Assembles the OpenCL program source from the embedded files.
#include "backends/opencl/kernels/cl_program.h"

#include <cstring>

namespace kiln::opencl {
namespace {

constexpr ConvGemmVariant kVariants[] = {
    {"conv_gemm_64x64", 64, 64, 4, 4, false},   {"conv_gemm_64x64_1x1", 64, 64, 4, 4, true},
    {"conv_gemm_32x32", 32, 32, 2, 2, false},   {"conv_gemm_32x32_1x1", 32, 32, 2, 2, true},
    {"conv_gemm_128x64", 128, 64, 8, 4, false}, {"conv_gemm_128x64_1x1", 128, 64, 8, 4, true},
    {"conv_gemm_64x32", 64, 32, 4, 2, false},   {"conv_gemm_64x32_1x1", 64, 32, 4, 2, true},
    {"conv_gemm_32x64", 32, 64, 2, 4, false},   {"conv_gemm_32x64_1x1", 32, 64, 2, 4, true},
};

const char* Source(const char* name) {
  for (size_t i = 0; i < kClSourceCount; ++i) {
    if (std::strcmp(kClSources[i].name, name) == 0) return kClSources[i].text;
  }
  return "";
}

}  // namespace

std::span<const ConvGemmVariant> ConvGemmVariants() { return kVariants; }

const char* ClBuildOptions() { return "-cl-std=CL1.2"; }

std::string ClProgramSource(bool fp16) {
  std::string s = fp16 ? "#define KILN_FP16 1\n" : "";
  s += Source("common.cl");
  for (const char* f : {"conv.cl", "pool.cl", "eltwise.cl", "tensor.cl", "linear.cl"}) {
    s += Source(f);
  }
  const std::string gemm = Source("conv_gemm.cl");
  for (const ConvGemmVariant& v : kVariants) {
    s += "#define CG_NAME " + std::string(v.name) + "\n#define CG_TM " + std::to_string(v.tm) +
         "\n#define CG_TN " + std::to_string(v.tn) + "\n#define CG_RM " + std::to_string(v.rm) +
         "\n#define CG_RN " + std::to_string(v.rn) + "\n#define CG_TK " +
         std::to_string(kConvGemmTk) + "\n#define CG_1X1 " + (v.is_1x1 ? "1" : "0") + "\n";
    s += gemm;
    s += "#undef CG_NAME\n#undef CG_TM\n#undef CG_TN\n#undef CG_RM\n#undef CG_RN\n#undef CG_TK\n"
         "#undef CG_1X1\n";
  }
  return s;
}

}  // namespace kiln::opencl
