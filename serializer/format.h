// The .kiln container layout: header, section table and signature block (see
// docs/model-format.md for the byte-by-byte description). Shared by reader and writer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::format {

// "KILN\r\n\x1a\n": the CR/LF and ^Z bytes catch text-mode transfers (as PNG's magic does).
inline constexpr std::array<uint8_t, 8> kMagic = {'K', 'I', 'L', 'N', '\r', '\n', 0x1a, '\n'};
inline constexpr uint16_t kMajorVersion = 1;
// Bump when the schema or the container gains something old readers may ignore.
inline constexpr uint16_t kMinorVersion = 9;  // 1.9: see kiln_model.fbs history

inline constexpr size_t kHeaderSize = 64;
inline constexpr size_t kSectionEntrySize = 64;
inline constexpr size_t kMaxSectionEntrySize = 1024;  // newer minors may grow entries
inline constexpr uint32_t kMaxSections = 256;
inline constexpr size_t kSectionAlignment = 64;  // every section starts 64-byte aligned
inline constexpr size_t kTensorAlignment = 64;   // every tensor inside the weights section too
inline constexpr size_t kSignatureBlockSize = 96;
inline constexpr std::array<uint8_t, 4> kSignatureMagic = {'K', 'S', 'I', 'G'};
inline constexpr size_t kKeyIdChars = 16;
inline constexpr size_t kEd25519SignatureSize = 64;
inline constexpr uint64_t kDefaultMaxSectionBytes = uint64_t{4} << 30;  // 4 GiB

// Header flag bits.
inline constexpr uint32_t kFlagSigned = 1u << 0;
inline constexpr uint32_t kKnownFlags = kFlagSigned;

// Section kinds: stable values, never reused. 4..7 are reserved for planned sections; a reader
// skips kinds it does not know when the file's minor version is newer than its own.
enum class SectionKind : uint32_t {
  kGraph = 1,           // flatbuffers kiln.fb.Graph
  kWeights = 2,         // raw constant bytes, each tensor 64-byte aligned
  kMetadata = 3,        // flatbuffers kiln.fb.Metadata
  kMemoryPlan = 4,      // flatbuffers kiln.fb.MemoryPlan (1.1)
  kStreams = 5,         // flatbuffers kiln.fb.Schedule (1.1)
  kQuantization = 6,    // reserved
  kKernelBinaries = 7,  // flatbuffers kiln.fb.KernelBinaries: GPU program binaries (1.3)
  kDspPrograms = 8,     // flatbuffers kiln.fb.DspPrograms: DSP command streams (1.4)
};
bool IsKnownSectionKind(uint32_t kind);      // understood by this reader (1..5, 7, 8)
std::string SectionKindName(uint32_t kind);  // "graph", "weights", ..., "unknown(42)"

enum class Compression : uint32_t {
  kNone = 0,
  kZstd = 1,
};
std::string CompressionName(uint32_t compression);

enum class SignatureAlgorithm : uint32_t {
  kEd25519 = 1,
};

struct Header {
  uint16_t major = kMajorVersion;
  uint16_t minor = kMinorVersion;
  uint32_t flags = 0;
  uint32_t header_size = kHeaderSize;
  uint32_t section_entry_size = kSectionEntrySize;
  uint32_t section_count = 0;
  uint64_t file_size = 0;
  uint64_t signature_offset = 0;  // 0 when unsigned
};

struct SectionEntry {
  uint32_t kind = 0;
  uint32_t compression = 0;
  uint64_t offset = 0;
  uint64_t stored_size = 0;
  uint64_t uncompressed_size = 0;
  std::array<uint8_t, 32> sha256{};
};

struct SignatureBlock {
  uint32_t algorithm = static_cast<uint32_t>(SignatureAlgorithm::kEd25519);
  std::array<char, kKeyIdChars> key_id{};
  std::array<uint8_t, kEd25519SignatureSize> signature{};
};

// Encoders write exactly kHeaderSize / kSectionEntrySize / kSignatureBlockSize bytes.
void EncodeHeader(const Header& h, uint8_t* out);
void EncodeSectionEntry(const SectionEntry& e, uint8_t* out);
void EncodeSignatureBlock(const SignatureBlock& s, uint8_t* out);
// Decoders read fixed fields only; validation is the reader's job.
Header DecodeHeader(const uint8_t* in);
SectionEntry DecodeSectionEntry(const uint8_t* in);
// False when the block's magic is wrong.
bool DecodeSignatureBlock(const uint8_t* in, SignatureBlock* out);

// Bytes the signature covers: the header and the whole section table.
inline uint64_t SignedPrefixSize(const Header& h) {
  return uint64_t{h.header_size} + uint64_t{h.section_count} * h.section_entry_size;
}

inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Little-endian scalar access.
uint16_t LoadU16(const uint8_t* p);
uint32_t LoadU32(const uint8_t* p);
uint64_t LoadU64(const uint8_t* p);
void StoreU16(uint8_t* p, uint16_t v);
void StoreU32(uint8_t* p, uint32_t v);
void StoreU64(uint8_t* p, uint64_t v);

std::string HexEncode(const uint8_t* data, size_t size);

}  // namespace kiln::format
