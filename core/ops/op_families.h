#pragma once
// Internal: one registration function per op family file, called from op_registry.cpp.
// Adding an op touches its family file only; adding a family adds one line here and one there.
namespace tapas {

class OpRegistry;

void registerMatMulOps(OpRegistry& r);        // matmul_ops.cpp: MatMul, Gemm, Einsum
void registerConvOps(OpRegistry& r);          // conv_ops.cpp: Conv, ConvTranspose, pooling
void registerResizeOps(OpRegistry& r);        // resize_ops.cpp: Resize, Upsample, Depth/SpaceToDepth
void registerElementwiseOps(OpRegistry& r);   // elementwise_ops.cpp: unary, binary, variadic, Where
void registerNormalizationOps(OpRegistry& r); // normalization_ops.cpp: *Norm*, Softmax
void registerReduceOps(OpRegistry& r);        // reduce_ops.cpp: Reduce*, ArgMax/ArgMin, TopK
void registerShapeOps(OpRegistry& r);         // shape_ops.cpp: Shape, Reshape, Transpose, Squeeze...
void registerIndexingOps(OpRegistry& r);      // indexing_ops.cpp: Concat, Split, Slice, Gather...
void registerGeneratorOps(OpRegistry& r);     // generator_ops.cpp: Constant, Range, ConstantOfShape...

} // namespace tapas
