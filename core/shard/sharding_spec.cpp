#include "core/shard/sharding_spec.h"

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

bool parseTensorLayout(const std::string& text, TensorLayout& out)
{
    if (text == "R") return out = TensorLayout::replicated(), true;
    if (text == "P") return out = TensorLayout::partial(), true;
    if (text.size() >= 4 && text.starts_with("S(") && text.back() == ')') {
        try {
            size_t used = 0;
            const int d = std::stoi(text.substr(2, text.size() - 3), &used);
            if (used != text.size() - 3 || d < 0 || d > 64) return false;
            out = TensorLayout::split(d);
            return true;
        } catch (...) {
            return false;
        }
    }
    return false;
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
