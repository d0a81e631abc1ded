// Encoding of the .kiln container's fixed-size records (little-endian, byte by byte).
#include "serializer/format.h"

#include <cstring>

namespace kiln::format {

bool IsKnownSectionKind(uint32_t kind) {
  return (kind >= static_cast<uint32_t>(SectionKind::kGraph) &&
          kind <= static_cast<uint32_t>(SectionKind::kStreams)) ||
         kind == static_cast<uint32_t>(SectionKind::kKernelBinaries) ||
         kind == static_cast<uint32_t>(SectionKind::kDspPrograms);
}

std::string SectionKindName(uint32_t kind) {
  switch (static_cast<SectionKind>(kind)) {
    case SectionKind::kGraph:
      return "graph";
    case SectionKind::kWeights:
      return "weights";
    case SectionKind::kMetadata:
      return "metadata";
    case SectionKind::kMemoryPlan:
      return "memory-plan";
    case SectionKind::kStreams:
      return "streams";
    case SectionKind::kQuantization:
      return "quantization";
    case SectionKind::kKernelBinaries:
      return "kernel-binaries";
    case SectionKind::kDspPrograms:
      return "dsp-programs";
  }
  return "unknown(" + std::to_string(kind) + ")";
}

std::string CompressionName(uint32_t compression) {
  switch (static_cast<Compression>(compression)) {
    case Compression::kNone:
      return "none";
    case Compression::kZstd:
      return "zstd";
  }
  return "unknown(" + std::to_string(compression) + ")";
}

uint16_t LoadU16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t LoadU32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
uint64_t LoadU64(const uint8_t* p) {
  return uint64_t{LoadU32(p)} | (uint64_t{LoadU32(p + 4)} << 32);
}
void StoreU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void StoreU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void StoreU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Header (64 bytes):
//   0 magic[8] | 8 major u16 | 10 minor u16 | 12 flags u32 | 16 header_size u32
//   20 section_entry_size u32 | 24 section_count u32 | 28 reserved u32 (0)
//   32 file_size u64 | 40 signature_offset u64 | 48 reserved[16] (0)
void EncodeHeader(const Header& h, uint8_t* out) {
  std::memset(out, 0, kHeaderSize);
  std::memcpy(out, kMagic.data(), kMagic.size());
  StoreU16(out + 8, h.major);
  StoreU16(out + 10, h.minor);
  StoreU32(out + 12, h.flags);
  StoreU32(out + 16, h.header_size);
  StoreU32(out + 20, h.section_entry_size);
  StoreU32(out + 24, h.section_count);
  StoreU64(out + 32, h.file_size);
  StoreU64(out + 40, h.signature_offset);
}

Header DecodeHeader(const uint8_t* in) {
  Header h;
  h.major = LoadU16(in + 8);
  h.minor = LoadU16(in + 10);
  h.flags = LoadU32(in + 12);
  h.header_size = LoadU32(in + 16);
  h.section_entry_size = LoadU32(in + 20);
  h.section_count = LoadU32(in + 24);
  h.file_size = LoadU64(in + 32);
  h.signature_offset = LoadU64(in + 40);
  return h;
}

// Section entry (64 bytes):
//   0 kind u32 | 4 compression u32 | 8 offset u64 | 16 stored_size u64
//   24 uncompressed_size u64 | 32 sha256[32] of the stored bytes
void EncodeSectionEntry(const SectionEntry& e, uint8_t* out) {
  StoreU32(out, e.kind);
  StoreU32(out + 4, e.compression);
  StoreU64(out + 8, e.offset);
  StoreU64(out + 16, e.stored_size);
  StoreU64(out + 24, e.uncompressed_size);
  std::memcpy(out + 32, e.sha256.data(), e.sha256.size());
}

SectionEntry DecodeSectionEntry(const uint8_t* in) {
  SectionEntry e;
  e.kind = LoadU32(in);
  e.compression = LoadU32(in + 4);
  e.offset = LoadU64(in + 8);
  e.stored_size = LoadU64(in + 16);
  e.uncompressed_size = LoadU64(in + 24);
  std::memcpy(e.sha256.data(), in + 32, e.sha256.size());
  return e;
}

// Signature block (96 bytes):
//   0 "KSIG" | 4 algorithm u32 (1 = Ed25519) | 8 key_id[16] ASCII hex | 24 signature[64]
//   88 reserved[8] (0)
void EncodeSignatureBlock(const SignatureBlock& s, uint8_t* out) {
  std::memset(out, 0, kSignatureBlockSize);
  std::memcpy(out, kSignatureMagic.data(), kSignatureMagic.size());
  StoreU32(out + 4, s.algorithm);
  std::memcpy(out + 8, s.key_id.data(), s.key_id.size());
  std::memcpy(out + 24, s.signature.data(), s.signature.size());
}

bool DecodeSignatureBlock(const uint8_t* in, SignatureBlock* out) {
  if (std::memcmp(in, kSignatureMagic.data(), kSignatureMagic.size()) != 0) return false;
  for (size_t i = 88; i < kSignatureBlockSize; ++i) {
    if (in[i] != 0) return false;
  }
  out->algorithm = LoadU32(in + 4);
  std::memcpy(out->key_id.data(), in + 8, out->key_id.size());
  std::memcpy(out->signature.data(), in + 24, out->signature.size());
  return true;
}

std::string HexEncode(const uint8_t* data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    s[2 * i] = kDigits[data[i] >> 4];
    s[2 * i + 1] = kDigits[data[i] & 15];
  }
  return s;
}

}  // namespace kiln::format
