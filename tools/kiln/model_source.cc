// Model loading for the CLI (placeholder until the CLI lands).
#include "tools/kiln/model_source.h"

namespace kiln::cli {

void AddModelSourceFlags(CLI::App&, ModelSourceOptions*, std::vector<std::string>*) {}
Status ParseInputShapes(const std::vector<std::string>&, ModelSourceOptions*) {
  return Status::Ok();
}
Expected<std::shared_ptr<const Graph>> LoadModel(const std::string& path,
                                                 const ModelSourceOptions&) {
  return Unsupported("cannot load '" + path + "' yet");
}

}  // namespace kiln::cli
