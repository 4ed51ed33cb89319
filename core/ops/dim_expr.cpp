#include "core/ops/dim_expr.h"

#include <algorithm>
#include <cctype>

namespace tapas {

namespace {
bool allDigits(const std::string& s)
{
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
} // namespace

DimExpr DimExpr::parse(const std::string& symbol)
{
    DimExpr e;
    size_t start = 0;
    while (start <= symbol.size()) {
        size_t star = symbol.find('*', start);
        if (star == std::string::npos) star = symbol.size();
        std::string part = symbol.substr(start, star - start);
        if (allDigits(part) && part.size() < 18) e.coef *= std::stoll(part);
        else if (!part.empty()) e.syms.push_back(part);
        start = star + 1;
    }
    std::sort(e.syms.begin(), e.syms.end());
    return e;
}

std::string DimExpr::toString() const
{
    if (syms.empty()) return std::to_string(coef);
    std::string s = coef == 1 ? std::string() : std::to_string(coef);
    for (const std::string& f : syms) {
        if (!s.empty()) s += "*";
        s += f;
    }
    return s;
}

std::optional<DimExpr> dimExpr(const Dim& d)
{
    if (d.isKnown()) return DimExpr::number(d.value);
    if (d.isSymbolic()) return DimExpr::parse(d.symbol);
    return std::nullopt;
}

Dim dimFromExpr(const DimExpr& e)
{
    if (e.isNumber()) return e.coef >= 0 ? Dim::known(e.coef) : Dim::unknown();
    if (e.coef == 0) return Dim::known(0);
    if (e.coef < 0) return Dim::unknown();
    return Dim::symbolic(e.toString());
}

std::optional<DimExpr> mulExpr(const DimExpr& a, const DimExpr& b)
{
    DimExpr r;
    if (__builtin_mul_overflow(a.coef, b.coef, &r.coef)) return std::nullopt;
    r.syms = a.syms;
    r.syms.insert(r.syms.end(), b.syms.begin(), b.syms.end());
    std::sort(r.syms.begin(), r.syms.end());
    if (r.coef == 0) r.syms.clear();
    return r;
}

std::optional<DimExpr> divExpr(const DimExpr& a, const DimExpr& b)
{
    if (b.coef == 0 || a.coef % b.coef != 0) return std::nullopt;
    DimExpr r;
    r.coef = a.coef / b.coef;
    r.syms = a.syms;
    for (const std::string& s : b.syms) {
        auto it = std::find(r.syms.begin(), r.syms.end(), s);
        if (it == r.syms.end()) return std::nullopt;
        r.syms.erase(it);
    }
    return r;
}

Dim mulDim(const Dim& a, const Dim& b)
{
    // 0 times anything is 0, even when the other factor is unknown.
    if ((a.isKnown() && a.value == 0) || (b.isKnown() && b.value == 0)) return Dim::known(0);
    auto ea = dimExpr(a), eb = dimExpr(b);
    if (!ea || !eb) return Dim::unknown();
    auto r = mulExpr(*ea, *eb);
    return r ? dimFromExpr(*r) : Dim::unknown();
}

Dim divDim(const Dim& a, const Dim& b)
{
    auto ea = dimExpr(a), eb = dimExpr(b);
    if (!ea || !eb) return Dim::unknown();
    auto r = divExpr(*ea, *eb);
    return r ? dimFromExpr(*r) : Dim::unknown();
}

Dim addDim(const Dim& a, const Dim& b)
{
    if (a.isKnown() && b.isKnown()) {
        int64_t sum = 0;
        return __builtin_add_overflow(a.value, b.value, &sum) ? Dim::unknown() : Dim::known(sum);
    }
    if (b.isKnown() && b.value == 0) return a;
    if (a.isKnown() && a.value == 0) return b;
    return Dim::unknown();
}

Dim addDim(const Dim& a, int64_t b)
{
    int64_t sum = 0;
    if (a.isKnown()) return !__builtin_add_overflow(a.value, b, &sum) && sum >= 0 ? Dim::known(sum) : Dim::unknown();
    return b == 0 ? a : Dim::unknown();
}

Dim productOf(const std::vector<Dim>& dims)
{
    Dim p = Dim::known(1);
    for (const Dim& d : dims) p = mulDim(p, d);
    return p;
}

bool sameDim(const Dim& a, const Dim& b)
{
    auto ea = dimExpr(a), eb = dimExpr(b);
    return ea && eb && *ea == *eb;
}

bool isPlaceholderSymbol(const std::string& s) { return s.rfind("unk__", 0) == 0; }

Dim bindDim(const Dim& d, const DimBindings& dims)
{
    if (!d.isSymbolic()) return d;
    DimExpr e = DimExpr::parse(d.symbol);
    DimExpr r;
    r.coef = e.coef;
    bool any = false;
    for (const std::string& s : e.syms) {
        auto it = dims.find(s);
        if (it == dims.end()) {
            r.syms.push_back(s);
        } else {
            if (__builtin_mul_overflow(r.coef, it->second, &r.coef)) return Dim::unknown();
            any = true;
        }
    }
    return any ? dimFromExpr(r) : d;
}

} // namespace tapas
