// .kiln container checks. Order matters: nothing is hashed before the layout is known to be in
// bounds, nothing is decompressed or parsed before the signature and hashes hold.
#include "serializer/container_reader.h"

#include <openssl/evp.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "serializer/revocation_list.h"
#include "serializer/signing.h"
#include "serializer/trust_policy.h"

namespace kiln::format {
namespace {

std::string Version(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

Status Bounds(const std::string& what) { return DataLoss("bounds: " + what); }

// A 64-byte aligned heap buffer (weights are used in place by kernels expecting alignment).
struct AlignedBuffer {
  uint8_t* data = nullptr;
  explicit AlignedBuffer(size_t n) {
    data = static_cast<uint8_t*>(std::aligned_alloc(kTensorAlignment, AlignUp(n ? n : 1, 64)));
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

struct DctxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

Expected<SectionBytes> Decompress(const uint8_t* src, size_t src_size, uint64_t declared,
                                  const std::string& kind) {
  const std::string where = "decompression of section " + kind + ": ";
  std::unique_ptr<ZSTD_DCtx, DctxDeleter> dctx(ZSTD_createDCtx());
  if (!dctx) return Internal(where + "cannot create a zstd context");
  // A lying frame must not make us allocate what it claims: start small and grow (doubling)
  // only as real output arrives, never past the declared size (+1 byte to detect overrun).
  uint64_t cap = std::min<uint64_t>(declared, std::max<uint64_t>(uint64_t{1} << 20, src_size * 4));
  auto buf = std::make_shared<AlignedBuffer>(cap + 1);
  if (!buf->data) return Internal(where + "out of memory");
  ZSTD_inBuffer in{src, src_size, 0};
  size_t pos = 0;
  while (true) {
    ZSTD_outBuffer out{buf->data, static_cast<size_t>(cap + 1), pos};
    const size_t ret = ZSTD_decompressStream(dctx.get(), &out, &in);
    pos = out.pos;
    if (ZSTD_isError(ret)) return DataLoss(where + ZSTD_getErrorName(ret));
    if (pos > declared) {
      return DataLoss(where + "output exceeds the declared size of " + std::to_string(declared) +
                      " bytes");
    }
    if (ret == 0 && in.pos == in.size) break;
    if (pos < cap + 1) {
      if (in.pos == in.size) return DataLoss(where + "truncated zstd frame");
      continue;
    }
    // Output buffer full but below the declared size: grow.
    const uint64_t next = std::min<uint64_t>(declared, cap * 2);
    auto bigger = std::make_shared<AlignedBuffer>(next + 1);
    if (!bigger->data) return Internal(where + "out of memory");
    std::memcpy(bigger->data, buf->data, pos);
    buf = std::move(bigger);
    cap = next;
  }
  if (pos != declared) {
    return DataLoss(where + "produced " + std::to_string(pos) + " bytes, table declares " +
                    std::to_string(declared));
  }
  SectionBytes s;
  s.data = buf->data;
  s.size = pos;
  s.owner = std::move(buf);
  return s;
}

}  // namespace

const SectionEntry* ContainerView::Find(SectionKind kind) const {
  for (const auto& s : sections) {
    if (s.kind == static_cast<uint32_t>(kind)) return &s;
  }
  return nullptr;
}

Expected<ContainerView> ParseContainer(const uint8_t* data, size_t size, const ReadLimits& limits) {
  if (size < kMagic.size() || std::memcmp(data, kMagic.data(), kMagic.size()) != 0) {
    return DataLoss("bad magic: not a .kiln model file");
  }
  if (size < kHeaderSize) {
    return Bounds("file is " + std::to_string(size) + " bytes, shorter than the " +
                  std::to_string(kHeaderSize) + "-byte header");
  }
  ContainerView v;
  v.data = data;
  v.size = size;
  Header& h = v.header;
  h = DecodeHeader(data);
  if (h.major != kMajorVersion) {
    return Unsupported("version: file format version " + Version(h.major, h.minor) +
                       " is not supported by this runtime (reads " +
                       Version(kMajorVersion, kMinorVersion) + ", major " +
                       std::to_string(kMajorVersion) + " only)");
  }
  const bool newer_minor = h.minor > kMinorVersion;
  if (!newer_minor && (h.flags & ~kKnownFlags) != 0) {
    return DataLoss("header: unknown flags 0x" + HexEncode(data + 12, 4) + " in a " +
                    Version(h.major, h.minor) + " file");
  }
  if (LoadU32(data + 28) != 0 || !AllZero(data + 48, 16)) {
    return DataLoss("header: reserved bytes are not zero");
  }
  if (h.header_size != kHeaderSize) {
    return Bounds("header size " + std::to_string(h.header_size) + " (expected " +
                  std::to_string(kHeaderSize) + ")");
  }
  if (h.section_entry_size < kSectionEntrySize || h.section_entry_size > kMaxSectionEntrySize ||
      (!newer_minor && h.section_entry_size != kSectionEntrySize)) {
    return Bounds("section entry size " + std::to_string(h.section_entry_size));
  }
  if (h.section_count == 0 || h.section_count > kMaxSections) {
    return Bounds("section count " + std::to_string(h.section_count) + " (1.." +
                  std::to_string(kMaxSections) + ")");
  }
  if (h.file_size != size) {
    return Bounds("header says the file is " + std::to_string(h.file_size) + " bytes, it is " +
                  std::to_string(size) + " (truncated or extended)");
  }
  const uint64_t table_end = SignedPrefixSize(h);  // <= 64 + 256 * 1024: no overflow
  if (table_end > size) {
    return Bounds("section table ends at " + std::to_string(table_end) + ", past the end of the " +
                  std::to_string(size) + "-byte file");
  }
  v.is_signed = (h.flags & kFlagSigned) != 0;
  v.signed_prefix.assign(data, data + table_end);
  {  // the header checked above must be the one in the copy
    const Header again = DecodeHeader(v.signed_prefix.data());
    if (again.section_count != h.section_count ||
        again.section_entry_size != h.section_entry_size || again.flags != h.flags ||
        again.file_size != h.file_size || again.signature_offset != h.signature_offset) {
      return DataLoss("header: the file changed while it was being read");
    }
  }

  bool seen[16] = {};  // by kind: every known kind is below 16
  for (uint32_t i = 0; i < h.section_count; ++i) {
    const uint8_t* p = v.signed_prefix.data() + kHeaderSize + uint64_t{i} * h.section_entry_size;
    SectionEntry e = DecodeSectionEntry(p);
    const std::string name = "section " + SectionKindName(e.kind);
    if (e.offset > size || e.stored_size > size - e.offset) {
      return Bounds(name + " [offset " + std::to_string(e.offset) + ", size " +
                    std::to_string(e.stored_size) + "] runs past the end of the " +
                    std::to_string(size) + "-byte file");
    }
    if (e.offset % kSectionAlignment != 0 || e.offset < table_end) {
      return Bounds(name + " offset " + std::to_string(e.offset) +
                    " is not 64-byte aligned after the section table");
    }
    if (e.uncompressed_size > limits.max_section_bytes) {
      return Bounds(name + " declares an uncompressed size of " +
                    std::to_string(e.uncompressed_size) + " bytes, above the limit of " +
                    std::to_string(limits.max_section_bytes));
    }
    if (IsKnownSectionKind(e.kind)) {
      if (seen[e.kind]) return DataLoss("layout: " + name + " appears twice");
      seen[e.kind] = true;
      if (e.compression == static_cast<uint32_t>(Compression::kNone)) {
        if (e.uncompressed_size != e.stored_size) {
          return Bounds(name + " is uncompressed but declares " +
                        std::to_string(e.uncompressed_size) + " bytes for " +
                        std::to_string(e.stored_size) + " stored");
        }
      } else if (e.compression != static_cast<uint32_t>(Compression::kZstd)) {
        return DataLoss("decompression: " + name + " uses unknown compression " +
                        CompressionName(e.compression));
      }
    } else if (!newer_minor) {
      // A newer minor version may add section kinds; this file claims not to be newer.
      return DataLoss("layout: unknown section kind " + std::to_string(e.kind) + " in a " +
                      Version(h.major, h.minor) + " file");
    }
    v.sections.push_back(e);
  }
  if (!seen[static_cast<uint32_t>(SectionKind::kGraph)] ||
      !seen[static_cast<uint32_t>(SectionKind::kWeights)]) {
    return DataLoss("layout: the graph and weights sections are required");
  }

  // Every byte of the file belongs to the header, the table, a section, the signature block or
  // zero padding, so that no unsigned, unhashed byte can carry anything.
  std::vector<const SectionEntry*> order;
  for (const auto& e : v.sections) order.push_back(&e);
  std::sort(order.begin(), order.end(),
            [](const SectionEntry* a, const SectionEntry* b) { return a->offset < b->offset; });
  uint64_t cursor = table_end;
  for (const SectionEntry* e : order) {
    if (e->offset < cursor) {
      return Bounds("section " + SectionKindName(e->kind) + " overlaps the previous region");
    }
    if (!AllZero(data + cursor, e->offset - cursor)) {
      return Bounds("padding before section " + SectionKindName(e->kind) + " is not zero");
    }
    cursor = e->offset + e->stored_size;
  }
  if (v.is_signed) {
    const uint64_t s = h.signature_offset;
    if (s % kSectionAlignment != 0 || s < cursor || s > size || size - s != kSignatureBlockSize) {
      return Bounds("signature block at " + std::to_string(s) +
                    " is not a 96-byte block ending the file");
    }
    if (!AllZero(data + cursor, s - cursor)) {
      return Bounds("padding before the signature block is not zero");
    }
    if (!DecodeSignatureBlock(data + s, &v.signature)) {
      return DataLoss("bad signature: malformed signature block");
    }
  } else {
    if (h.signature_offset != 0) return Bounds("unsigned file with a signature offset");
    if (cursor != size) {
      return Bounds(std::to_string(size - cursor) + " trailing bytes after the last section");
    }
  }
  return v;
}

Status VerifySignature(const ContainerView& view, const TrustStore& trust, bool allow_unsigned,
                       std::string* key_id) {
  key_id->clear();
  if (!view.is_signed) {
    if (allow_unsigned) return Status::Ok();
    return PermissionDenied(
        "unsigned model refused (allow it explicitly: LoadOptions::allow_unsigned, "
        "--allow-unsigned)");
  }
  const SignatureBlock& sig = view.signature;
  if (sig.algorithm != static_cast<uint32_t>(SignatureAlgorithm::kEd25519)) {
    return PermissionDenied("bad signature: unknown algorithm " + std::to_string(sig.algorithm));
  }
  const std::string id(sig.key_id.data(), sig.key_id.size());
  // Rule 'revocation' first: a revoked key is refused whatever the signature says (it may have
  // leaked, so a valid signature proves nothing).
  if (trust.IsRevoked(id)) {
    return PolicyRefusal(rules::kRevocation, "model is signed by key id " + id +
                                                 ", which the trust store revokes (" +
                                                 kRevocationFileName + ")");
  }
  const signing::PublicKey* key = trust.Find(id);
  if (key == nullptr) {
    std::string ids;
    for (const auto& k : trust.key_ids()) ids += (ids.empty() ? "" : ", ") + k;
    std::string shown;  // the id is untrusted input: print only hex digits
    for (char c : id) shown += std::isxdigit(static_cast<unsigned char>(c)) ? c : '?';
    return PermissionDenied("untrusted key: model is signed by key id " + shown +
                            ", which is not in the trust store (" +
                            (ids.empty() ? "no keys" : "trusted: " + ids) + ")");
  }
  if (!key->Verify(view.signed_prefix.data(), view.signed_prefix.size(), sig.signature)) {
    return PermissionDenied(
        "bad signature: the header/section table signature does not verify "
        "with key id " +
        id);
  }
  *key_id = id;
  return Status::Ok();
}

Status VerifySectionHash(const ContainerView& view, const SectionEntry& e) {
  const signing::Sha256Digest d = signing::Sha256(view.data + e.offset, e.stored_size);
  if (std::memcmp(d.data(), e.sha256.data(), d.size()) != 0) {
    return DataLoss("section hash of " + SectionKindName(e.kind) + " does not match (stored " +
                    HexEncode(e.sha256.data(), 8) + "..., computed " + HexEncode(d.data(), 8) +
                    "...): the file was modified");
  }
  return Status::Ok();
}

Expected<SectionBytes> ReadSection(const ContainerView& view, const SectionEntry& e,
                                   const std::shared_ptr<const void>& image_owner) {
  const uint8_t* src = view.data + e.offset;
  if (e.compression == static_cast<uint32_t>(Compression::kZstd)) {
    return Decompress(src, e.stored_size, e.uncompressed_size, SectionKindName(e.kind));
  }
  if (reinterpret_cast<uintptr_t>(src) % kTensorAlignment == 0) {
    return SectionBytes{image_owner, src, e.stored_size};
  }
  // The image itself is misaligned (an arbitrary caller buffer): copy once to keep tensors
  // aligned for kernels.
  auto buf = std::make_shared<AlignedBuffer>(e.stored_size);
  if (!buf->data) return Internal("out of memory copying section " + SectionKindName(e.kind));
  if (e.stored_size) std::memcpy(buf->data, src, e.stored_size);
  SectionBytes s{nullptr, buf->data, e.stored_size};
  s.owner = std::move(buf);
  return s;
}

Expected<SectionBytes> CopyVerifiedSection(const ContainerView& view, const SectionEntry& e,
                                           const ReleaseFn& release) {
  const std::string kind = SectionKindName(e.kind);
  auto copy = std::make_shared<AlignedBuffer>(e.stored_size);
  if (!copy->data) return Internal("out of memory copying section " + kind);
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Internal("SHA-256 init failed for section " + kind);
  }
  constexpr size_t kChunk = size_t{1} << 20;
  const uint8_t* src = view.data + e.offset;
  for (size_t done = 0; done < e.stored_size;) {
    const size_t n = std::min<size_t>(kChunk, e.stored_size - done);
    std::memcpy(copy->data + done, src + done, n);
    EVP_DigestUpdate(ctx.get(), copy->data + done, n);  // the copy, never the source again
    if (release) release(src + done, n);
    done += n;
  }
  signing::Sha256Digest d;
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), d.data(), &len);
  if (std::memcmp(d.data(), e.sha256.data(), d.size()) != 0) {
    return DataLoss("section hash of " + kind + " does not match (stored " +
                    HexEncode(e.sha256.data(), 8) + "..., computed " + HexEncode(d.data(), 8) +
                    "...): the file was modified");
  }
  if (e.compression == static_cast<uint32_t>(Compression::kZstd)) {
    return Decompress(copy->data, e.stored_size, e.uncompressed_size, kind);
  }
  SectionBytes s{nullptr, copy->data, e.stored_size};
  s.owner = std::move(copy);
  return s;
}

}  // namespace kiln::format
