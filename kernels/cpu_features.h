// CPU feature detection (cpuid + xgetbv), done once and cached, and the best CPU kernel flavour
// (Isa) this machine can run. Kernel tables are chosen from it at session creation.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/status.h"
#include "kernels/kernel_registry.h"

namespace kiln::cpu {

struct CpuFeatures {
  // Each flag means "the CPU has it AND the OS saves the registers it needs" (xgetbv).
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
  bool avx512vnni = false;
  // Not an Isa of its own: the avx512vnni int8 table adds kernels that need it where present.
  bool avx512vbmi = false;
};

// Detected on the first call, then cached (thread-safe static).
const CpuFeatures& GetCpuFeatures();

// Per-core data cache sizes, for cache blocking: 32 KiB L1d on Intel cores up to Skylake-SP
// and Cascade Lake, 48 KiB on Ice Lake and later and on AMD Zen 5, 8-way on Zen 3 and
// Skylake, 12-way on Ice Lake and Zen 5. From the OS (sysconf); where it does not say, 32 KiB
// and 8 ways.
struct CacheSizes {
  int64_t l1d_bytes = 32 * 1024;
  int64_t l1d_ways = 8;  // associativity: l1d_bytes / 64 / l1d_ways sets of 64-byte lines
};
const CacheSizes& GetCacheSizes();

// Whether this CPU can execute kernels built for `isa` (kReference and kScalar always can;
// non-CPU flavours never).
bool CpuSupports(Isa isa);

// The most specialised CPU flavour this machine runs: kAvx512Vnni > kAvx512 > kAvx2 > kScalar.
Isa BestCpuIsa();

// A cap on the CPU flavours a session may pick, lowered to what this CPU runs (the x86
// flavours form a chain, so the lower of the two is safe). kReference stays the oracle.
Isa ClampToCpu(Isa cap);

// Parses a `--isa` value: auto | reference | scalar | avx2 | avx512 | avx512vnni. It is a cap:
// "auto" is BestCpuIsa(), a named flavour is ClampToCpu(flavour).
Expected<Isa> ParseCpuIsa(std::string_view name);

std::string_view IsaName(Isa isa);
// The CPU flavour called `name` (reference, scalar, avx2, avx512, avx512vnni), whatever this
// CPU runs: for offline targets (kiln compile --target cpu:ISA), not for sessions.
Expected<Isa> IsaFromName(std::string_view name);

}  // namespace kiln::cpu
