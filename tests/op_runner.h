// Runs one op through the real pipeline (schema inference + CPU session) for kernel tests.
#pragma once

#include <vector>

#include "ir/attribute.h"
#include "ir/host_tensor.h"
#include "ir/op_type.h"
#include "ir/status.h"
#include "kernels/kernel_registry.h"

namespace kiln::testing {

struct OpInput {
  HostTensor tensor;
  bool constant = false;  // bind as a constant value (needed for shape-determining inputs)
  bool omitted = false;   // an omitted optional input (kNoValue)
};

// Builds a one-node graph, infers shapes with the op's schema, runs it on the CPU reference
// executor and returns every output. `num_outputs` outputs are requested.
Expected<std::vector<HostTensor>> RunSingleOp(OpType op, const Attributes& attrs,
                                              const std::vector<OpInput>& inputs,
                                              size_t num_outputs = 1, int64_t opset = 17);

// Where RunSingleOpWith runs: the CPU flavour cap (clamped to this CPU) and the session's
// threads.
struct OpRunOptions {
  Isa max_isa = Isa::kReference;
  int threads = 1;
  int64_t opset = 17;
};
Expected<std::vector<HostTensor>> RunSingleOpWith(const OpRunOptions& options, OpType op,
                                                  const Attributes& attrs,
                                                  const std::vector<OpInput>& inputs,
                                                  size_t num_outputs = 1);

// The oracle check for fast kernels: runs the op on the reference kernels, then at every CPU
// flavour this machine runs (portable included) with 1 and 2 threads, and expects every f32
// output within |got - want| <= atol + rtol * |want| (other dtypes bit-equal).
void ExpectFastMatchesReference(OpType op, const Attributes& attrs,
                                const std::vector<OpInput>& inputs, float atol, float rtol,
                                size_t num_outputs = 1);

// Convenience constructors.
HostTensor MakeF32(Shape shape, std::vector<float> values);
HostTensor MakeI64(Shape shape, std::vector<int64_t> values);
std::vector<float> ToF32(const HostTensor& t);

}  // namespace kiln::testing
