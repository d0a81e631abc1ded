// Model id / version / validity syntax.
#include "serializer/model_identity.h"

#include <charconv>

#include "serializer/utc_time.h"

namespace kiln {
namespace {

// Untrusted text shown in a message: printable ASCII only, bounded.
std::string Shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > 64) out += "...";
  return out;
}

}  // namespace

bool IsValidModelId(std::string_view id) {
  if (id.empty() || id.size() > kMaxModelIdChars) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status CheckModelIdentity(const ModelMetadata& m) {
  if (!m.model_id.empty() && !IsValidModelId(m.model_id)) {
    return InvalidArgument("model id '" + Shown(m.model_id) + "' is not 1.." +
                           std::to_string(kMaxModelIdChars) + " characters of [A-Za-z0-9._-]");
  }
  if (m.model_id.empty() != !m.model_version.has_value()) {
    return InvalidArgument(m.model_id.empty()
                               ? "a model version needs a model id"
                               : "model id '" + m.model_id + "' needs a model version");
  }
  if (m.not_before_unix && m.not_after_unix && *m.not_before_unix > *m.not_after_unix) {
    return InvalidArgument("validity: not-before " + FormatUtc(*m.not_before_unix) +
                           " is after not-after " + FormatUtc(*m.not_after_unix));
  }
  return Status::Ok();
}

Expected<uint64_t> ParseModelVersion(std::string_view text, const std::string& what) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  // Canonical decimal only (no sign, no leading zeros): a version has one spelling, so the
  // counter file prints back exactly as it was read.
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == text.npos &&
                      (text.size() == 1 || text[0] != '0');
  const auto r = std::from_chars(text.data(), end, v);
  if (!digits || r.ec != std::errc() || r.ptr != end) {
    return InvalidArgument(
        what + ": '" + Shown(text) +
        "' is not a version (a decimal integer 0..18446744073709551615, no leading zeros)");
  }
  return v;
}

}  // namespace kiln
