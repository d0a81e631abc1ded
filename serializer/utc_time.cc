// Civil-date arithmetic after Howard Hinnant's days_from_civil / civil_from_days (proleptic
// Gregorian calendar), in int64 throughout so no input can overflow it.
#include "serializer/utc_time.h"

#include <cstdio>

namespace kiln {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yoe + era * 400 + (*m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Digits text[pos, pos + n) as a number, or -1.
int64_t Digits(std::string_view text, size_t pos, size_t n) {
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

std::string FormatUtc(int64_t unix_seconds) {
  // Floor division: times before 1970 count back from the day's start.
  int64_t days = unix_seconds / kSecondsPerDay;
  int64_t secs = unix_seconds % kSecondsPerDay;
  if (secs < 0) {
    secs += kSecondsPerDay;
    --days;
  }
  int64_t y = 0, m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  if (y < 0 || y > 9999) return "unix " + std::to_string(unix_seconds);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", static_cast<int>(y),
                static_cast<int>(m), static_cast<int>(d), static_cast<int>(secs / 3600),
                static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60));
  return buf;
}

Expected<int64_t> ParseUtc(std::string_view text, const std::string& what) {
  auto bad = [&](const std::string& why) -> Status {
    std::string shown;  // the input may be anything: show printable ASCII only
    for (char c : text.substr(0, 40)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return InvalidArgument(what + ": '" + shown + "' is not an ISO 8601 UTC time" +
                           (why.empty() ? "" : " " + why) +
                           " (expected YYYY-MM-DDTHH:MM:SSZ, e.g. 2027-01-01T00:00:00Z)");
  };
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z') {
    return bad("");
  }
  const int64_t y = Digits(text, 0, 4), mo = Digits(text, 5, 2), d = Digits(text, 8, 2);
  const int64_t h = Digits(text, 11, 2), mi = Digits(text, 14, 2), s = Digits(text, 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0) return bad("");
  if (mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) {
    return bad("(a field is out of range)");
  }
  return DaysFromCivil(y, mo, d) * kSecondsPerDay + h * 3600 + mi * 60 + s;
}

}  // namespace kiln
