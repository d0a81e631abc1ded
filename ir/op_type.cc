// OpType <-> name tables.
#include "ir/op_type.h"

namespace kiln {
namespace {

struct OpEntry {
  OpType op;
  std::string_view name;
  bool internal;
};

constexpr OpEntry kOps[] = {
#define KILN_OP_ENTRY(name, onnx, value) {OpType::k##name, onnx, false},
    KILN_OP_LIST(KILN_OP_ENTRY)
#undef KILN_OP_ENTRY
#define KILN_INTERNAL_OP_ENTRY(name, display, value) {OpType::k##name, display, true},
    KILN_INTERNAL_OP_LIST(KILN_INTERNAL_OP_ENTRY)
#undef KILN_INTERNAL_OP_ENTRY
};

constexpr OpType kOpTypes[] = {
#define KILN_OP_VALUE(name, onnx, value) OpType::k##name,
    KILN_OP_LIST(KILN_OP_VALUE) KILN_INTERNAL_OP_LIST(KILN_OP_VALUE)
#undef KILN_OP_VALUE
};

}  // namespace

std::string_view OpTypeName(OpType op) {
  for (const auto& e : kOps) {
    if (e.op == op) return e.name;
  }
  return "Unknown";
}

std::optional<OpType> OpTypeFromName(std::string_view onnx_op_type) {
  for (const auto& e : kOps) {
    if (!e.internal && e.name == onnx_op_type) return e.op;
  }
  return std::nullopt;
}

bool IsInternalOp(OpType op) {
  for (const auto& e : kOps) {
    if (e.op == op) return e.internal;
  }
  return false;
}

const OpType* AllOpTypes(size_t* count) {
  *count = sizeof(kOpTypes) / sizeof(kOpTypes[0]);
  return kOpTypes;
}

}  // namespace kiln
