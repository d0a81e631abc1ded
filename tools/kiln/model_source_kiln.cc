// Loading .kiln files for the CLI (placeholder until the model format lands).
#include "tools/kiln/model_source.h"

namespace kiln::cli {

Expected<std::shared_ptr<const Graph>> LoadKilnModel(const std::string& path,
                                                     const ModelSourceOptions&) {
  return Unsupported("cannot load .kiln file '" + path + "' yet");
}

}  // namespace kiln::cli
