// One registry keyed by (op, executor, dtype, layout, isa) -> kernel factory. Registration is
// explicit: RegisterAllKernels() calls each executor's listed register functions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace kiln {

enum class ExecutorKind : int32_t { kCpu = 0, kOpenCL = 1, kDsp = 2 };
// Instruction-set / implementation flavour of a kernel; higher is preferred when available.
// In-memory only (never persisted). kReference is the oracle, kScalar the portable C++ fast
// path; the x86 flavours form a chain (each runs on every CPU that runs the next).
enum class Isa : int32_t {
  kReference = 0,
  kScalar = 1,
  kAvx2 = 2,        // AVX2 + FMA
  kAvx512 = 3,      // AVX-512 F/BW/VL/DQ
  kAvx512Vnni = 4,  // + VNNI (int8 dot products)
  kNeon = 5,
  kOpenCL = 10,
  kHvx = 20,
};

const char* ExecutorKindName(ExecutorKind kind);

struct KernelKey {
  OpType op = OpType::kUnknown;
  ExecutorKind executor = ExecutorKind::kCpu;
  DType dtype = DType::kUndefined;  // dispatch dtype; kUndefined registers for any dtype
  Layout layout = Layout::kPlain;
  Isa isa = Isa::kReference;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>()>;

class KernelRegistry {
 public:
  static KernelRegistry& Global();  // populated by RegisterAllKernels() on first use

  void Register(KernelKey key, KernelFactory factory);

  // Finds the best kernel for `node` on `executor`: exact dtype before wildcard, the highest
  // isa not above `max_isa`. The dispatch dtype is the first present input's (or, with no
  // inputs, the first output's).
  const KernelFactory* Find(const Graph& graph, const Node& node, ExecutorKind executor,
                            Isa max_isa) const;
  static DType DispatchDType(const Graph& graph, const Node& node);

  struct Entry {
    KernelKey key;
    KernelFactory factory;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// Reference (oracle) kernels, one function per op family; defined in kernels/reference/.
void RegisterReferenceNnKernels(KernelRegistry& r);
void RegisterReferenceElementwiseKernels(KernelRegistry& r);
void RegisterReferenceTensorKernels(KernelRegistry& r);
// The CPU fast kernels (kernels/cpu/), registered at each CPU flavour they are built for.
void RegisterCpuFastKernels(KernelRegistry& r);

// Helper for registering a kernel class T (default constructible).
template <typename T>
void RegisterKernel(KernelRegistry& r, OpType op, DType dtype,
                    ExecutorKind executor = ExecutorKind::kCpu, Isa isa = Isa::kReference,
                    Layout layout = Layout::kPlain) {
  r.Register(KernelKey{op, executor, dtype, layout, isa}, [] { return std::make_unique<T>(); });
}

}  // namespace kiln
