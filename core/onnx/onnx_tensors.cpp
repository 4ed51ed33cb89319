#include "core/onnx/onnx_tensors.h"

#include <cmath>
#include <cstring>
#include <filesystem>

namespace tapas::onnximport {

namespace {

using onnx::TensorProto;

double halfToDouble(uint16_t h)
{
    const int sign = (h >> 15) & 1;
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    double v;
    if (exponent == 0) v = std::ldexp(double(mantissa), -24);
    else if (exponent == 31) v = mantissa ? NAN : INFINITY;
    else v = std::ldexp(double(mantissa | 0x400), exponent - 25);
    return sign ? -v : v;
}

double bfloatToDouble(uint16_t b)
{
    const uint32_t bits = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return double(f);
}

template <class T>
T readLE(const char* p)
{
    T v;
    std::memcpy(&v, p, sizeof v); // ONNX raw_data is little-endian, as is every host we build for
    return v;
}

// Decodes raw_data element i of an integer/float dtype into `out`.
void appendRaw(DType dt, const char* p, ConstValue& out)
{
    switch (dt) {
    case DType::Float32: out.floats.push_back(readLE<float>(p)); break;
    case DType::Float64: out.floats.push_back(readLE<double>(p)); break;
    case DType::Float16: out.floats.push_back(halfToDouble(readLE<uint16_t>(p))); break;
    case DType::BFloat16: out.floats.push_back(bfloatToDouble(readLE<uint16_t>(p))); break;
    case DType::Int8: out.ints.push_back(readLE<int8_t>(p)); break;
    case DType::UInt8: out.ints.push_back(readLE<uint8_t>(p)); break;
    case DType::Bool: out.ints.push_back(readLE<uint8_t>(p) ? 1 : 0); break;
    case DType::Int16: out.ints.push_back(readLE<int16_t>(p)); break;
    case DType::UInt16: out.ints.push_back(readLE<uint16_t>(p)); break;
    case DType::Int32: out.ints.push_back(readLE<int32_t>(p)); break;
    case DType::UInt32: out.ints.push_back(readLE<uint32_t>(p)); break;
    case DType::Int64: out.ints.push_back(readLE<int64_t>(p)); break;
    case DType::UInt64: out.ints.push_back(int64_t(readLE<uint64_t>(p))); break;
    default: break;
    }
}

// Typed-field storage per the ONNX spec: small ints, bool and 16-bit floats live in int32_data.
bool appendTyped(const TensorProto& t, DType dt, int64_t n, ConstValue& out)
{
    auto sized = [n](int size) { return int64_t(size) == n; };
    switch (dt) {
    case DType::Float32:
        if (!sized(t.float_data_size())) return false;
        for (float v : t.float_data()) out.floats.push_back(v);
        return true;
    case DType::Float64:
        if (!sized(t.double_data_size())) return false;
        for (double v : t.double_data()) out.floats.push_back(v);
        return true;
    case DType::Float16:
    case DType::BFloat16:
        if (!sized(t.int32_data_size())) return false;
        for (int32_t v : t.int32_data())
            out.floats.push_back(dt == DType::Float16 ? halfToDouble(uint16_t(v)) : bfloatToDouble(uint16_t(v)));
        return true;
    case DType::Int8: case DType::UInt8: case DType::Bool: case DType::Int16: case DType::UInt16:
    case DType::Int32:
        if (!sized(t.int32_data_size())) return false;
        for (int32_t v : t.int32_data()) out.ints.push_back(dt == DType::Bool ? (v != 0) : v);
        return true;
    case DType::Int64:
        if (!sized(t.int64_data_size())) return false;
        for (int64_t v : t.int64_data()) out.ints.push_back(v);
        return true;
    case DType::UInt32: case DType::UInt64:
        if (!sized(t.uint64_data_size())) return false;
        for (uint64_t v : t.uint64_data()) out.ints.push_back(int64_t(v));
        return true;
    default:
        return false;
    }
}

bool isExternal(const TensorProto& t)
{
    return t.has_data_location() && t.data_location() == TensorProto::EXTERNAL;
}

std::string externalLocation(const TensorProto& t)
{
    for (const auto& e : t.external_data())
        if (e.key() == "location") return e.value();
    return {};
}

template <class Field>
void freeField(Field* f)
{
    Field().Swap(f); // Clear() would keep the capacity; swapping with an empty field frees it
}

struct Dropper {
    std::string baseDir;
    DropReport report;

    void tensor(TensorProto& t, const std::string* initializerName)
    {
        const bool external = isExternal(t);
        const int64_t n = tensorElements(t);
        if (external && initializerName) {
            ExternalRef ref;
            ref.location = externalLocation(t);
            std::error_code ec;
            const std::filesystem::path p = std::filesystem::path(baseDir.empty() ? "." : baseDir) / ref.location;
            ref.present = !ref.location.empty() && std::filesystem::is_regular_file(p, ec);
            report.external[*initializerName] = ref;
        }
        if (t.data_type() == TensorProto::STRING && !external) return;
        if (!external && n >= 0 && n <= kMaxKeptConstElements) return;
        const uint64_t before = t.raw_data().size() + 4ull * t.float_data_size() + 4ull * t.int32_data_size() +
                                8ull * t.int64_data_size() + 8ull * t.double_data_size() + 8ull * t.uint64_data_size();
        freeField(t.mutable_float_data());
        freeField(t.mutable_int32_data());
        freeField(t.mutable_int64_data());
        freeField(t.mutable_double_data());
        freeField(t.mutable_uint64_data());
        freeField(t.mutable_string_data());
        std::string().swap(*t.mutable_raw_data());
        t.clear_raw_data();
        t.clear_external_data();
        t.clear_data_location();
        if (n != 0) {
            const DType dt = dtypeFromOnnx(t.data_type());
            const bool oneByte = n == 1 && dtypeBytes(dt) == 1;
            t.set_raw_data(std::string(oneByte ? 2 : 1, '\0'));
        }
        report.droppedTensors++;
        report.droppedBytes += before;
    }

    void graph(onnx::GraphProto& g, bool main)
    {
        for (auto& init : *g.mutable_initializer()) tensor(init, main ? &init.name() : nullptr);
        for (auto& sparse : *g.mutable_sparse_initializer()) {
            tensor(*sparse.mutable_values(), nullptr);
            tensor(*sparse.mutable_indices(), nullptr);
        }
        for (auto& node : *g.mutable_node()) nodeAttrs(node);
    }

    void nodeAttrs(onnx::NodeProto& node)
    {
        for (auto& a : *node.mutable_attribute()) {
            if (a.has_t()) tensor(*a.mutable_t(), nullptr);
            for (auto& t : *a.mutable_tensors()) tensor(t, nullptr);
            if (a.has_g()) graph(*a.mutable_g(), false);
            for (auto& sub : *a.mutable_graphs()) graph(sub, false);
            if (a.has_sparse_tensor()) {
                tensor(*a.mutable_sparse_tensor()->mutable_values(), nullptr);
                tensor(*a.mutable_sparse_tensor()->mutable_indices(), nullptr);
            }
        }
    }
};

} // namespace

int64_t tensorElements(const onnx::TensorProto& t)
{
    int64_t n = 1;
    for (int64_t d : t.dims()) {
        if (d < 0) return -1;
        if (d != 0 && n > INT64_MAX / d) return -1;
        n *= d;
    }
    return n;
}

Shape tensorShape(const onnx::TensorProto& t)
{
    std::vector<Dim> dims;
    dims.reserve(size_t(t.dims_size()));
    for (int64_t d : t.dims()) dims.push_back(d >= 0 && d <= kMaxPlausibleDim ? Dim::known(d) : Dim::unknown());
    return Shape::ofDims(std::move(dims));
}

std::optional<ConstValue> tensorValue(const onnx::TensorProto& t)
{
    const DType dt = dtypeFromOnnx(t.data_type());
    if (!dtypeIsInteger(dt) && !dtypeIsFloating(dt)) return std::nullopt;
    if (isExternal(t)) return std::nullopt;
    const int64_t n = tensorElements(t);
    if (n < 0 || n > kMaxKeptConstElements) return std::nullopt;
    ConstValue v;
    v.dtype = dt;
    v.shape = tensorShape(t);
    if (!t.raw_data().empty()) {
        const int bytes = dtypeBytes(dt);
        if (int64_t(t.raw_data().size()) != n * bytes) return std::nullopt;
        for (int64_t i = 0; i < n; ++i) appendRaw(dt, t.raw_data().data() + i * bytes, v);
        return v;
    }
    if (!appendTyped(t, dt, n, v)) return std::nullopt;
    return v;
}

bool decodeFloats(const onnx::TensorProto& t, std::string_view raw, int64_t n, std::vector<float>& out)
{
    const DType dt = dtypeFromOnnx(t.data_type());
    if (!dtypeIsFloating(dt) || n < 0) return false;
    out.reserve(out.size() + size_t(n));
    if (!raw.empty()) {
        const int bytes = dtypeBytes(dt);
        if (int64_t(raw.size()) != n * bytes) return false;
        const char* p = raw.data();
        for (int64_t i = 0; i < n; ++i, p += bytes) {
            switch (dt) {
            case DType::Float32: out.push_back(readLE<float>(p)); break;
            case DType::Float64: out.push_back(float(readLE<double>(p))); break;
            case DType::Float16: out.push_back(float(halfToDouble(readLE<uint16_t>(p)))); break;
            case DType::BFloat16: out.push_back(float(bfloatToDouble(readLE<uint16_t>(p)))); break;
            default: return false;
            }
        }
        return true;
    }
    if (dt == DType::Float32) { // the common typed case, without a detour through double
        if (t.float_data_size() != n) return false;
        out.insert(out.end(), t.float_data().begin(), t.float_data().end());
        return true;
    }
    ConstValue v;
    v.dtype = dt;
    if (!appendTyped(t, dt, n, v)) return false;
    for (double x : v.floats) out.push_back(float(x));
    return true;
}

Status checkStoredTensorDims(const onnx::GraphProto& g)
{
    auto check = [](const onnx::TensorProto& t, const std::string& what) -> Status {
        std::string dims;
        bool bad = false;
        for (int64_t d : t.dims()) {
            dims += (dims.empty() ? "" : ",") + std::to_string(d);
            bad = bad || d < 0 || d > kMaxPlausibleDim;
        }
        const int64_t n = tensorElements(t);
        if (!bad && n >= 0 && n <= kMaxPlausibleElements) return Status::success();
        return Status::failure(what + " has dims [" + dims + "], which no real tensor has");
    };
    for (const auto& t : g.initializer())
        if (Status s = check(t, "initializer '" + t.name() + "'"); !s) return s;
    for (const auto& n : g.node()) {
        if (n.op_type() != "Constant") continue;
        for (const auto& a : n.attribute())
            if (a.has_t())
                if (Status s = check(a.t(), "the value of Constant node '" + n.name() + "'"); !s) return s;
    }
    return Status::success();
}

DropReport dropLargeTensorData(onnx::ModelProto& model, const std::string& baseDir)
{
    Dropper d;
    d.baseDir = baseDir;
    d.graph(*model.mutable_graph(), true);
    for (auto& f : *model.mutable_functions())
        for (auto& node : *f.mutable_node()) d.nodeAttrs(node);
    return std::move(d.report);
}

} // namespace tapas::onnximport
