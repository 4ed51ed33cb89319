#include "core/util/json_fields.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace tapas {

namespace {

std::string number(double v)
{
    char b[64];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

} // namespace

Result<int64_t> jsonInteger(const nlohmann::json& v, int64_t min, int64_t max)
{
    const std::string range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (!v.is_number_integer()) return Result<int64_t>::failure("is " + v.dump() + ", expected " + range);
    // Unsigned JSON integers above INT64_MAX would turn negative through get<int64_t>().
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
        return Result<int64_t>::failure("is " + v.dump() + ", expected " + range);
    const int64_t x = v.get<int64_t>();
    if (x < min || x > max) return Result<int64_t>::failure("is " + v.dump() + ", expected " + range);
    return x;
}

Result<double> jsonNumber(const nlohmann::json& v, double min, double max, Interval interval)
{
    const std::string range = std::string(interval == Interval::OpenMin ? "(" : "[") + number(min) + ", " + number(max) +
                              (interval == Interval::OpenMax ? ")" : "]");
    if (!v.is_number()) return Result<double>::failure("is " + v.dump() + ", expected a number in " + range);
    const double x = v.get<double>();
    const bool below = interval == Interval::OpenMin ? !(x > min) : !(x >= min);
    const bool above = interval == Interval::OpenMax ? !(x < max) : !(x <= max);
    if (!std::isfinite(x)) return Result<double>::failure("is not finite (" + v.dump() + "), expected a number in " + range);
    if (below || above) return Result<double>::failure("is " + v.dump() + ", expected a number in " + range);
    return x;
}

} // namespace tapas
