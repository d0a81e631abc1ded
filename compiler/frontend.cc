// ImportOnnx, ImportTflite: parse, propagate shapes and fold constants, verify.
#include "compiler/frontend.h"

#include "compiler/passes/fold_constants.h"
#include "ir/verifier.h"

namespace kiln {

namespace {

Expected<Graph> FoldAndVerify(Graph graph, const std::string& where) {
  Status st = PropagateShapesAndFold(graph);
  if (!st.ok()) return st.WithContext(where);
  st = VerifyGraph(graph);
  if (!st.ok()) return st.WithContext(where + ": imported graph failed verification");
  return graph;
}

}  // namespace

Expected<Graph> ImportOnnx(const std::string& path, const OnnxParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(Graph graph, ParseOnnxFile(path, options));
  return FoldAndVerify(std::move(graph), "'" + path + "'");
}

Expected<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& base_dir,
                                const OnnxParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(Graph graph, ParseOnnxBytes(bytes, base_dir, options));
  return FoldAndVerify(std::move(graph), "ONNX model");
}

Expected<Graph> ImportTflite(const std::string& path, const TfliteParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(Graph graph, ParseTfliteFile(path, options));
  return FoldAndVerify(std::move(graph), "'" + path + "'");
}

Expected<Graph> ImportTfliteBytes(std::span<const uint8_t> bytes,
                                  const TfliteParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(Graph graph, ParseTfliteBytes(bytes, options));
  return FoldAndVerify(std::move(graph), "TFLite model");
}

}  // namespace kiln
