// Version counter file: strict parser, checksummed serialisation, atomic replacement.
#include "serializer/version_counter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include "serializer/format.h"
#include "serializer/model_identity.h"
#include "serializer/signing.h"

namespace kiln {
namespace {

constexpr std::string_view kFirstLine = "kiln-version-counter 1";
constexpr std::string_view kSumPrefix = "sha256 ";

std::string Checksum(std::string_view body) {
  const signing::Sha256Digest d = signing::Sha256(body.data(), body.size());
  return format::HexEncode(d.data(), d.size());
}

Status WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return InvalidArgument(std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Expected<VersionCounter> VersionCounter::Parse(std::string_view text, const std::string& what) {
  auto bad = [&](size_t line, const std::string& why) -> Status {
    return DataLoss("counter file '" + what + "'" +
                    (line > 0 ? " line " + std::to_string(line) : std::string()) + ": " + why +
                    " (refused, not reset: restore it from a backup or re-provision the device)");
  };
  if (text.size() > kMaxCounterFileBytes) return bad(0, "larger than 1 MiB");
  if (text.size() < 2 || text.back() != '\n') return bad(0, "truncated (no final newline)");
  // The checksum line is the last one; it covers every byte before it.
  const size_t sum_start = text.rfind('\n', text.size() - 2);
  if (sum_start == text.npos) return bad(1, "no checksum line");
  const std::string_view body = text.substr(0, sum_start + 1);
  const std::string_view sum_line = text.substr(sum_start + 1, text.size() - sum_start - 2);
  if (sum_line.substr(0, kSumPrefix.size()) != kSumPrefix) return bad(0, "no checksum line");
  if (sum_line.substr(kSumPrefix.size()) != Checksum(body)) {
    return bad(0, "checksum does not match its contents (corrupt)");
  }
  VersionCounter counter;
  size_t line_no = 0;
  std::string_view rest = body;
  while (!rest.empty()) {
    ++line_no;
    const size_t nl = rest.find('\n');  // body ends with '\n'
    const std::string_view line = rest.substr(0, nl);
    rest = rest.substr(nl + 1);
    if (line_no == 1) {
      if (line != kFirstLine) return bad(1, "expected '" + std::string(kFirstLine) + "'");
      continue;
    }
    const size_t sp = line.find(' ');
    if (sp == line.npos) return bad(line_no, "expected 'MODEL_ID VERSION'");
    const std::string id(line.substr(0, sp));
    if (!IsValidModelId(id)) return bad(line_no, "not a model id");
    auto version = ParseModelVersion(line.substr(sp + 1), "version");
    if (!version.ok()) return bad(line_no, version.status().message());
    if (!counter.entries_.emplace(id, *version).second) {
      return bad(line_no, "model id '" + id + "' listed twice");
    }
    // The writer sorts by id: any other order was not written by it.
    if (std::prev(counter.entries_.end())->first != id) return bad(line_no, "ids out of order");
  }
  if (line_no == 0) return bad(1, "expected '" + std::string(kFirstLine) + "'");
  return counter;
}

Expected<VersionCounter> VersionCounter::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
      return VersionCounter();  // a new device: nothing loaded yet
    }
    return InvalidArgument("counter file '" + path + "': cannot be read");
  }
  std::string text(kMaxCounterFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return InvalidArgument("counter file '" + path + "': cannot be read");
  text.resize(static_cast<size_t>(in.gcount()));
  return Parse(text, path);
}

std::optional<uint64_t> VersionCounter::Highest(std::string_view id) const {
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

bool VersionCounter::Raise(const std::string& id, uint64_t version) {
  auto [it, inserted] = entries_.emplace(id, version);
  if (inserted) return true;
  if (it->second >= version) return false;
  it->second = version;
  return true;
}

std::string VersionCounter::Serialize() const {
  std::string body = std::string(kFirstLine) + "\n";
  for (const auto& [id, version] : entries_) body += id + " " + std::to_string(version) + "\n";
  return body + std::string(kSumPrefix) + Checksum(body) + "\n";
}

Status VersionCounter::Save(const std::string& path) const {
  const std::string bytes = Serialize();
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return InvalidArgument("counter file '" + path + "': cannot " + what + ": " + why);
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return InvalidArgument("counter file '" + path + "': cannot create '" + tmp +
                           "': " + std::strerror(errno));
  Status written = WriteAll(fd, bytes);
  if (!written.ok()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return InvalidArgument("counter file '" + path + "': cannot write '" + tmp +
                           "': " + written.message());
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("fsync '" + tmp + "'");
  }
  if (::close(fd) != 0) return fail("close '" + tmp + "'");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename '" + tmp + "' over it");
  // The rename is durable once the folder's entry is.
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::filesystem::path dir = parent.empty() ? std::filesystem::path(".") : parent;
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    const int rc = ::fsync(dfd);
    ::close(dfd);
    if (rc != 0) {
      return InvalidArgument("counter file '" + path +
                             "': cannot fsync its folder: " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

Status AdvanceVersionCounter(const std::string& path, const std::string& id, uint64_t version) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  KILN_ASSIGN_OR_RETURN(VersionCounter counter, VersionCounter::Load(path));
  if (!counter.Raise(id, version)) return Status::Ok();
  return counter.Save(path);
}

}  // namespace kiln
