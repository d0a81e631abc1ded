// kiln inspect (not implemented yet).
#include <iostream>

#include "tools/kiln/commands.h"

namespace kiln::cli {

void RegisterInspect(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("inspect", "(not implemented yet)");
  cmd->callback([exit_code] {
    std::cerr << "kiln inspect: not implemented yet\n";
    *exit_code = 2;
  });
}

}  // namespace kiln::cli
