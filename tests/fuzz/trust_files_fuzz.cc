// libFuzzer target for the trust configuration's text files, which a device reads before any
// model: the revocation list (revoked.txt), the version counter file, and the ISO 8601 times
// and versions of the trust flags. Each input is also parsed as a counter body with its
// checksum recomputed, so mutations reach the entry parser behind the SHA-256. Whatever
// parses must print back to the same bytes (the parsers accept only the canonical form).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "serializer/format.h"
#include "serializer/model_identity.h"
#include "serializer/revocation_list.h"
#include "serializer/signing.h"
#include "serializer/utc_time.h"
#include "serializer/version_counter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ParseRevocationList(text, "fuzz");
  auto counter = VersionCounter::Parse(text, "fuzz");
  if (counter.ok() && counter->Serialize() != text) std::abort();
  const signing::Sha256Digest d = signing::Sha256(data, size);
  const std::string with_sum =
      std::string(text) + "sha256 " + format::HexEncode(d.data(), d.size()) + "\n";
  counter = VersionCounter::Parse(with_sum, "fuzz");
  if (counter.ok() && counter->Serialize() != with_sum) std::abort();
  auto t = ParseUtc(text, "fuzz");
  if (t.ok() && FormatUtc(*t) != text) std::abort();
  auto v = ParseModelVersion(text, "fuzz");
  if (v.ok() && std::to_string(*v) != text) std::abort();
  return 0;
}
