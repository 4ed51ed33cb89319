#pragma once
// TensorProto helpers: element counts that survive hostile dims, small values as ConstValue,
// and dropping the bytes of large tensors right after parsing. Internal to core/onnx.
#include "core/ir/attribute.h"
#include "core/util/result.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tapas::onnximport {

// No real tensor comes near these; a file that claims more is corrupt (or hostile), and letting
// such numbers in would overflow every size computation downstream.
inline constexpr int64_t kMaxPlausibleDim = int64_t(1) << 40;
inline constexpr int64_t kMaxPlausibleElements = int64_t(1) << 44;

// Product of the dims, or -1 when a dim is negative or the product overflows.
int64_t tensorElements(const onnx::TensorProto& t);
// Dims as a Shape (a negative dim becomes an unknown dim).
Shape tensorShape(const onnx::TensorProto& t);
// The value of a small numeric tensor whose data is in the file; nullopt otherwise (large,
// external, string, complex, or data that does not match the dims).
std::optional<ConstValue> tensorValue(const onnx::TensorProto& t);

// Appends the n elements of float tensor t (fp32, fp64, fp16 or bf16) to `out` as fp32. `raw` is
// its little-endian bytes (raw_data, or what was read from its external file); when empty, the
// typed fields are read. False when the data does not hold exactly n elements.
bool decodeFloats(const onnx::TensorProto& t, std::string_view raw, int64_t n, std::vector<float>& out);

// Fails naming the first stored tensor of the main graph (initializer or Constant value) whose
// dims are negative or implausibly large.
Status checkStoredTensorDims(const onnx::GraphProto& g);

struct ExternalRef {
    std::string location; // as written in the model, relative to the model's directory
    bool present = false;
};

struct DropReport {
    std::map<std::string, ExternalRef> external; // main-graph initializer name -> its data file
    int64_t droppedTensors = 0;
    uint64_t droppedBytes = 0;
};

// Frees the data of every tensor larger than kMaxKeptConstElements (and of every externally
// stored one) in all graphs, subgraphs and functions of `model`. Dims and dtype stay, so shape
// inference and the checker still work: a dropped tensor keeps a tiny placeholder in raw_data
// that never matches its dims (tensorValue() then refuses it), so the checker, which only
// requires one data field, is satisfied. External data locations are resolved against
// `baseDir` and recorded for the main graph's initializers.
DropReport dropLargeTensorData(onnx::ModelProto& model, const std::string& baseDir);

} // namespace tapas::onnximport
