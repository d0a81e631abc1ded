// Model identity flags -> ModelMetadata.
#include "tools/kiln/identity_flags.h"

#include "serializer/model_identity.h"
#include "serializer/utc_time.h"

namespace kiln::cli {

void AddModelIdentityFlags(CLI::App& cmd, ModelIdentityArgs* args) {
  cmd.add_option("--model-id", args->model_id,
                 "Model id for the device's version policy ([A-Za-z0-9._-], with --model-version)");
  cmd.add_option("--model-version", args->model_version,
                 "Model version (0..2^64-1): a device that loaded version N refuses older ones");
  cmd.add_option("--not-before", args->not_before,
                 "Refused before this time (YYYY-MM-DDTHH:MM:SSZ, UTC)");
  cmd.add_option("--not-after", args->not_after,
                 "Refused after this time (YYYY-MM-DDTHH:MM:SSZ, UTC)");
}

Status ModelIdentityArgs::Apply(ModelMetadata* m) const {
  if (!model_id.empty()) m->model_id = model_id;
  if (!model_version.empty()) {
    KILN_ASSIGN_OR_RETURN(m->model_version, ParseModelVersion(model_version, "--model-version"));
  }
  if (!not_before.empty()) {
    KILN_ASSIGN_OR_RETURN(m->not_before_unix, ParseUtc(not_before, "--not-before"));
  }
  if (!not_after.empty()) {
    KILN_ASSIGN_OR_RETURN(m->not_after_unix, ParseUtc(not_after, "--not-after"));
  }
  Status s = CheckModelIdentity(*m);
  if (!s.ok())
    return InvalidArgument("--model-id/--model-version/--not-before/--not-after: " + s.message());
  return Status::Ok();
}

}  // namespace kiln::cli
