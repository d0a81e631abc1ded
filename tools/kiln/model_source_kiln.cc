// Loading .kiln files for the CLI: builds the trust store from the flags and runs the verified
// runtime loader (runtime/model.h).
#include "runtime/model.h"
#include "tools/kiln/model_source.h"

namespace kiln::cli {

Expected<LoadedModel> LoadKilnModel(const std::string& path, const ModelSourceOptions& options) {
  TrustStore trust;
  for (const std::string& pub : options.public_keys) {
    KILN_RETURN_IF_ERROR(trust.AddPublicKeyFile(pub).WithContext("--pub"));
  }
  if (!options.trust_dir.empty()) {
    KILN_RETURN_IF_ERROR(trust.AddDirectory(options.trust_dir).WithContext("--trust-dir"));
  } else {
    KILN_RETURN_IF_ERROR(trust.AddFromEnvironment());
  }
  LoadOptions load;
  load.allow_unsigned = options.allow_unsigned;
  load.map_weights = options.map_weights;
  KILN_ASSIGN_OR_RETURN(load.policy, options.policy.ToPolicy());
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::Load(path, trust, load));
  LoadedModel m;
  m.graph = model->graph();
  m.plan = model->plan();
  m.kiln = model;
  m.payloads = {model->kernel_binaries(), model->dsp_programs()};
  return m;
}

}  // namespace kiln::cli
