// A stable, readable text form of the IR (for --print-ir, pass tests and debugging).
#pragma once

#include <string>

#include "ir/graph.h"

namespace kiln {

// Example:
//   graph main(%data_0: f32[1,3,224,224]) -> (%prob: f32[1,1000])
//     const %w: f32[64,3,3,3] (6912 bytes)
//     %conv1 = Conv(%data_0, %w, %b) {kernel_shape=[3,3], strides=[2,2]} @cpu  # node conv1
std::string GraphToText(const Graph& graph);

}  // namespace kiln
