// Reader side of the .kiln container: structural checks, signature, section hashes and
// decompression, in that order, over an in-memory (usually mmapped) file image.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/status.h"
#include "serializer/format.h"
#include "serializer/trust_store.h"

namespace kiln::format {

struct ReadLimits {
  // Largest uncompressed size a section may declare; checked before anything is allocated.
  uint64_t max_section_bytes = kDefaultMaxSectionBytes;
};

// A parsed view over a file image; points into the image, which must outlive it.
struct ContainerView {
  const uint8_t* data = nullptr;
  size_t size = 0;
  Header header;
  std::vector<SectionEntry> sections;  // table order
  bool is_signed = false;
  SignatureBlock signature;  // valid when is_signed
  // Private copy of header + section table (the signed prefix): the entries are decoded from
  // it and the signature is checked over it, so both see the same bytes even if the image
  // changes while it is read.
  std::vector<uint8_t> signed_prefix;

  // First section of a kind, or nullptr.
  const SectionEntry* Find(SectionKind kind) const;
};

// Step 1 (no allocation proportional to declared sizes): magic, version, flags, every offset
// and size against the file length (overflow-safe), zero padding, no trailing bytes, declared
// uncompressed sizes under the limit, known compressions, required sections present.
Expected<ContainerView> ParseContainer(const uint8_t* data, size_t size,
                                       const ReadLimits& limits = {});

// Step 2: the signer's key id must not be revoked (rule 'revocation', before any signature
// check), then the Ed25519 signature over header + section table with a trusted key. Unsigned
// files are refused unless allow_unsigned. On success *key_id is the signer's id ("" if
// unsigned).
Status VerifySignature(const ContainerView& view, const TrustStore& trust, bool allow_unsigned,
                       std::string* key_id);

// Step 3: SHA-256 of a section's stored bytes against the table.
Status VerifySectionHash(const ContainerView& view, const SectionEntry& entry);

// Bytes of one section after decompression. `owner` keeps `data` alive.
struct SectionBytes {
  std::shared_ptr<const void> owner;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Step 4: an uncompressed section is borrowed from the image (owned by `image_owner`) when it
// is 64-byte aligned in memory; a zstd section is decompressed into a 64-byte aligned buffer
// that never grows past the declared size. Reads the image again after step 3: use it only
// where the image cannot change (zero-copy weights on read-only storage).
Expected<SectionBytes> ReadSection(const ContainerView& view, const SectionEntry& entry,
                                   const std::shared_ptr<const void>& image_owner);

// Steps 3 and 4 in one pass over the image, so that what is used is exactly what was verified
// even if the image changes meanwhile (a file modified on disk under its mapping): the stored
// bytes are copied into private 64-byte aligned memory in 1 MiB chunks, each chunk hashed from
// the copy while it is still in cache; the section is refused unless the copy's SHA-256 matches
// the table. A zstd section is then decompressed from the copy (after the hash held), an
// uncompressed one is the copy itself.
// `release`, when set, is called on each source range once it is copied (the loader drops those
// pages of its file mapping, so the mapped file and the copy are not resident together).
using ReleaseFn = std::function<void(const uint8_t* data, size_t size)>;
Expected<SectionBytes> CopyVerifiedSection(const ContainerView& view, const SectionEntry& entry,
                                           const ReleaseFn& release = {});

}  // namespace kiln::format
