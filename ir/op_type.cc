// OpType <-> name tables.
#include "ir/op_type.h"

namespace kiln {
namespace {

struct OpEntry {
  OpType op;
  std::string_view name;
};

constexpr OpEntry kOps[] = {
#define KILN_OP_ENTRY(name, onnx, value) {OpType::k##name, onnx},
    KILN_OP_LIST(KILN_OP_ENTRY)
#undef KILN_OP_ENTRY
};

constexpr OpType kOpTypes[] = {
#define KILN_OP_VALUE(name, onnx, value) OpType::k##name,
    KILN_OP_LIST(KILN_OP_VALUE)
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
    if (e.name == onnx_op_type) return e.op;
  }
  return std::nullopt;
}

const OpType* AllOpTypes(size_t* count) {
  *count = sizeof(kOpTypes) / sizeof(kOpTypes[0]);
  return kOpTypes;
}

}  // namespace kiln
