// ImportOnnx: parse, propagate shapes and fold constants, verify.
#include "compiler/frontend.h"

#include "compiler/passes/fold_constants.h"
#include "ir/verifier.h"

namespace kiln {

Expected<Graph> ImportOnnx(const std::string& path, const OnnxParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(Graph graph, ParseOnnxFile(path, options));
  Status st = PropagateShapesAndFold(graph);
  if (!st.ok()) return st.WithContext("'" + path + "'");
  st = VerifyGraph(graph);
  if (!st.ok()) return st.WithContext("'" + path + "': imported graph failed verification");
  return graph;
}

}  // namespace kiln
