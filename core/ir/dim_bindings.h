#pragma once
// The `--dim name=value` grammar, one parser for every program that binds symbolic dims (the
// `tapas` commands, tapas-studio): the name and the value are trimmed, the value must be a
// positive integer, and a name bound twice must be bound to the same value. Errors name the
// argument as the user typed it: "--dim 'batch=x': the value of 'batch' must be a positive integer".
#include "core/ir/shape.h"
#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace tapas {

// Adds one "name=value" argument to `dims`.
[[nodiscard]] Status addDimBinding(DimBindings& dims, std::string_view arg);

// All arguments of a repeated --dim option, in order.
[[nodiscard]] Result<DimBindings> parseDimBindings(const std::vector<std::string>& args);

} // namespace tapas
