// kiln: the command line of the offline toolchain and the runtime.
#include <cstdio>

#include "tools/kiln/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"kiln: compile, sign, verify and run models on NPU-style accelerators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kiln 0.1.0");
  int exit_code = 0;
  kiln::cli::RegisterInspect(app, &exit_code);
  kiln::cli::RegisterRun(app, &exit_code);
  kiln::cli::RegisterValidate(app, &exit_code);
  kiln::cli::RegisterKeygen(app, &exit_code);
  kiln::cli::RegisterCompile(app, &exit_code);
  kiln::cli::RegisterSign(app, &exit_code);
  kiln::cli::RegisterVerify(app, &exit_code);
  kiln::cli::RegisterBench(app, &exit_code);
  kiln::cli::RegisterQuantize(app, &exit_code);
  kiln::cli::RegisterEval(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // usage errors: message on stderr, non-zero exit (0 for --help)
  }
  return exit_code;
}
