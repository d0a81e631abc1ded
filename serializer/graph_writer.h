// IR Graph -> graph, weights and metadata section bytes (uncompressed).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "serializer/metadata.h"

namespace kiln::format {

struct GraphSections {
  std::vector<uint8_t> graph;    // flatbuffers kiln.fb.Graph
  std::vector<uint8_t> weights;  // every constant at a 64-byte aligned offset
};

Expected<GraphSections> WriteGraphSections(const Graph& graph);
std::vector<uint8_t> WriteMetadataSection(const ModelMetadata& metadata);

}  // namespace kiln::format
