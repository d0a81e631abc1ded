// revoked.txt: strict line parser.
#include "serializer/revocation_list.h"

#include <fstream>
#include <iterator>

#include "serializer/format.h"

namespace kiln {
namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string_view Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == s.npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

Expected<std::set<std::string>> ParseRevocationList(std::string_view text,
                                                    const std::string& what) {
  if (text.size() > kMaxRevocationFileBytes) {
    return InvalidArgument("revocation list '" + what + "' is larger than " +
                           std::to_string(kMaxRevocationFileBytes) + " bytes");
  }
  std::set<std::string> ids;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == text.npos ? std::string_view() : text.substr(nl + 1);
    const size_t hash = line.find('#');
    line = Trim(line.substr(0, hash));
    if (line.empty()) continue;
    bool ok = line.size() == format::kKeyIdChars;
    for (char c : line) ok &= IsHex(c);
    if (!ok) {
      std::string shown;  // untrusted text: printable ASCII only
      for (char c : line.substr(0, 40)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
      return InvalidArgument("revocation list '" + what + "' line " + std::to_string(line_no) +
                             ": expected a key id of " + std::to_string(format::kKeyIdChars) +
                             " hex digits, got '" + shown + "'");
    }
    std::string id(line);
    for (char& c : id) c = (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
    ids.insert(std::move(id));
  }
  return ids;
}

Expected<std::set<std::string>> ReadRevocationFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open revocation list '" + path + "'");
  std::string text;
  text.resize(kMaxRevocationFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return InvalidArgument("cannot read revocation list '" + path + "'");
  text.resize(static_cast<size_t>(in.gcount()));
  return ParseRevocationList(text, path);
}

}  // namespace kiln
