#include "core/shard/sharding_spec.h"

#include <algorithm>

namespace tapas {

std::string TensorLayout::toString() const
{
    switch (kind) {
    case R: return "R";
    case P: return "P";
    case S: return "S(" + std::to_string(int(dim)) + ")";
    }
    return "?";
}

Result<TensorLayout> parseTensorLayout(const std::string& text)
{
    if (text == "R") return TensorLayout::replicated();
    if (text == "P") return TensorLayout::partial();
    if (text.size() >= 4 && text.starts_with("S(") && text.back() == ')') {
        const std::string digits = text.substr(2, text.size() - 3);
        const bool allDigits = digits.size() <= 2 && std::all_of(digits.begin(), digits.end(), [](char c) {
            return c >= '0' && c <= '9';
        });
        if (allDigits && std::stoi(digits) <= 64) return TensorLayout::split(std::stoi(digits));
    }
    return Result<TensorLayout>::failure("'" + text + "' is not a tensor layout (R, P or S(d) with d in 0..64)");
}

ShardingSpec toShardingSpec(const TensorLayout& tp, int rank, bool batchSplitByDp)
{
    ShardingSpec s;
    for (int d = 0; d < rank; ++d) {
        std::string v;
        if (d == 0 && batchSplitByDp) v = "S(dp)";
        if (tp.kind == TensorLayout::S && tp.dim == d) v = v.empty() ? "S(tp)" : "S(dp,tp)";
        s.dims.push_back(v.empty() ? "R" : v);
    }
    s.partial = tp.kind == TensorLayout::P;
    return s;
}

std::string ShardingSpec::toString() const
{
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + dims[i];
    s += "]";
    if (partial) s += "+P(tp)";
    return s;
}

} // namespace tapas
