// `kiln inspect --tensors`: every tensor of a model as compiled, with its dtype, shape, layout
// and, for quantized tensors, scale and offset (zero point), per tensor or per channel.
#pragma once

#include <ostream>

#include "ir/graph.h"

namespace kiln::cli {

void PrintTensorTable(std::ostream& os, const Graph& g);
// A JSON array of {"name", "dtype", "shape", "constant", "scale", "offset", "axis"}.
void PrintTensorJson(std::ostream& os, const Graph& g);

}  // namespace kiln::cli
