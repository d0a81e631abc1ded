// kiln run (not implemented yet).
#include <iostream>

#include "tools/kiln/commands.h"

namespace kiln::cli {

void RegisterRun(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("run", "(not implemented yet)");
  cmd->callback([exit_code] {
    std::cerr << "kiln run: not implemented yet\n";
    *exit_code = 2;
  });
}

}  // namespace kiln::cli
