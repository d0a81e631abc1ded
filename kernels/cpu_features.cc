// cpuid/xgetbv probing. The OS check matters: a CPU with AVX-512 under an OS (or hypervisor)
// that does not save the zmm/opmask state faults on the first AVX-512 instruction.
#include "kernels/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <unistd.h>

#include <cstdint>
#include <string>

namespace kiln::cpu {
namespace {

#if defined(__x86_64__) || defined(__i386__)
uint64_t ReadXcr0() {
  uint32_t eax = 0, edx = 0;
  // xgetbv with ecx = 0; encoded as bytes so no -mxsave flag is needed.
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

CpuFeatures Detect() {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return f;
  const unsigned max_leaf = eax;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  const bool osxsave = (ecx >> 27) & 1;
  const bool avx = (ecx >> 28) & 1;
  const bool fma = (ecx >> 12) & 1;
  if (!osxsave || !avx) return f;
  const uint64_t xcr0 = ReadXcr0();
  const bool os_ymm = (xcr0 & 0x6) == 0x6;    // SSE + AVX state
  const bool os_zmm = (xcr0 & 0xe6) == 0xe6;  // + opmask, ZMM_Hi256, Hi16_ZMM
  if (!os_ymm || max_leaf < 7) return f;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  f.avx2 = (ebx >> 5) & 1;
  f.fma = fma;
  if (os_zmm) {
    f.avx512f = (ebx >> 16) & 1;
    f.avx512dq = (ebx >> 17) & 1;
    f.avx512bw = (ebx >> 30) & 1;
    f.avx512vl = (ebx >> 31) & 1;
    f.avx512vnni = (ecx >> 11) & 1;
    f.avx512vbmi = (ecx >> 1) & 1;
  }
  return f;
}
#else
CpuFeatures Detect() { return {}; }
#endif

}  // namespace

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

const CacheSizes& GetCacheSizes() {
  static const CacheSizes sizes = [] {
    CacheSizes c;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    // Ignore implausible answers (0 or -1 where unknown, whole-package sums in some VMs).
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (l1 >= 16 * 1024 && l1 <= 256 * 1024) c.l1d_bytes = l1;
#endif
#if defined(_SC_LEVEL1_DCACHE_ASSOC)
    const long ways = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
    if (ways >= 2 && ways <= 32) c.l1d_ways = ways;
#endif
    return c;
  }();
  return sizes;
}

bool CpuSupports(Isa isa) {
  const CpuFeatures& f = GetCpuFeatures();
  const bool avx2 = f.avx2 && f.fma;
  const bool avx512 = avx2 && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq;
  switch (isa) {
    case Isa::kReference:
    case Isa::kScalar:
      return true;
    case Isa::kAvx2:
      return avx2;
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx512Vnni:
      return avx512 && f.avx512vnni;
    default:
      return false;
  }
}

Isa BestCpuIsa() {
  for (Isa isa : {Isa::kAvx512Vnni, Isa::kAvx512, Isa::kAvx2}) {
    if (CpuSupports(isa)) return isa;
  }
  return Isa::kScalar;
}

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kReference:
      return "reference";
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx512Vnni:
      return "avx512vnni";
    case Isa::kNeon:
      return "neon";
    case Isa::kOpenCL:
      return "opencl";
    case Isa::kHvx:
      return "hvx";
  }
  return "unknown";
}

Expected<Isa> IsaFromName(std::string_view name) {
  for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Vnni}) {
    if (name == IsaName(isa)) return isa;
  }
  std::string message = "'";
  message.append(name).append("': expected reference, scalar, avx2, avx512 or avx512vnni");
  return InvalidArgument(std::move(message));
}

Expected<Isa> ParseCpuIsa(std::string_view name) {
  if (name == "auto") return BestCpuIsa();
  for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Vnni}) {
    if (name == IsaName(isa)) return ClampToCpu(isa);
  }
  return InvalidArgument("--isa '" + std::string(name) +
                         "': expected auto, reference, scalar, avx2, avx512 or avx512vnni");
}

Isa ClampToCpu(Isa cap) {
  if (cap == Isa::kReference) return cap;
  const Isa best = BestCpuIsa();
  return static_cast<int>(cap) < static_cast<int>(best) ? cap : best;
}

}  // namespace kiln::cpu
