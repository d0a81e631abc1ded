// libFuzzer target for the ONNX import path that `kiln inspect MODEL.onnx` takes: protobuf
// decode, structural validation, native per-opset import, IR building, shape inference with
// constant folding (reference kernels), graph verification, and the IR text dump.
// Seeds: tests/fuzz/corpus/onnx_import (replayed on every CI run) plus, in scripts/fuzz.sh, the
// ONNX node-test models of Debian's libonnx-testdata.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "compiler/frontend.h"
#include "ir/text_dump.h"

namespace {

// External data is resolved against an empty private folder, so a fuzzed location can never
// read a real file.
const std::string& EmptyDir() {
  static const std::string dir = [] {
    char templ[] = "/tmp/kiln_onnx_fuzz_XXXXXX";
    const char* made = mkdtemp(templ);
    if (!made) std::abort();
    return std::string(made);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  kiln::OnnxParseOptions options;
  auto graph = kiln::ImportOnnxBytes(bytes, EmptyDir(), options);
  if (graph.ok()) {
    volatile size_t sink = kiln::GraphToText(*graph).size();
    (void)sink;
  }
  return 0;
}
