#pragma once
// Symbolic dims as products: "batch", "4*batch", "batch*seq". Real exports compute Reshape
// targets such as batch*heads or batch*seq from Shape chains; a monomial keeps those exact, so
// binding 'batch' later still resolves "4*batch". Sums are not representable (they turn unknown).
#include "core/ir/shape.h"

#include <optional>
#include <string>
#include <vector>

namespace tapas {

struct DimExpr {
    int64_t coef = 1;
    std::vector<std::string> syms; // sorted; repeated symbols allowed (seq*seq)

    bool isNumber() const { return syms.empty(); }
    static DimExpr number(int64_t v) { return DimExpr{v, {}}; }
    // "4*batch" -> {4,[batch]}; a symbol without '*' is one factor.
    static DimExpr parse(const std::string& symbol);
    std::string toString() const; // canonical: coefficient first when not 1, then symbols
    bool operator==(const DimExpr& o) const { return coef == o.coef && syms == o.syms; }
};

std::optional<DimExpr> dimExpr(const Dim& d); // nullopt for unknown dims
Dim dimFromExpr(const DimExpr& e);           // numbers < 0 become unknown

// nullopt when the coefficient overflows (hostile files can hold any dims).
std::optional<DimExpr> mulExpr(const DimExpr& a, const DimExpr& b);
// Exact division only: the coefficient must divide and b's symbols must be in a.
std::optional<DimExpr> divExpr(const DimExpr& a, const DimExpr& b);

// Dim arithmetic used by the shape rules. Each is exact or yields an unknown dim.
Dim mulDim(const Dim& a, const Dim& b);
Dim divDim(const Dim& a, const Dim& b);
Dim addDim(const Dim& a, const Dim& b);      // symbolic + 0 stays symbolic; other sums unknown
Dim addDim(const Dim& a, int64_t b);
Dim productOf(const std::vector<Dim>& dims); // 1 for an empty list
bool sameDim(const Dim& a, const Dim& b);    // provably equal (same number or same expression)
// True for ONNX's own placeholders ("unk__3"): they say nothing beyond "unknown but fixed".
bool isPlaceholderSymbol(const std::string& s);

// Replaces bound symbols in d; stays symbolic when some factor is unbound.
Dim bindDim(const Dim& d, const DimBindings& dims);

} // namespace tapas
