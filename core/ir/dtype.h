#pragma once
#include <cstdint>
#include <string_view>

namespace tapas {

// Element types, mirroring ONNX's TensorProto::DataType so the importer maps them 1:1.
enum class DType : uint8_t {
    Undefined, Float32, UInt8, Int8, UInt16, Int16, Int32, Int64, String, Bool,
    Float16, Float64, UInt32, UInt64, Complex64, Complex128, BFloat16
};

int dtypeBytes(DType t);            // 0 for Undefined and String
bool dtypeIsFloating(DType t);      // float16/bfloat16/float32/float64
bool dtypeIsInteger(DType t);       // signed/unsigned integers and bool
std::string_view dtypeName(DType t); // "float32", "int64", ...
DType dtypeFromOnnx(int32_t onnxElemType);
int32_t dtypeToOnnx(DType t);

} // namespace tapas
