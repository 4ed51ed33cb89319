#include "core/ir/attribute.h"

#include <sstream>

namespace tapas {

namespace {
std::string formatDouble(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

template <class T, class F>
std::string joinList(const std::vector<T>& v, size_t maxElements, F fmt)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size() && i < maxElements; ++i) {
        if (i) s += ",";
        s += fmt(v[i]);
    }
    if (v.size() > maxElements) s += ",…";
    return s + "]";
}
} // namespace

std::string ConstValue::toString(size_t maxElements) const
{
    std::string s = std::string(dtypeName(dtype)) + shape.toString();
    if (isInteger() && !ints.empty())
        s += " " + joinList(ints, maxElements, [](int64_t v) { return std::to_string(v); });
    else if (!floats.empty())
        s += " " + joinList(floats, maxElements, formatDouble);
    return s;
}

std::string Attribute::toString() const
{
    switch (kind) {
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return formatDouble(f);
    case Kind::String: return "\"" + s + "\"";
    case Kind::Ints: return joinList(ints, 16, [](int64_t v) { return std::to_string(v); });
    case Kind::Floats: return joinList(floats, 16, formatDouble);
    case Kind::Strings: return joinList(strings, 16, [](const std::string& v) { return "\"" + v + "\""; });
    case Kind::Tensor: return "tensor " + tensor.toString();
    case Kind::Graph: return "graph (" + std::to_string(graphNodes) + " nodes)";
    case Kind::Other: return "…";
    }
    return {};
}

} // namespace tapas
