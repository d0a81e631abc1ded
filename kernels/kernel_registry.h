// One registry keyed by (op, backend name, dtype, layout, isa) -> kernel factory. Registration is
// explicit: Global() calls the reference kernels' register functions, then the build's list of
// backends (RegisterBackendKernels).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel.h"

namespace kiln {

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

// The top of the x86 chain (what `--target cpu` packs for): packing picks the best kernel at or
// below it, so files pack for the fastest kernels Kiln has. Weight layouts do not depend on
// the flavour (every packed layout has a portable kScalar kernel), so such a file still runs
// on a CPU without AVX-512, at the best flavour that CPU has.
inline constexpr Isa kBestCpuIsa = Isa::kAvx512Vnni;

struct KernelKey {
  OpType op = OpType::kUnknown;
  // The backend whose executor runs it, by its one name (backends/backend.h): "cpu", "opencl".
  std::string backend = kExecutorCpu;
  DType dtype = DType::kUndefined;  // dispatch dtype; kUndefined registers for any dtype
  Layout layout = Layout::kPlain;
  Isa isa = Isa::kReference;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>()>;

// The weight layout a kernel wants the compiler to produce offline: input `input` (a
// constant) rewritten into `layout` (ir/layout.h). The runtime binds it in place.
struct WeightPacking {
  size_t input = 1;
  Layout layout = Layout::kPlain;
};

// What a kernel can do beyond its key.
struct KernelTraits {
  // Whether the kernel handles this node's shapes and attributes (null: every node of its
  // key). Independent of the inputs' layouts, which the rules below decide.
  bool (*accepts)(const Graph& graph, const Node& node) = nullptr;
  // The weight layout the kernel reads, which the compiler's pack-weights pass produces:
  // input `packing->input` must be in `packing->layout`, every other input plain. A kScalar
  // (portable) kernel must read every layout a faster one asks for, so that a file packed for
  // one ISA runs on a CPU without it.
  std::optional<WeightPacking> packing;
  // Reads its weights (input 1) in any layout ir/layout.h can unpack (the reference kernels,
  // which unpack once at prepare; the oracle's convenience).
  bool any_weight_layout = false;
  // The layout of every other input (activations, residuals); 1-D inputs such as a bias may
  // always be plain, and [N, C, 1, 1] ones in any layout with the same bytes
  // (LayoutsShareBytes). The output's layout is the key's.
  Layout data_layout = Layout::kPlain;
  // Reads its data inputs in whatever layout they are stored (Reorder; the reference kernels'
  // layout adapter, which unpacks blocked ones).
  bool any_data_layout = false;
};

class KernelRegistry {
 public:
  static KernelRegistry& Global();  // populated on first use

  void Register(KernelKey key, KernelFactory factory, KernelTraits traits = {});

  struct Entry {
    KernelKey key;
    KernelFactory factory;
    KernelTraits traits;
  };

  // Finds the best kernel for `node` on backend `backend`: exact dtype before wildcard, the highest
  // isa not above `max_isa`, among those whose traits accept the node and its input layouts.
  // The dispatch dtype is the first present input's (or, with no inputs, the first output's).
  const Entry* FindEntry(const Graph& graph, const Node& node, std::string_view backend,
                         Isa max_isa) const;
  // The kernel the pack-weights pass packs for: the best one that asks for a weight layout
  // and accepts the node, whatever layout its weights are in now.
  const Entry* FindPackingEntry(const Graph& graph, const Node& node, std::string_view backend,
                                Isa max_isa) const;
  // Whether a kernel of at least `min_isa` (and at most `max_isa`) would run `node` with its
  // output in `out_layout` and its data inputs in `data_layout`, its weights as they are now
  // or, still plain, once packed into the kernel's layout: what a layout pass asks before it
  // rewrites the values and the weights are packed (the node's own layouts ignored).
  bool SupportsLayouts(const Graph& graph, const Node& node, std::string_view backend, Isa min_isa,
                       Isa max_isa, Layout out_layout, Layout data_layout) const;
  const KernelFactory* Find(const Graph& graph, const Node& node, std::string_view backend,
                            Isa max_isa) const {
    const Entry* e = FindEntry(graph, node, backend, max_isa);
    return e ? &e->factory : nullptr;
  }
  static DType DispatchDType(const Graph& graph, const Node& node);
  // Whether the node's input layouts are what the traits say the kernel reads.
  static bool LayoutsMatch(const KernelTraits& traits, const Graph& graph, const Node& node);
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// The kernels of every backend built into this tree (backends/<name>/kernels). Defined in a file
// CMake writes from the build's list of backends (cmake/KilnBackends.cmake), so the core
// registry includes no backend: a backend is added to the list, not to this file.
void RegisterBackendKernels(KernelRegistry& r);

// Reference (oracle) kernels, one function per op family; defined in kernels/reference/.
void RegisterReferenceNnKernels(KernelRegistry& r);
void RegisterReferenceElementwiseKernels(KernelRegistry& r);
void RegisterReferenceTensorKernels(KernelRegistry& r);
void RegisterReferenceQuantizedKernels(KernelRegistry& r);

// Helper for registering a kernel class T (default constructible).
template <typename T>
void RegisterKernel(KernelRegistry& r, OpType op, DType dtype,
                    std::string_view backend = kExecutorCpu, Isa isa = Isa::kReference,
                    Layout layout = Layout::kPlain, KernelTraits traits = {}) {
  r.Register(
      KernelKey{op, std::string(backend), dtype, layout, isa}, [] { return std::make_unique<T>(); },
      std::move(traits));
}

}  // namespace kiln
