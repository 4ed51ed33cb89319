#include "core/onnx/onnx_load.h"

#include "core/util/human_units.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace tapas::onnximport {

namespace {

// A single protobuf message cannot exceed 2 GB (protobuf's int sizes); ONNX models larger than
// that keep their weights in external data files.
constexpr uint64_t kMaxProtoBytes = uint64_t(INT_MAX);

Status checkParsed(const std::string& name, uint64_t size, bool parsed, bool consumedAll,
                   uint64_t position, const onnx::ModelProto& model)
{
    if (!parsed || !consumedAll) {
        return Status::failure(name + ": not a valid ONNX model: the protobuf data is truncated or "
                               "corrupt (" + humanBytes(double(size)) + " read)");
    }
    if (position != size) {
        return Status::failure(name + ": not a valid ONNX model: decoding stopped at byte " +
                               std::to_string(position) + " of " + std::to_string(size));
    }
    if (!model.has_graph()) {
        return Status::failure(name + ": not an ONNX model: it has no graph (is it an ONNX file, "
                               "and is it complete?)");
    }
    if (model.ir_version() <= 0) {
        return Status::failure(name + ": not an ONNX model: it has no IR version");
    }
    if (model.opset_import_size() == 0) {
        return Status::failure(name + ": not a valid ONNX model: it imports no opset "
                               "(the file may be truncated)");
    }
    return Status::success();
}

Status parseStream(google::protobuf::io::ZeroCopyInputStream& raw, const std::string& name,
                   uint64_t size, onnx::ModelProto& model)
{
    google::protobuf::io::CodedInputStream in(&raw);
    in.SetTotalBytesLimit(INT_MAX);
    model.Clear();
    const bool parsed = model.ParseFromCodedStream(&in);
    const bool consumed = parsed && in.ConsumedEntireMessage();
    const uint64_t position = uint64_t(in.CurrentPosition());
    return checkParsed(name, size, parsed, consumed, position, model);
}

} // namespace

Status parseModelFile(const std::string& path, onnx::ModelProto& model)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        return Status::failure(path + ": cannot open the file: " +
                               (ec ? ec.message() : std::string("no such file")));
    }
    if (fs::is_directory(st)) return Status::failure(path + ": cannot open the file: it is a directory");
    const uint64_t size = fs::file_size(path, ec);
    if (ec) return Status::failure(path + ": cannot read the file size: " + ec.message());
    if (size == 0) return Status::failure(path + ": not an ONNX model: the file is empty");
    if (size > kMaxProtoBytes) {
        return Status::failure(path + ": the file is " + humanBytes(double(size)) +
                               ", over the 2 GB limit of a single ONNX protobuf file; save the "
                               "model with its weights as external data instead");
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::failure(path + ": cannot open the file: " + std::strerror(errno));
    google::protobuf::io::FileInputStream file(fd);
    file.SetCloseOnDelete(true);
    Status s = parseStream(file, path, size, model);
    if (!s.ok() && file.GetErrno() != 0)
        return Status::failure(path + ": cannot read the file: " + std::strerror(file.GetErrno()));
    return s;
}

Status parseModelBytes(std::string_view bytes, const std::string& displayName, onnx::ModelProto& model)
{
    if (bytes.empty()) return Status::failure(displayName + ": not an ONNX model: the data is empty");
    if (bytes.size() > kMaxProtoBytes) {
        return Status::failure(displayName + ": the model is " + humanBytes(double(bytes.size())) +
                               ", over the 2 GB limit of a single ONNX protobuf file");
    }
    google::protobuf::io::ArrayInputStream array(bytes.data(), int(bytes.size()));
    return parseStream(array, displayName, bytes.size(), model);
}

} // namespace tapas::onnximport
