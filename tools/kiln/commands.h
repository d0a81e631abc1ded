// The kiln subcommands. Each lives in its own cmd_<name>.cc and registers itself here
// explicitly; main() lists them.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::cli {

// Each Register function adds its subcommand to `app`; the subcommand's callback sets
// *exit_code (0 = success) and prints errors to stderr.
void RegisterInspect(CLI::App& app, int* exit_code);
void RegisterRun(CLI::App& app, int* exit_code);
void RegisterValidate(CLI::App& app, int* exit_code);
void RegisterKeygen(CLI::App& app, int* exit_code);
void RegisterCompile(CLI::App& app, int* exit_code);
void RegisterSign(CLI::App& app, int* exit_code);
void RegisterVerify(CLI::App& app, int* exit_code);
void RegisterBench(CLI::App& app, int* exit_code);
void RegisterQuantize(CLI::App& app, int* exit_code);
void RegisterEval(CLI::App& app, int* exit_code);

}  // namespace kiln::cli
