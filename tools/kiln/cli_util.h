// Small helpers shared by the kiln subcommands: guarded callbacks, JSON text, number formatting.
#pragma once

#include <functional>
#include <string>

#include "ir/status.h"

namespace kiln::cli {

// Exit codes of the subcommands (see docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;     // bad input, load or run failure
inline constexpr int kExitMismatch = 2;  // validate: an output is outside the tolerance

// Runs `body`; an error Status (or an escaped exception) is printed to stderr as
// "kiln <command>: <message>" and sets *exit_code to kExitError. On success *exit_code is what
// `body` left in it (0 unless it set another code).
void RunCommand(const std::string& command, int* exit_code, const std::function<Status()>& body);

// A JSON string literal with quotes, escaping control characters and non-ASCII-safe bytes.
std::string JsonString(const std::string& s);
// A JSON number; NaN and infinities become null (JSON has no literal for them).
std::string JsonNumber(double v);

// 1234567 -> "1,234,567"
std::string GroupDigits(int64_t v);

}  // namespace kiln::cli
