#include "core/onnx/onnx_stored_data.h"

#include "core/ir/dtype.h"
#include "core/onnx/onnx_load.h"
#include "core/onnx/onnx_tensors.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

namespace tapas {

namespace {

using onnx::TensorProto;

std::string externalKey(const TensorProto& t, const char* key)
{
    for (const auto& e : t.external_data())
        if (e.key() == key) return e.value();
    return {};
}

// The bytes of an externally stored tensor, or an empty string with `why` set.
std::string readExternal(const TensorProto& t, const std::filesystem::path& baseDir, int64_t bytes, std::string& why)
{
    const std::string location = externalKey(t, "location");
    if (location.empty()) {
        why = "external data without a location";
        return {};
    }
    const std::filesystem::path file = baseDir / location;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        why = "its external data file '" + file.string() + "' is absent";
        return {};
    }
    int64_t offset = 0;
    try {
        const std::string o = externalKey(t, "offset");
        if (!o.empty()) offset = std::stoll(o);
    } catch (const std::exception&) {
        why = "its external data offset '" + externalKey(t, "offset") + "' is not a number";
        return {};
    }
    std::string data(size_t(bytes), '\0');
    in.seekg(offset);
    in.read(data.data(), bytes);
    if (in.gcount() != bytes) {
        why = "its external data file '" + file.string() + "' holds " + std::to_string(std::max<int64_t>(in.gcount(), 0)) +
              " of its " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset);
        return {};
    }
    return data;
}

void readTensor(const TensorProto& t, const std::string& name, const std::filesystem::path& baseDir, StoredWeights& out)
{
    const DType dt = dtypeFromOnnx(t.data_type());
    if (!dtypeIsFloating(dt)) return;
    const int64_t n = onnximport::tensorElements(t);
    if (n < 0) {
        out.missing[name] = "its dims are not a plausible size";
        return;
    }
    StoredFloats f;
    f.dims.assign(t.dims().begin(), t.dims().end());
    std::string why;
    bool ok = false;
    if (t.has_data_location() && t.data_location() == TensorProto::EXTERNAL) {
        const std::string bytes = readExternal(t, baseDir, n * dtypeBytes(dt), why);
        ok = !bytes.empty() && onnximport::decodeFloats(t, bytes, n, f.values);
    } else {
        ok = onnximport::decodeFloats(t, t.raw_data(), n, f.values);
    }
    if (!ok) {
        out.missing[name] = why.empty() ? "its stored data does not hold its " + std::to_string(n) + " elements" : why;
        return;
    }
    out.tensors[name] = std::move(f);
}

} // namespace

Result<StoredWeights> readStoredWeights(const std::string& path)
{
    onnx::ModelProto model;
    if (Status s = onnximport::parseModelFile(path, model); !s) return Result<StoredWeights>::failure(s.error);
    const std::filesystem::path baseDir = std::filesystem::path(path).parent_path();
    StoredWeights out;
    const onnx::GraphProto& g = model.graph();
    for (const TensorProto& t : g.initializer()) readTensor(t, t.name(), baseDir, out);
    for (const onnx::NodeProto& n : g.node()) {
        if (n.op_type() != "Constant" || n.output_size() < 1) continue;
        for (const auto& a : n.attribute())
            if (a.name() == "value" && a.has_t()) readTensor(a.t(), n.output(0), baseDir, out);
    }
    return out;
}

} // namespace tapas
