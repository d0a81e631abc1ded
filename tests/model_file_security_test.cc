// Security sweeps over signed .kiln files made from real ONNX models: every tampered byte, every
// truncation, wrong/untrusted keys, swapped sections and lying sizes must be refused, and the
// round trip must run bit-identically.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "compiler/frontend.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/container_reader.h"
#include "serializer/model_writer.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

struct Keys {
  std::unique_ptr<signing::PrivateKey> trusted;
  std::unique_ptr<signing::PrivateKey> untrusted;
  std::string trusted_id;
  TrustStore trust;  // holds `trusted` only
};

Keys& TestKeys() {
  static Keys* keys = [] {
    auto* k = new Keys();
    k->trusted =
        std::make_unique<signing::PrivateKey>(std::move(signing::PrivateKey::Generate()).value());
    k->untrusted =
        std::make_unique<signing::PrivateKey>(std::move(signing::PrivateKey::Generate()).value());
    auto pub = k->trusted->public_key();
    k->trusted_id = pub->key_id();
    EXPECT_TRUE(k->trust.AddPublicKeyPem(*pub->ToPem()).ok());
    return k;
  }();
  return *keys;
}

std::string ModelPath(const std::string& name) {
  return testing::SharedDir() + "/models/" + name + "/model.onnx";
}

std::shared_ptr<const Graph> Import(const std::string& name, bool image_input) {
  OnnxParseOptions options;
  if (image_input) {
    auto names = ReadOnnxInputNames(ModelPath(name));
    EXPECT_TRUE(names.ok() && !names->empty());
    if (names.ok() && !names->empty()) options.input_shapes[(*names)[0]] = {1, 3, 224, 224};
  }
  auto g = ImportOnnx(ModelPath(name), options);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return nullptr;
  return std::make_shared<const Graph>(std::move(*g));
}

std::vector<uint8_t> Compile(const Graph& g, const std::string& compress, int64_t created = 1,
                             const signing::PrivateKey* key = TestKeys().trusted.get()) {
  WriteOptions options;
  EXPECT_TRUE(ParseCompression(compress, &options).ok());
  options.signing_key = key;
  options.metadata.created_unix = created;
  auto image = SerializeModel(g, options);
  EXPECT_TRUE(image.ok()) << image.status().ToString();
  return image.ok() ? *image : std::vector<uint8_t>{};
}

Status LoadBytes(const std::vector<uint8_t>& bytes, size_t size, LoadOptions options = {},
                 const TrustStore* trust = nullptr) {
  auto m = Model::LoadFromMemory(nullptr, bytes.data(), size, trust ? *trust : TestKeys().trust,
                                 options);
  return m.ok() ? Status::Ok() : m.status();
}

// "section hash of weights does not match ..." -> "section hash of weights"
std::string Category(const std::string& message) {
  for (const char* c : {"bad magic", "version", "bounds", "header", "layout", "untrusted key",
                        "bad signature", "unsigned", "decompression", "schema"}) {
    if (message.rfind(c, 0) == 0) return c;
  }
  if (message.rfind("section hash of ", 0) == 0) {
    return message.substr(0, message.find(' ', 16));
  }
  return "other: " + message;
}

class ModelFileSecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { mnist_ = Import("mnist", false); }
  static std::shared_ptr<const Graph> mnist_;
};
std::shared_ptr<const Graph> ModelFileSecurityTest::mnist_;

TEST_F(ModelFileSecurityTest, OnnxToKilnRunsBitIdentical) {
  ASSERT_NE(mnist_, nullptr);
  const std::string dir = testing::SharedDir() + "/models/mnist/test_data_set_0";
  auto input = ReadTensorProtoFile(dir + "/input_0.pb");
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  input->name = mnist_->value(mnist_->inputs()[0]).name;
  auto reference = Session::Create(mnist_);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  auto expected = (*reference)->Run({*input});
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();

  const auto tmp =
      std::filesystem::temp_directory_path() / ("kiln_security_" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  for (const char* compress : {"none", "zstd:9"}) {
    const std::string path = (tmp / (std::string("mnist_") + compress + ".kiln")).string();
    ASSERT_TRUE(WriteFileAtomically(path, Compile(*mnist_, compress)).ok());
    auto model = Model::Load(path, TestKeys().trust);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_EQ((*model)->info().key_id, TestKeys().trusted_id);
    EXPECT_FALSE((*model)->info().weights_mapped);  // copied while hashed (the default)
    auto session = Session::Create((*model)->graph());
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    auto got = (*session)->Run({*input});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), expected->size());
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].shape, (*expected)[i].shape);
      EXPECT_EQ((*got)[i].bytes, (*expected)[i].bytes) << compress << " output " << i;
    }
  }
  std::filesystem::remove_all(tmp);
}

struct Flip {
  size_t pos;
  uint8_t mask;
};

struct SweepResult {
  std::map<std::string, int> reasons;  // refusal category -> count
  std::vector<size_t> accepted;        // positions whose flip loaded: must stay empty
};

// Loads `image` once per flip (each applied alone). Flips are spread over a few threads, each
// with its own copy of the image: the cost is one Ed25519 check plus SHA-256 of the file per
// flip, so wall time matters on big models.
SweepResult Sweep(const std::vector<uint8_t>& image, const std::vector<Flip>& flips) {
  const size_t n = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  std::vector<SweepResult> partial(n);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      std::vector<uint8_t> copy = image;
      for (size_t i = t; i < flips.size(); i += n) {
        copy[flips[i].pos] ^= flips[i].mask;
        Status s = LoadBytes(copy, copy.size());
        copy[flips[i].pos] ^= flips[i].mask;
        if (s.ok()) {
          partial[t].accepted.push_back(flips[i].pos);
        } else {
          ++partial[t].reasons[Category(s.message())];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  SweepResult all;
  for (const auto& p : partial) {
    for (const auto& [r, c] : p.reasons) all.reasons[r] += c;
    all.accepted.insert(all.accepted.end(), p.accepted.begin(), p.accepted.end());
  }
  return all;
}

void Report(const std::string& what, const SweepResult& r) {
  std::cout << "[ sweep    ] " << what << ", refusals:";
  for (const auto& [reason, n] : r.reasons) std::cout << " " << reason << "=" << n;
  std::cout << "\n";
  EXPECT_TRUE(r.accepted.empty()) << r.accepted.size() << " tampered files were accepted, first "
                                  << "at byte " << r.accepted.front();
  for (const auto& [reason, n] : r.reasons) {
    EXPECT_EQ(reason.rfind("other", 0), std::string::npos) << "unnamed refusal: " << reason;
  }
}

TEST_F(ModelFileSecurityTest, EveryFlippedByteOfSignedMnistIsRefused) {
  ASSERT_NE(mnist_, nullptr);
  const std::vector<uint8_t> image = Compile(*mnist_, "none");
  ASSERT_TRUE(LoadBytes(image, image.size()).ok());
  std::vector<Flip> flips;
  for (size_t i = 0; i < image.size(); ++i) flips.push_back({i, 0xff});
  Report("mnist: all " + std::to_string(image.size()) + " bytes flipped", Sweep(image, flips));
}

TEST_F(ModelFileSecurityTest, EveryTruncationOfSignedMnistIsRefused) {
  ASSERT_NE(mnist_, nullptr);
  const std::vector<uint8_t> image = Compile(*mnist_, "none");
  for (size_t len = 0; len < image.size(); ++len) {
    Status s = LoadBytes(image, len);
    ASSERT_FALSE(s.ok()) << "truncation to " << len << " bytes was accepted";
    ASSERT_EQ(Category(s.message()).rfind("other", 0), std::string::npos) << s.message();
  }
}

TEST_F(ModelFileSecurityTest, RandomFlipsOfSignedMobilenetAreRefused) {
  auto mobilenet = Import("mobilenetv2", true);
  ASSERT_NE(mobilenet, nullptr);
  const std::vector<uint8_t> image = Compile(*mobilenet, "none");
  ASSERT_GT(image.size(), 10u << 20);
  ASSERT_TRUE(LoadBytes(image, image.size()).ok());
  std::mt19937_64 rng(20240501);
  std::vector<Flip> flips;
  for (int i = 0; i < 2000; ++i) {
    flips.push_back(
        {static_cast<size_t>(rng() % image.size()), static_cast<uint8_t>(1 + rng() % 255)});
  }
  Report("mobilenetv2: 2000 random bytes of " + std::to_string(image.size()), Sweep(image, flips));
}

TEST_F(ModelFileSecurityTest, KeysAndSignersMustBeTrusted) {
  ASSERT_NE(mnist_, nullptr);
  const std::vector<uint8_t> image = Compile(*mnist_, "none");
  // Wrong key in the trust store.
  TrustStore other;
  ASSERT_TRUE(other.AddPublicKeyPem(*TestKeys().untrusted->public_key()->ToPem()).ok());
  Status s = LoadBytes(image, image.size(), {}, &other);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Category(s.message()), "untrusted key") << s.message();
  // Empty trust store, even with allow_unsigned: a signed file must verify.
  LoadOptions allow;
  allow.allow_unsigned = true;
  const TrustStore empty;
  s = LoadBytes(image, image.size(), allow, &empty);
  EXPECT_EQ(Category(s.message()), "untrusted key") << s.message();

  // Re-signed by an untrusted key.
  auto resigned = SignModelImage(image.data(), image.size(), *TestKeys().untrusted);
  ASSERT_TRUE(resigned.ok());
  s = LoadBytes(*resigned, resigned->size());
  EXPECT_EQ(Category(s.message()), "untrusted key") << s.message();
  // ... claiming the trusted key's id.
  std::vector<uint8_t> forged = *resigned;
  const size_t sig_off = format::LoadU64(forged.data() + 40);
  std::memcpy(forged.data() + sig_off + 8, TestKeys().trusted_id.data(), 16);
  s = LoadBytes(forged, forged.size());
  EXPECT_EQ(Category(s.message()), "bad signature") << s.message();

  // Unsigned: refused by default, accepted when explicitly allowed.
  const std::vector<uint8_t> unsigned_image = Compile(*mnist_, "none", 1, nullptr);
  s = LoadBytes(unsigned_image, unsigned_image.size());
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Category(s.message()), "unsigned") << s.message();
  EXPECT_TRUE(LoadBytes(unsigned_image, unsigned_image.size(), allow).ok());
  // Signature stripped from a signed file (flag cleared): bounds or unsigned, never accepted.
  std::vector<uint8_t> stripped = image;
  stripped[12] &= static_cast<uint8_t>(~format::kFlagSigned);
  EXPECT_FALSE(LoadBytes(stripped, stripped.size(), allow).ok());
}

TEST_F(ModelFileSecurityTest, SectionSwappedFromAnotherSignedFileIsRefused) {
  ASSERT_NE(mnist_, nullptr);
  const std::vector<uint8_t> a = Compile(*mnist_, "none", 1000);
  const std::vector<uint8_t> b = Compile(*mnist_, "none", 2000);  // other metadata, same layout
  ASSERT_EQ(a.size(), b.size());
  auto view_a = format::ParseContainer(a.data(), a.size());
  ASSERT_TRUE(view_a.ok());
  for (size_t i = 0; i < view_a->sections.size(); ++i) {
    const format::SectionEntry& e = view_a->sections[i];
    if (e.kind != static_cast<uint32_t>(format::SectionKind::kMetadata)) continue;
    ASSERT_NE(std::memcmp(a.data() + e.offset, b.data() + e.offset, e.stored_size), 0);
    // Section bytes only: the signed table's hash no longer matches.
    std::vector<uint8_t> swapped = a;
    std::memcpy(swapped.data() + e.offset, b.data() + e.offset, e.stored_size);
    Status s = LoadBytes(swapped, swapped.size());
    EXPECT_EQ(Category(s.message()), "section hash of metadata") << s.message();
    // Section bytes and its table entry: the header signature no longer verifies.
    const size_t entry = format::kHeaderSize + i * format::kSectionEntrySize;
    std::memcpy(swapped.data() + entry, b.data() + entry, format::kSectionEntrySize);
    s = LoadBytes(swapped, swapped.size());
    EXPECT_EQ(Category(s.message()), "bad signature") << s.message();
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_ASAN 1
#endif
#endif

// Caps the process's address space at its current size + `headroom` bytes, so that any large
// allocation fails (and the test with it) instead of silently succeeding untouched. Not under
// ASan, which reserves terabytes of shadow memory.
class ScopedAddressSpaceLimit {
 public:
  explicit ScopedAddressSpaceLimit(uint64_t headroom) {
#ifndef KILN_TEST_ASAN
    getrlimit(RLIMIT_AS, &saved_);
    std::ifstream status("/proc/self/status");
    std::string line;
    uint64_t vm_kb = 0;
    while (std::getline(status, line)) {
      if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stoull(line.substr(7));
    }
    if (vm_kb == 0) return;
    struct rlimit limit = saved_;
    limit.rlim_cur = vm_kb * 1024 + headroom;
    active_ = setrlimit(RLIMIT_AS, &limit) == 0;
#endif
  }
  ~ScopedAddressSpaceLimit() {
    if (active_) setrlimit(RLIMIT_AS, &saved_);
  }
  bool active() const { return active_; }

 private:
  struct rlimit saved_ {};
  bool active_ = false;
};

TEST_F(ModelFileSecurityTest, LyingUncompressedSizesAreRefusedWithoutLargeAllocations) {
  ASSERT_NE(mnist_, nullptr);
  const std::vector<uint8_t> image = Compile(*mnist_, "zstd");
  auto view = format::ParseContainer(image.data(), image.size());
  ASSERT_TRUE(view.ok());
  // 1 GiB of headroom: neither 1 TiB nor 3 GiB (nor a sizeable part of them) can be allocated.
  ScopedAddressSpaceLimit limit(uint64_t{1} << 30);
  for (uint64_t declared : {uint64_t{1} << 40, uint64_t{3} << 30}) {
    for (size_t i = 0; i < view->sections.size(); ++i) {
      std::vector<uint8_t> lying = image;
      format::StoreU64(lying.data() + format::kHeaderSize + i * format::kSectionEntrySize + 24,
                       declared);
      // Signed by the trusted key: only the size limit / decompression can catch it.
      auto resigned = SignModelImage(lying.data(), lying.size(), *TestKeys().trusted);
      ASSERT_TRUE(resigned.ok()) << resigned.status().ToString();
      Status s = LoadBytes(*resigned, resigned->size());
      ASSERT_FALSE(s.ok());
      if (declared > format::kDefaultMaxSectionBytes) {
        EXPECT_EQ(Category(s.message()), "bounds") << s.message();
        EXPECT_NE(s.message().find("above the limit"), std::string::npos) << s.message();
      } else {
        EXPECT_EQ(Category(s.message()), "decompression") << s.message();
      }
    }
  }
  std::cout << "[ limits   ] address-space cap " << (limit.active() ? "active" : "not active")
            << " during the lying-size loads\n";
  // A caller limit below the real size is honoured too.
  LoadOptions tight;
  tight.max_section_bytes = 1024;
  Status s = LoadBytes(image, image.size(), tight);
  EXPECT_NE(s.message().find("above the limit of 1024"), std::string::npos) << s.message();
}

TEST_F(ModelFileSecurityTest, FileLevelRefusalsNameTheCheck) {
  ASSERT_NE(mnist_, nullptr);
  const auto tmp = std::filesystem::temp_directory_path() /
                   ("kiln_security_files_" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  std::vector<uint8_t> image = Compile(*mnist_, "none");
  auto load = [&](const std::vector<uint8_t>& bytes) {
    const std::string path = (tmp / "m.kiln").string();
    EXPECT_TRUE(WriteFileAtomically(path, bytes).ok());
    auto m = Model::Load(path, TestKeys().trust);
    return m.ok() ? std::string("ok") : m.status().message();
  };
  EXPECT_EQ(load(image), "ok");
  std::vector<uint8_t> bad = image;
  bad[0] = 'X';
  EXPECT_NE(load(bad).find("bad magic"), std::string::npos);
  bad = image;
  format::StoreU16(bad.data() + 8, 3);
  EXPECT_NE(load(bad).find("version 3." + std::to_string(format::kMinorVersion)), std::string::npos)
      << load(bad);
  bad = image;
  bad.push_back(0);
  EXPECT_NE(load(bad).find("bounds"), std::string::npos) << load(bad);
  EXPECT_NE(load({}).find("bad magic"), std::string::npos);
  auto missing = Model::Load((tmp / "missing.kiln").string(), TestKeys().trust);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::filesystem::remove_all(tmp);
}

}  // namespace
}  // namespace kiln
