// The one OpenCL program every Kiln GPU kernel lives in: the embedded .cl sources
// (kernels/opencl/cl/, built into the binary by cmake/embed_cl.cmake) assembled per precision,
// the tile shapes the tiled convolution is instantiated with, and the source hash that keys
// program-binary caches.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace kiln::opencl {

struct ClSourceFile {
  const char* name;
  const char* text;
};
extern const ClSourceFile kClSources[];
extern const size_t kClSourceCount;

// One instantiation of cl/conv_gemm.cl.
struct ConvGemmVariant {
  const char* name;  // kernel name
  int tm, tn;        // work-group tile: output channels x output pixels
  int rm, rn;        // per work-item registers
  bool is_1x1;       // 1x1, stride 1, no padding: reads the input directly
};
std::span<const ConvGemmVariant> ConvGemmVariants();
inline constexpr int kConvGemmTk = 16;  // reduction step of every variant

// The whole program's source for f32 or f16 storage.
std::string ClProgramSource(bool fp16);
// Options passed to clBuildProgram.
const char* ClBuildOptions();

}  // namespace kiln::opencl
