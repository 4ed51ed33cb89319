#pragma once
// Tensor shapes with concrete or symbolic dimensions ("batch", "seq"), as exporters write them.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tapas {

struct Dim {
    int64_t value = -1;   // >= 0 when known
    std::string symbol;   // non-empty for a named symbolic dim; empty + value<0 = unknown

    static Dim known(int64_t v) { return Dim{v, {}}; }
    static Dim symbolic(std::string s) { return Dim{-1, std::move(s)}; }
    static Dim unknown() { return Dim{}; }

    bool isKnown() const { return value >= 0; }
    bool isSymbolic() const { return value < 0 && !symbol.empty(); }
    std::string toString() const; // "768", "batch", "?"
    bool operator==(const Dim& o) const { return value == o.value && symbol == o.symbol; }
};

struct Shape {
    bool rankKnown = false;
    std::vector<Dim> dims;

    static Shape unknownRank() { return {}; }
    static Shape of(std::initializer_list<int64_t> d);
    static Shape of(const std::vector<int64_t>& d);
    static Shape ofDims(std::vector<Dim> d) { return Shape{true, std::move(d)}; }

    int rank() const { return rankKnown ? int(dims.size()) : -1; }
    bool isFullyKnown() const;
    std::optional<int64_t> numElements() const; // nullopt unless fully known
    // Element count with symbolic/unknown dims counted as `fallback` each (used for estimates).
    int64_t numElementsOr(int64_t fallback) const;
    std::vector<int64_t> knownDims() const;     // requires isFullyKnown()
    std::string toString() const;               // "[batch,128,768]", "[?]" for unknown rank
    bool operator==(const Shape& o) const { return rankKnown == o.rankKnown && dims == o.dims; }
};

// Bindings of symbolic dims to values, e.g. {"batch":8, "seq":2048} from `--dim batch=8`.
using DimBindings = std::map<std::string, int64_t>;

} // namespace tapas
