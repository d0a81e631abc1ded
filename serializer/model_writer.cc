// .kiln container assembly: sections, optional zstd, section table with hashes, signature.
#include "serializer/model_writer.h"

#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include "serializer/container_reader.h"
#include "serializer/dsp_programs.h"
#include "serializer/graph_reader.h"
#include "serializer/graph_writer.h"
#include "serializer/model_identity.h"
#include "serializer/plan_writer.h"

namespace kiln {
namespace {

using format::Compression;
using format::SectionKind;

struct PendingSection {
  SectionKind kind;
  std::vector<uint8_t> bytes;  // uncompressed
};

Expected<std::vector<uint8_t>> Compress(const std::vector<uint8_t>& in, int level) {
  std::vector<uint8_t> out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
  if (ZSTD_isError(n)) return Internal(std::string("zstd compression: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

int64_t CreationTime() {
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    char* end = nullptr;
    const long long v = std::strtoll(epoch, &end, 10);
    if (end != epoch && *end == '\0') return v;
  }
  return static_cast<int64_t>(std::time(nullptr));
}

}  // namespace

Status ParseCompression(const std::string& spec, WriteOptions* options) {
  if (spec == "none") {
    options->compression = Compression::kNone;
    return Status::Ok();
  }
  if (spec.rfind("zstd", 0) != 0) {
    return InvalidArgument("--compress: expected none, zstd or zstd:LEVEL, got '" + spec + "'");
  }
  options->compression = Compression::kZstd;
  if (spec.size() == 4) return Status::Ok();
  const std::string level = spec.substr(5);
  char* end = nullptr;
  const long v = std::strtol(level.c_str(), &end, 10);
  if (spec[4] != ':' || level.empty() || *end != '\0' || v < 1 || v > ZSTD_maxCLevel()) {
    return InvalidArgument("--compress: zstd level must be 1.." + std::to_string(ZSTD_maxCLevel()) +
                           ", got '" + spec + "'");
  }
  options->zstd_level = static_cast<int>(v);
  return Status::Ok();
}

Expected<std::vector<uint8_t>> SerializeModel(const Graph& graph, const WriteOptions& options) {
  KILN_ASSIGN_OR_RETURN(format::GraphSections gs, format::WriteGraphSections(graph));
  ModelMetadata meta = options.metadata;
  if (meta.producer.empty()) meta.producer = "kiln";
  if (meta.producer_version.empty()) meta.producer_version = KILN_VERSION_STRING;
  if (meta.created_unix == 0) meta.created_unix = CreationTime();
  KILN_RETURN_IF_ERROR(CheckModelIdentity(meta));

  // Small sections first, weights last (the bulk of the file, mapped in place).
  std::vector<PendingSection> pending;
  pending.push_back({SectionKind::kGraph, std::move(gs.graph)});
  pending.push_back({SectionKind::kMetadata, format::WriteMetadataSection(meta)});
  if (options.plan != nullptr) {
    pending.push_back({SectionKind::kStreams, format::WriteScheduleSection(options.plan->schedule)});
    pending.push_back(
        {SectionKind::kMemoryPlan, format::WriteMemoryPlanSection(options.plan->memory)});
  }
  if (options.kernel_binaries != nullptr) {
    pending.push_back({SectionKind::kKernelBinaries,
                       format::WriteKernelBinariesSection(*options.kernel_binaries)});
  }
  if (options.dsp_programs != nullptr) {
    pending.push_back(
        {SectionKind::kDspPrograms, format::WriteDspProgramsSection(*options.dsp_programs)});
  }
  pending.push_back({SectionKind::kWeights, std::move(gs.weights)});

  std::vector<RawSection> raw;
  for (auto& p : pending) {
    RawSection r;
    r.kind = static_cast<uint32_t>(p.kind);
    r.uncompressed_size = p.bytes.size();
    if (options.compression == Compression::kZstd) {
      KILN_ASSIGN_OR_RETURN(r.stored, Compress(p.bytes, options.zstd_level));
      r.compression = static_cast<uint32_t>(Compression::kZstd);
    } else {
      r.stored = std::move(p.bytes);
    }
    raw.push_back(std::move(r));
  }
  std::vector<uint8_t> image = AssembleContainer(raw);
  if (options.signing_key != nullptr) {
    return SignModelImage(image.data(), image.size(), *options.signing_key);
  }
  return image;
}

std::vector<uint8_t> AssembleContainer(const std::vector<RawSection>& sections, uint16_t minor) {
  const uint64_t table_end = format::kHeaderSize + sections.size() * format::kSectionEntrySize;
  std::vector<format::SectionEntry> entries;
  uint64_t cursor = format::AlignUp(table_end, format::kSectionAlignment);
  uint64_t end = table_end;
  for (const auto& r : sections) {
    format::SectionEntry e;
    e.kind = r.kind;
    e.compression = r.compression;
    e.uncompressed_size = r.uncompressed_size;
    e.stored_size = r.stored.size();
    e.sha256 = signing::Sha256(r.stored.data(), r.stored.size());
    e.offset = cursor;
    end = e.offset + e.stored_size;
    cursor = format::AlignUp(end, format::kSectionAlignment);
    entries.push_back(e);
  }
  std::vector<uint8_t> image(end, 0);
  format::Header h;
  h.minor = minor;
  h.section_count = static_cast<uint32_t>(entries.size());
  h.file_size = end;
  format::EncodeHeader(h, image.data());
  for (size_t i = 0; i < entries.size(); ++i) {
    format::EncodeSectionEntry(entries[i],
                               image.data() + format::kHeaderSize + i * format::kSectionEntrySize);
    if (!sections[i].stored.empty()) {
      std::memcpy(image.data() + entries[i].offset, sections[i].stored.data(),
                  sections[i].stored.size());
    }
  }
  return image;
}

Status WriteModelFile(const Graph& graph, const WriteOptions& options, const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> image, SerializeModel(graph, options));
  return WriteFileAtomically(path, image);
}

Expected<std::vector<uint8_t>> SignModelImage(const uint8_t* data, size_t size,
                                              const signing::PrivateKey& key) {
  format::ReadLimits limits;
  limits.max_section_bytes = UINT64_MAX;  // only the structure matters here
  KILN_ASSIGN_OR_RETURN(format::ContainerView view, format::ParseContainer(data, size, limits));
  for (const auto& e : view.sections) KILN_RETURN_IF_ERROR(format::VerifySectionHash(view, e));
  uint64_t end = format::SignedPrefixSize(view.header);
  for (const auto& e : view.sections) end = std::max(end, e.offset + e.stored_size);
  const uint64_t sig_offset = format::AlignUp(end, format::kSectionAlignment);

  std::vector<uint8_t> image(data, data + end);
  image.resize(sig_offset + format::kSignatureBlockSize, 0);
  format::Header h = view.header;
  h.flags |= format::kFlagSigned;
  h.signature_offset = sig_offset;
  h.file_size = image.size();
  format::EncodeHeader(h, image.data());

  KILN_ASSIGN_OR_RETURN(signing::PublicKey pub, key.public_key());
  format::SignatureBlock block;
  std::memcpy(block.key_id.data(), pub.key_id().data(), format::kKeyIdChars);
  KILN_ASSIGN_OR_RETURN(block.signature, key.Sign(image.data(), format::SignedPrefixSize(h)));
  format::EncodeSignatureBlock(block, image.data() + sig_offset);
  return image;
}

Expected<std::vector<uint8_t>> EditMetadataImage(const uint8_t* data, size_t size,
                                                 const MetadataEdit& edit) {
  KILN_ASSIGN_OR_RETURN(format::ContainerView view, format::ParseContainer(data, size));
  if (view.header.minor > format::kMinorVersion ||
      view.header.section_entry_size != format::kSectionEntrySize) {
    return Unsupported("cannot rewrite the metadata of a format " +
                       std::to_string(view.header.major) + "." + std::to_string(view.header.minor) +
                       " file (this writer: " + std::to_string(format::kMajorVersion) + "." +
                       std::to_string(format::kMinorVersion) + ")");
  }
  for (const auto& e : view.sections) KILN_RETURN_IF_ERROR(format::VerifySectionHash(view, e));
  const format::SectionEntry* meta_entry = view.Find(SectionKind::kMetadata);
  ModelMetadata meta;
  if (meta_entry != nullptr) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes bytes,
                          format::CopyVerifiedSection(view, *meta_entry));
    KILN_ASSIGN_OR_RETURN(meta, format::ReadMetadata(bytes));
  }
  KILN_RETURN_IF_ERROR(edit(&meta));
  KILN_RETURN_IF_ERROR(CheckModelIdentity(meta));
  std::vector<uint8_t> meta_bytes = format::WriteMetadataSection(meta);
  RawSection new_meta;
  new_meta.kind = static_cast<uint32_t>(SectionKind::kMetadata);
  new_meta.uncompressed_size = meta_bytes.size();
  if (meta_entry != nullptr &&
      meta_entry->compression == static_cast<uint32_t>(Compression::kZstd)) {
    KILN_ASSIGN_OR_RETURN(new_meta.stored, Compress(meta_bytes, 3));
    new_meta.compression = meta_entry->compression;
  } else {
    new_meta.stored = std::move(meta_bytes);
  }
  std::vector<RawSection> raw;
  for (const auto& e : view.sections) {
    if (&e == meta_entry) {
      raw.push_back(std::move(new_meta));
      continue;
    }
    RawSection r;
    r.kind = e.kind;
    r.compression = e.compression;
    r.uncompressed_size = e.uncompressed_size;
    r.stored.assign(data + e.offset, data + e.offset + e.stored_size);
    raw.push_back(std::move(r));
  }
  // Without a metadata section, one is added after the first (the writer's order: graph first).
  if (meta_entry == nullptr) raw.insert(raw.begin() + 1, std::move(new_meta));
  return AssembleContainer(raw);
}

Status SignModelFile(const std::string& path, const signing::PrivateKey& key,
                     const std::string& out, const MetadataEdit& edit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (edit) {
    auto edited = EditMetadataImage(bytes.data(), bytes.size(), edit);
    if (!edited.ok()) return edited.status().WithContext("cannot sign '" + path + "'");
    bytes = std::move(edited).value();
  }
  auto signed_image = SignModelImage(bytes.data(), bytes.size(), key);
  if (!signed_image.ok()) return signed_image.status().WithContext("cannot sign '" + path + "'");
  return WriteFileAtomically(out, *signed_image);
}

Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return InvalidArgument("cannot create '" + tmp + "'");
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return InvalidArgument("cannot write '" + tmp + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return InvalidArgument("cannot rename '" + tmp + "' to '" + path + "'");
  }
  return Status::Ok();
}

}  // namespace kiln
