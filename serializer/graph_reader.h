// Builds the IR Graph (and the metadata) from verified, decompressed section bytes.
#pragma once

#include "ir/graph.h"
#include "serializer/container_reader.h"
#include "serializer/metadata.h"

namespace kiln::format {

// Runs the flatbuffers Verifier, then checks every id, enum, shape and weight range before
// building. Constants borrow `weights` (no copy). Does not run ir VerifyGraph.
Expected<Graph> ReadGraph(const SectionBytes& graph, const SectionBytes& weights);

Expected<ModelMetadata> ReadMetadata(const SectionBytes& metadata);

}  // namespace kiln::format
