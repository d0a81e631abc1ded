// kiln compile (not implemented yet).
#include <iostream>

#include "tools/kiln/commands.h"

namespace kiln::cli {

void RegisterCompile(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("compile", "(not implemented yet)");
  cmd->callback([exit_code] {
    std::cerr << "kiln compile: not implemented yet\n";
    *exit_code = 2;
  });
}

}  // namespace kiln::cli
