// ISO 8601 UTC times ("2027-01-01T00:00:00Z") to and from seconds since the Unix epoch: how
// validity times are given on the command line and printed by `kiln verify`. Pure arithmetic
// (no time zone database, no locale), so the runtime gets the same answer on every device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/status.h"

namespace kiln {

// "YYYY-MM-DDTHH:MM:SSZ" for years 0000..9999; other values (a signed file may hold any int64)
// print as "unix N".
std::string FormatUtc(int64_t unix_seconds);

// Exactly "YYYY-MM-DDTHH:MM:SSZ": UTC only ('Z'), no fractions, offsets or leap seconds, every
// field in range (February 29 only in leap years). `what` names the input in the error.
Expected<int64_t> ParseUtc(std::string_view text, const std::string& what);

}  // namespace kiln
