#pragma once
// Internal: one registration function per sharding family file, called from shard_registry.cpp.
namespace tapas {

class ShardRegistry;

void registerMatMulSharding(ShardRegistry& r);      // matmul_sharding.cpp: MatMul, Gemm
void registerConvSharding(ShardRegistry& r);        // conv_sharding.cpp: Conv, BatchNorm, pooling, Resize
void registerElementwiseSharding(ShardRegistry& r); // elementwise_sharding.cpp: unary/binary, norms, softmax, reduces
void registerShapeSharding(ShardRegistry& r);       // shape_sharding.cpp: Reshape, Transpose, Split, Concat, Slice, Gather

} // namespace tapas
