// CPU feature detection against the compiler's own cpuid probe, and --isa parsing (a cap that
// never exceeds what this CPU runs).
#include "kernels/cpu_features.h"

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "backends/cpu/tables/ukernel_table.h"

namespace kiln::cpu {
namespace {

TEST(CpuFeaturesTest, AgreesWithCompilerProbe) {
  const CpuFeatures& f = GetCpuFeatures();
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  EXPECT_EQ(f.avx2, static_cast<bool>(__builtin_cpu_supports("avx2")));
  EXPECT_EQ(f.fma, static_cast<bool>(__builtin_cpu_supports("fma")));
  EXPECT_EQ(f.avx512f, static_cast<bool>(__builtin_cpu_supports("avx512f")));
  EXPECT_EQ(f.avx512bw, static_cast<bool>(__builtin_cpu_supports("avx512bw")));
  EXPECT_EQ(f.avx512vl, static_cast<bool>(__builtin_cpu_supports("avx512vl")));
  EXPECT_EQ(f.avx512vnni, static_cast<bool>(__builtin_cpu_supports("avx512vnni")));
#endif
  EXPECT_EQ(&f, &GetCpuFeatures());  // cached once
}

TEST(CpuFeaturesTest, IsaChainAndTables) {
  EXPECT_TRUE(CpuSupports(Isa::kReference));
  EXPECT_TRUE(CpuSupports(Isa::kScalar));
  if (CpuSupports(Isa::kAvx512Vnni)) {
    EXPECT_TRUE(CpuSupports(Isa::kAvx512));
  }
  if (CpuSupports(Isa::kAvx512)) {
    EXPECT_TRUE(CpuSupports(Isa::kAvx2));
  }
  EXPECT_FALSE(CpuSupports(Isa::kOpenCL));
  EXPECT_TRUE(CpuSupports(BestCpuIsa()));
  // A table exists exactly for the flavours this CPU runs; the portable one always.
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Vnni}) {
    EXPECT_EQ(GetCpuKernels(isa) != nullptr, CpuSupports(isa)) << IsaName(isa);
  }
  EXPECT_FALSE(AvailableCpuKernels().empty());
  EXPECT_EQ(AvailableCpuKernels().front()->isa, Isa::kScalar);
}

TEST(CpuFeaturesTest, ParseIsaIsACap) {
  auto best = ParseCpuIsa("auto");
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(*best, BestCpuIsa());
  EXPECT_EQ(*ParseCpuIsa("reference"), Isa::kReference);
  EXPECT_EQ(*ParseCpuIsa("scalar"), Isa::kScalar);
  const std::pair<const char*, Isa> named[] = {
      {"avx2", Isa::kAvx2}, {"avx512", Isa::kAvx512}, {"avx512vnni", Isa::kAvx512Vnni}};
  for (const auto& [name, requested] : named) {
    auto isa = ParseCpuIsa(name);
    ASSERT_TRUE(isa.ok()) << name;
    EXPECT_TRUE(CpuSupports(*isa)) << name;  // lowered when the CPU lacks it
    EXPECT_LE(static_cast<int>(*isa), static_cast<int>(BestCpuIsa()));
    // What the CPU runs comes back as asked (and by its name); more is lowered to the best
    // it has (an AVX2-only CPU: avx512 -> avx2).
    if (CpuSupports(requested)) {
      EXPECT_EQ(*isa, requested) << name;
      EXPECT_EQ(std::string(IsaName(*isa)), name);
    } else {
      EXPECT_EQ(*isa, BestCpuIsa()) << name;
    }
  }
  EXPECT_EQ(ClampToCpu(Isa::kReference), Isa::kReference);
  EXPECT_EQ(ClampToCpu(Isa::kAvx512Vnni), BestCpuIsa());
  auto bad = ParseCpuIsa("sse9");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("avx512vnni"), std::string::npos);
}

}  // namespace
}  // namespace kiln::cpu
