#include "core/ir/dim_bindings.h"

#include <charconv>

namespace tapas {

namespace {

std::string_view trimmed(std::string_view s)
{
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

} // namespace

Status addDimBinding(DimBindings& dims, std::string_view arg)
{
    const std::string quoted = "--dim '" + std::string(arg) + "'";
    const size_t eq = arg.find('=');
    const std::string_view name = eq == std::string_view::npos ? std::string_view() : trimmed(arg.substr(0, eq));
    std::string_view number = eq == std::string_view::npos ? std::string_view() : trimmed(arg.substr(eq + 1));
    if (name.empty() || number.empty()) return Status::failure(quoted + ": expected name=value, e.g. --dim batch=8");
    if (number.front() == '+') number.remove_prefix(1);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size() || value <= 0)
        return Status::failure(quoted + ": the value of '" + std::string(name) + "' must be a positive integer");
    const auto [it, inserted] = dims.emplace(std::string(name), value);
    if (!inserted && it->second != value)
        return Status::failure(quoted + ": '" + std::string(name) + "' is already bound to " + std::to_string(it->second));
    return Status::success();
}

Result<DimBindings> parseDimBindings(const std::vector<std::string>& args)
{
    DimBindings dims;
    for (const std::string& arg : args)
        if (Status s = addDimBinding(dims, arg); !s) return Result<DimBindings>::failure(s.error);
    return dims;
}

} // namespace tapas
