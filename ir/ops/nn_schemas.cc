// Schemas (arity, constant inputs, dtype/shape inference) of the nn op family.
#include "ir/op_schema.h"

namespace kiln {

void RegisterNnSchemas(SchemaRegistry& r) { (void)r; }

}  // namespace kiln
