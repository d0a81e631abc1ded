// Tests for .npy reading/writing: files written by NumPy 1.24, round trips, and malformed input.
#include "calibration/npy_io.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

namespace kiln {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

// Exactly what np.save(np.array([[1.5,-2],[3,4.25]], dtype='<f4')) writes.
std::string NumpyF32File() {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  header.append(118 - header.size() - 1, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00v\x00", 10) + header +
         std::string("\x00\x00\xc0?\x00\x00\x00\xc0\x00\x00@@\x00\x00\x88@", 16);
}

// A v1.0 file with the given header dict and raw data bytes (header padded like NumPy does).
std::vector<uint8_t> MakeNpy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  const uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  return Bytes(out + header + data);
}

TEST(NpyIo, ReadsNumpyFloat32File) {
  auto bytes = Bytes(NumpyF32File());
  ASSERT_EQ(bytes.size(), 144u);
  auto t = ParseNpy(bytes.data(), bytes.size());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype, DType::kF32);
  EXPECT_EQ(t->shape, (Shape{2, 2}));
  const float* v = t->data<float>();
  EXPECT_FLOAT_EQ(v[0], 1.5f);
  EXPECT_FLOAT_EQ(v[1], -2.f);
  EXPECT_FLOAT_EQ(v[2], 3.f);
  EXPECT_FLOAT_EQ(v[3], 4.25f);
}

TEST(NpyIo, EncodesByteIdenticalToNumpy) {
  HostTensor t("x", DType::kF32, {2, 2});
  const float values[] = {1.5f, -2.f, 3.f, 4.25f};
  std::memcpy(t.bytes.data(), values, sizeof(values));
  auto bytes = EncodeNpy(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, Bytes(NumpyF32File()));
}

TEST(NpyIo, ReadsVersions2And3AndScalars) {
  auto v2 = MakeNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
                    std::string("\x00\x01\x02", 3), 2);
  auto t2 = ParseNpy(v2.data(), v2.size());
  ASSERT_TRUE(t2.ok()) << t2.status().ToString();
  EXPECT_EQ(t2->dtype, DType::kU8);
  EXPECT_EQ(t2->shape, (Shape{3}));
  EXPECT_EQ(t2->bytes[2], 2);

  auto v3 = MakeNpy("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }",
                    std::string("\xff\x01\x02", 3), 3);
  auto t3 = ParseNpy(v3.data(), v3.size());
  ASSERT_TRUE(t3.ok()) << t3.status().ToString();
  EXPECT_EQ(t3->dtype, DType::kI8);
  EXPECT_EQ(t3->data<int8_t>()[0], -1);

  auto scalar = MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", "\x01");
  auto ts = ParseNpy(scalar.data(), scalar.size());
  ASSERT_TRUE(ts.ok()) << ts.status().ToString();
  EXPECT_EQ(ts->dtype, DType::kBool);
  EXPECT_TRUE(ts->shape.empty());
}

TEST(NpyIo, RoundTripsEveryDtypeThroughAFile) {
  const DType dtypes[] = {DType::kF32, DType::kF16, DType::kI8,  DType::kU8,
                          DType::kI32, DType::kI64, DType::kBool};
  std::mt19937 rng(7);
  for (DType dt : dtypes) {
    HostTensor t("t", dt, {2, 3, 1});
    for (auto& b : t.bytes) b = static_cast<uint8_t>(dt == DType::kBool ? rng() % 2 : rng());
    const std::string path = ::testing::TempDir() + "/npy_roundtrip.npy";
    ASSERT_TRUE(WriteNpyFile(path, t).ok());
    auto back = ReadNpyFile(path);
    ASSERT_TRUE(back.ok()) << DTypeName(dt) << ": " << back.status().ToString();
    EXPECT_EQ(back->dtype, dt);
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->bytes, t.bytes);
    std::remove(path.c_str());
  }
}

TEST(NpyIo, ThirtyTwoDimsRoundTrip) {
  HostTensor t("t", DType::kU8, Shape(32, 1));
  auto bytes = EncodeNpy(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((*bytes)[6], 1);  // still fits v1
  auto back = ParseNpy(bytes->data(), bytes->size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->shape.size(), 32u);
}

void ExpectError(const std::vector<uint8_t>& bytes, const std::string& needle) {
  auto t = ParseNpy(bytes.data(), bytes.size());
  ASSERT_FALSE(t.ok()) << "expected an error containing '" << needle << "'";
  EXPECT_NE(t.status().message().find(needle), std::string::npos) << t.status().ToString();
}

TEST(NpyIo, RejectsMalformedFiles) {
  ExpectError(Bytes(""), "magic");
  ExpectError(Bytes("PK\x03\x04 not npy at all"), "magic");
  ExpectError(Bytes(std::string("\x93NUMPY\x01\x00", 8)), "truncated");
  ExpectError(Bytes(std::string("\x93NUMPY\x09\x00\x10\x00", 10)), "version");
  // Header length pointing past the end of the file.
  ExpectError(Bytes(std::string("\x93NUMPY\x01\x00\xff\x7f{}", 12)), "exceeds");
  const std::string f4 = std::string(8, '\0');
  ExpectError(MakeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", f4),
              "big-endian");
  ExpectError(MakeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", f4),
              "not supported");
  ExpectError(
      MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, '\0')),
      "Fortran");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4),
              "size mismatch");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f4),
              "size mismatch");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", f4),
              "non-negative");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
                      "4294967296, 4294967296), }",
                      f4),
              "overflows");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, }", f4), "shape");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False}", f4), "'shape'");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", f4),
              "fortran_order");
  ExpectError(MakeNpy("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", f4),
              "npy header");
  ExpectError(MakeNpy("[1, 2]", f4), "not a dict");
  ExpectError(MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", "\x01\x07"),
              "neither 0 nor 1");
}

TEST(NpyIo, TruncationAtEveryByteNeverCrashes) {
  const auto full = Bytes(NumpyF32File());
  for (size_t n = 0; n < full.size(); ++n) {
    auto t = ParseNpy(full.data(), n);
    EXPECT_FALSE(t.ok()) << "prefix of " << n << " bytes parsed";
  }
  // Random single-byte corruptions of the header: must return, ok or not.
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    auto b = full;
    b[rng() % 128] = static_cast<uint8_t>(rng());
    (void)ParseNpy(b.data(), b.size()).ok();
  }
}

TEST(NpyIo, MissingFileIsNotFound) {
  auto t = ReadNpyFile("/nonexistent/dir/x.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace kiln
