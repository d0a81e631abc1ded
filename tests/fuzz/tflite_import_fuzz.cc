// libFuzzer target for the TFLite import path that `kiln inspect MODEL.tflite` takes:
// FlatBuffers verification, the model checks, the op-by-op import into Kiln's IR (layout
// forms, Q/DQ, constants), shape inference with constant folding (reference kernels), graph
// verification, and the IR text dump.
// Seeds: tests/fuzz/corpus/tflite_import (replayed on every CI run) plus, in scripts/fuzz.sh,
// the TFLite test fixtures of tests/tflite/.
#include <cstdint>
#include <span>

#include "compiler/frontend.h"
#include "ir/text_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto graph = kiln::ImportTfliteBytes(std::span<const uint8_t>(data, size), {});
  if (graph.ok()) {
    volatile size_t sink = kiln::GraphToText(*graph).size();
    (void)sink;
  }
  return 0;
}
