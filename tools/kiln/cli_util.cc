// Shared helpers of the kiln subcommands.
#include "tools/kiln/cli_util.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>

namespace kiln::cli {

void RunCommand(const std::string& command, int* exit_code, const std::function<Status()>& body) {
  *exit_code = kExitOk;
  Status status;
  try {
    status = body();
  } catch (const std::exception& e) {
    status = Internal(std::string("unexpected exception: ") + e.what());
  }
  if (!status.ok()) {
    std::cerr << "kiln " << command << ": " << status.ToString() << "\n";
    *exit_code = kExitError;
  }
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string GroupDigits(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

}  // namespace kiln::cli
