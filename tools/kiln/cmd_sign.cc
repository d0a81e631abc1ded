// kiln sign FILE.kiln --key PREFIX.key [-o OUT] [--model-id ID --model-version N]
// [--not-before T] [--not-after T]: (re-)sign a compiled model, optionally setting its signed
// identity and validity first.
#include <iostream>
#include <memory>

#include "serializer/model_writer.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/identity_flags.h"

namespace kiln::cli {
namespace {

struct SignArgs {
  std::string file;
  std::string key;
  std::string out;
  ModelIdentityArgs identity;
};

}  // namespace

void RegisterSign(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "sign", "Sign (or re-sign) a .kiln file; its section hashes are checked first");
  auto args = std::make_shared<SignArgs>();
  cmd->add_option("file", args->file, "The .kiln file")->required();
  cmd->add_option("--key", args->key, "Ed25519 private key (PREFIX.key from kiln keygen)")
      ->required();
  cmd->add_option("-o,--out", args->out, "Output file (default: sign in place)");
  AddModelIdentityFlags(*cmd, &args->identity);
  cmd->callback([exit_code, args] {
    RunCommand("sign", exit_code, [&]() -> Status {
      KILN_ASSIGN_OR_RETURN(signing::PrivateKey key, signing::PrivateKey::FromPemFile(args->key));
      KILN_ASSIGN_OR_RETURN(signing::PublicKey pub, key.public_key());
      const std::string out = args->out.empty() ? args->file : args->out;
      MetadataEdit edit;
      if (args->identity.any()) {
        // Applied to the file's metadata: a flag left out keeps what the file has (so
        // --model-version alone bumps the version of a file that already has an id).
        const ModelIdentityArgs identity = args->identity;
        edit = [identity](ModelMetadata* m) { return identity.Apply(m); };
      }
      KILN_RETURN_IF_ERROR(SignModelFile(args->file, key, out, edit));
      std::cout << "signed " << out << " with key id " << pub.key_id() << "\n";
      return Status::Ok();
    });
  });
}

}  // namespace kiln::cli
