// ISO 8601 UTC parsing and printing: exact format, calendar ranges, any int64 printable.
#include "serializer/utc_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kiln {
namespace {

TEST(UtcTimeTest, FormatsAndParsesKnownInstants) {
  EXPECT_EQ(FormatUtc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatUtc(1798761600), "2027-01-01T00:00:00Z");
  EXPECT_EQ(FormatUtc(951782400), "2000-02-29T00:00:00Z");  // a leap day of a century
  EXPECT_EQ(FormatUtc(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(*ParseUtc("2027-01-01T00:00:00Z", "t"), 1798761600);
  EXPECT_EQ(*ParseUtc("1969-12-31T23:59:59Z", "t"), -1);
  EXPECT_EQ(*ParseUtc("2024-02-29T12:34:56Z", "t"), 1709210096);
  for (int64_t t : {int64_t{0}, int64_t{-86401}, int64_t{1234567890}, int64_t{253402300799}}) {
    EXPECT_EQ(*ParseUtc(FormatUtc(t), "t"), t) << t;
  }
}

TEST(UtcTimeTest, OutOfRangeValuesPrintAsRawNumbers) {
  EXPECT_EQ(FormatUtc(253402300800), "unix 253402300800");  // year 10000
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(FormatUtc(lo), "unix " + std::to_string(lo));
  EXPECT_EQ(FormatUtc(hi), "unix " + std::to_string(hi));
}

TEST(UtcTimeTest, RefusesAnythingButTheExactForm) {
  for (const char* bad : {"", "2027-01-01", "2027-01-01T00:00:00", "2027-01-01T00:00:00+00:00",
                          "2027-01-01 00:00:00Z", "2027-01-01t00:00:00z", "2027-01-01T00:00:00.5Z",
                          "2027-13-01T00:00:00Z", "2027-00-10T00:00:00Z", "2027-02-29T00:00:00Z",
                          "2100-02-29T00:00:00Z", "2027-04-31T00:00:00Z", "2027-01-01T24:00:00Z",
                          "2027-01-01T00:60:00Z", "2027-01-01T00:00:60Z", "+027-01-01T00:00:00Z",
                          "2027-01-0xT00:00:00Z", "2027-01-01T00:00:00Z "}) {
    auto t = ParseUtc(bad, "--not-after");
    EXPECT_FALSE(t.ok()) << bad;
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find("--not-after"), std::string::npos);
      EXPECT_NE(t.status().message().find("YYYY-MM-DDTHH:MM:SSZ"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace kiln
