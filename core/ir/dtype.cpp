#include "core/ir/dtype.h"

namespace tapas {

int dtypeBytes(DType t)
{
    switch (t) {
    case DType::Bool: case DType::UInt8: case DType::Int8: return 1;
    case DType::UInt16: case DType::Int16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Int32: case DType::UInt32: case DType::Float32: return 4;
    case DType::Int64: case DType::UInt64: case DType::Float64: case DType::Complex64: return 8;
    case DType::Complex128: return 16;
    case DType::Undefined: case DType::String: return 0;
    }
    return 0;
}

bool dtypeIsFloating(DType t)
{
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}

bool dtypeIsInteger(DType t)
{
    switch (t) {
    case DType::Bool: case DType::UInt8: case DType::Int8: case DType::UInt16: case DType::Int16:
    case DType::Int32: case DType::UInt32: case DType::Int64: case DType::UInt64: return true;
    default: return false;
    }
}

std::string_view dtypeName(DType t)
{
    switch (t) {
    case DType::Undefined: return "undefined";
    case DType::Float32: return "float32";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::UInt16: return "uint16";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::String: return "string";
    case DType::Bool: return "bool";
    case DType::Float16: return "float16";
    case DType::Float64: return "float64";
    case DType::UInt32: return "uint32";
    case DType::UInt64: return "uint64";
    case DType::Complex64: return "complex64";
    case DType::Complex128: return "complex128";
    case DType::BFloat16: return "bfloat16";
    }
    return "undefined";
}

DType dtypeFromOnnx(int32_t e)
{
    // ONNX TensorProto::DataType values 0..16 have the same order as DType.
    if (e < 0 || e > 16) return DType::Undefined;
    return static_cast<DType>(e);
}

int32_t dtypeToOnnx(DType t) { return static_cast<int32_t>(t); }

} // namespace tapas
