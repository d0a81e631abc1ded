// kiln keygen --out PREFIX: a new Ed25519 signing key pair (PREFIX.key 0600, PREFIX.pub).
#include <iostream>
#include <memory>

#include "serializer/signing.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"

namespace kiln::cli {

void RegisterKeygen(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "keygen", "Generate an Ed25519 key pair: PREFIX.key (private, mode 0600) and PREFIX.pub");
  auto prefix = std::make_shared<std::string>();
  cmd->add_option("--out,-o", *prefix, "Output prefix (writes PREFIX.key and PREFIX.pub)")
      ->required();
  cmd->callback([exit_code, prefix] {
    RunCommand("keygen", exit_code, [&]() -> Status {
      KILN_ASSIGN_OR_RETURN(signing::PrivateKey key, signing::PrivateKey::Generate());
      KILN_RETURN_IF_ERROR(key.WritePair(*prefix));
      KILN_ASSIGN_OR_RETURN(signing::PublicKey pub, key.public_key());
      std::cout << "wrote " << *prefix << ".key (private, keep secret) and " << *prefix
                << ".pub\nkey id " << pub.key_id() << "\n";
      return Status::Ok();
    });
  });
}

}  // namespace kiln::cli
