#pragma once
// Node attributes and small constant values. Constant values are kept only when small (shape
// tensors, axes, Reshape targets): planning needs shapes, never weight bytes.
#include "core/ir/dtype.h"
#include "core/ir/shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tapas {

// Largest constant (in elements) whose values the IR keeps. Larger tensors keep shape only.
inline constexpr int64_t kMaxKeptConstElements = 4096;

// A known tensor value: integers (and bools) in `ints`, floating values in `floats`.
struct ConstValue {
    DType dtype = DType::Undefined;
    Shape shape;                  // always fully known
    std::vector<int64_t> ints;    // set when dtypeIsInteger(dtype)
    std::vector<double> floats;   // set when dtypeIsFloating(dtype)

    int64_t size() const { return int64_t(dtypeIsInteger(dtype) ? ints.size() : floats.size()); }
    bool isInteger() const { return dtypeIsInteger(dtype); }
    // Scalar or 1-element value as int/double (first element).
    int64_t intAt(size_t i) const { return isInteger() ? ints[i] : saturatingInt(floats[i]); }
    double floatAt(size_t i) const { return isInteger() ? double(ints[i]) : floats[i]; }
    std::string toString(size_t maxElements = 8) const;
    // float -> int64 without undefined behaviour for NaN or out-of-range values.
    static int64_t saturatingInt(double v)
    {
        if (!(v == v)) return 0;
        if (v >= 9.2e18) return INT64_MAX;
        if (v <= -9.2e18) return INT64_MIN;
        return int64_t(v);
    }
};

struct Attribute {
    enum class Kind : uint8_t { Int, Float, String, Ints, Floats, Strings, Tensor, Graph, Other };
    std::string name;
    Kind kind = Kind::Other;
    int64_t i = 0;
    double f = 0;
    std::string s;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    ConstValue tensor;        // Kind::Tensor: dtype + shape always; values when small
    int64_t tensorElements = 0; // Kind::Tensor: element count even when values are not kept
    int64_t graphNodes = 0;   // Kind::Graph: node count of the opaque subgraph(s)

    std::string toString() const; // short human form for inspectors and reports
};

} // namespace tapas
