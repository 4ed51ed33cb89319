#include "core/ir/shape.h"

#include <cstdint>

namespace tapas {

std::string Dim::toString() const
{
    if (isKnown()) return std::to_string(value);
    if (!symbol.empty()) return symbol;
    return "?";
}

Shape Shape::of(std::initializer_list<int64_t> d)
{
    return of(std::vector<int64_t>(d));
}

Shape Shape::of(const std::vector<int64_t>& d)
{
    Shape s;
    s.rankKnown = true;
    for (int64_t v : d) s.dims.push_back(Dim::known(v));
    return s;
}

bool Shape::isFullyKnown() const
{
    if (!rankKnown) return false;
    for (const Dim& d : dims)
        if (!d.isKnown()) return false;
    return true;
}

std::optional<int64_t> Shape::numElements() const
{
    if (!isFullyKnown()) return std::nullopt;
    int64_t n = 1;
    for (const Dim& d : dims)
        if (__builtin_mul_overflow(n, d.value, &n)) return std::nullopt; // hostile file: no count
    return n;
}

int64_t Shape::numElementsOr(int64_t fallback) const
{
    if (!rankKnown) return fallback;
    // Saturates instead of overflowing: a hostile file may declare absurd dims.
    int64_t n = 1;
    for (const Dim& d : dims)
        if (__builtin_mul_overflow(n, d.isKnown() ? d.value : fallback, &n)) return INT64_MAX;
    return n;
}

std::vector<int64_t> Shape::knownDims() const
{
    std::vector<int64_t> out;
    out.reserve(dims.size());
    for (const Dim& d : dims) out.push_back(d.value);
    return out;
}

std::string Shape::toString() const
{
    if (!rankKnown) return "[?]";
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) s += ",";
        s += dims[i].toString();
    }
    return s + "]";
}

} // namespace tapas
