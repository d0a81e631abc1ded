// kiln sign (not implemented yet).
#include <iostream>

#include "tools/kiln/commands.h"

namespace kiln::cli {

void RegisterSign(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("sign", "(not implemented yet)");
  cmd->callback([exit_code] {
    std::cerr << "kiln sign: not implemented yet\n";
    *exit_code = 2;
  });
}

}  // namespace kiln::cli
