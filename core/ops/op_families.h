#pragma once
// Internal: the op families, one file each (core/ops/<family>_ops.cpp), each registering its
// ops' shape rules, costs and sharding strategies together. The runtime keys its torch kernels
// by the same names (runtime/exec/kernels/<family>_kernels.cpp). Adding an op touches its
// family file (and the runtime's); adding a family adds one line here and one in op_registry.cpp.
namespace tapas {

class OpRegistry;

void registerMatMulOps(OpRegistry& r);        // matmul_ops.cpp: MatMul, Gemm, Einsum
void registerConvOps(OpRegistry& r);          // conv_ops.cpp: Conv, ConvTranspose, pooling
void registerResizeOps(OpRegistry& r);        // resize_ops.cpp: Resize, Upsample, Depth/SpaceToDepth
void registerElementwiseOps(OpRegistry& r);   // elementwise_ops.cpp: unary, binary, variadic, Where
void registerNormalizationOps(OpRegistry& r); // normalization_ops.cpp: *Norm*, LRN, Softmax
void registerReduceOps(OpRegistry& r);        // reduce_ops.cpp: Reduce*, ArgMax/ArgMin, TopK
void registerShapeOps(OpRegistry& r);         // shape_ops.cpp: Shape, Reshape, Transpose, Squeeze...
void registerIndexingOps(OpRegistry& r);      // indexing_ops.cpp: Concat, Split, Slice, Gather...
void registerGeneratorOps(OpRegistry& r);     // generator_ops.cpp: Constant, Range, ConstantOfShape...
void registerControlOps(OpRegistry& r);       // control_ops.cpp: If, Loop, Scan (bodies run replicated)
void registerRecurrentOps(OpRegistry& r);     // recurrent_ops.cpp: LSTM, GRU, RNN

} // namespace tapas
