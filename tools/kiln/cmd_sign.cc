// kiln sign FILE.kiln --key PREFIX.key [-o OUT]: (re-)sign a compiled model.
#include <iostream>
#include <memory>

#include "serializer/model_writer.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"

namespace kiln::cli {
namespace {

struct SignArgs {
  std::string file;
  std::string key;
  std::string out;
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
  cmd->callback([exit_code, args] {
    RunCommand("sign", exit_code, [&]() -> Status {
      KILN_ASSIGN_OR_RETURN(signing::PrivateKey key, signing::PrivateKey::FromPemFile(args->key));
      KILN_ASSIGN_OR_RETURN(signing::PublicKey pub, key.public_key());
      const std::string out = args->out.empty() ? args->file : args->out;
      KILN_RETURN_IF_ERROR(SignModelFile(args->file, key, out));
      std::cout << "signed " << out << " with key id " << pub.key_id() << "\n";
      return Status::Ok();
    });
  });
}

}  // namespace kiln::cli
