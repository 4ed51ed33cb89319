#pragma once
// Exact reads of numbers from parsed JSON for the files a user hands us (plans, cluster specs):
// an integer is taken only when it is an integer in range, never wrapped through a narrower
// cast (2^32 + 2 read as an int is 2); a float only when finite and in range.
// The error says what the value is and what was expected; the caller adds the file and field.
#include "core/util/result.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace tapas {

// An integer in [min, max]; a float such as 2.0, a string or a bool is refused.
Result<int64_t> jsonInteger(const nlohmann::json& v, int64_t min, int64_t max);

enum class Interval { Closed, OpenMin, OpenMax }; // [min, max], (min, max], [min, max)
// A finite number within the interval.
Result<double> jsonNumber(const nlohmann::json& v, double min, double max, Interval interval = Interval::Closed);

} // namespace tapas
