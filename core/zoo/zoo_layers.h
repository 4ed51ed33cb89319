#pragma once
// Layer builders shared by the zoo's transformers (GPT, BERT, ViT, T5, MoE) and vision models,
// each writing the node pattern torch 1.13 exports for the corresponding torch module.
#include "core/zoo/onnx_builder.h"

#include <functional>
#include <string>
#include <vector>

namespace tapas::zoo {

using Val = std::string; // a tensor name in the model being built

// Leading dims of a [batch, seq, hidden] activation; symbolic ones make reshapes dynamic.
struct SeqDims {
    Dim batch, seq;
    bool dynamic() const { return !batch.isKnown() || !seq.isKnown(); }
};

// nn.Linear on a 3-D input (MatMul + Add). Weight stored [in, out]; params at the scope prefix.
Val linear(OnnxBuilder& b, const Val& x, int64_t in, int64_t out, bool bias = true);
// nn.Linear on a 2-D input: Gemm with transB=1 and weight [out, in], as torch exports it.
Val gemm(OnnxBuilder& b, const Val& x, int64_t in, int64_t out);
// nn.LayerNorm: decomposed before opset 17, LayerNormalization from 17.
Val layerNorm(OnnxBuilder& b, const Val& x, int64_t dim, double eps);
// T5LayerNorm (RMS norm without mean): Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, Mul.
Val rmsNorm(OnnxBuilder& b, const Val& x, int64_t dim, double eps);
// Exact GELU in its Erf form (the Gelu op only exists from opset 20).
Val gelu(OnnxBuilder& b, const Val& x);

// Reshape x to lead + tail. With a symbolic lead dim, the target is the Shape -> Gather ->
// Unsqueeze -> Concat chain torch writes for `x.view(x.size()[:n] + tail)`; else a constant with
// 0 (copy the input dim) for each lead dim, so fixed-size exports re-batch.
Val reshapeLead(OnnxBuilder& b, const Val& x, const std::vector<Dim>& lead, const Ints& tail);
Val unsqueeze(OnnxBuilder& b, const Val& x, const Ints& axes);
// Size of dim `axis` of x as a 1-element int64 tensor (Shape -> Gather -> Unsqueeze).
Val dimSize(OnnxBuilder& b, const Val& x, int64_t axis);

// [B,S,hidden] -> [B,heads,S,d] (keyLayout: [B,heads,d,S], the transpose fused as torch does).
Val splitHeads(OnnxBuilder& b, const Val& x, const SeqDims& d, int64_t heads, int64_t headDim,
                  bool keyLayout);
// [B,heads,S,d] -> [B,S,heads*d].
Val mergeHeads(OnnxBuilder& b, const Val& x, const SeqDims& d, int64_t hidden);

struct AttentionSpec {
    int64_t heads = 0, headDim = 0;
    bool scale = true;                                   // T5 does not scale the scores
    std::function<Val(OnnxBuilder&, const Val&)> mask; // scores -> masked scores
    double dropout = 0; // on the probabilities (Megatron-LM's --attention-dropout); 0: none
};
// Training-mode Dropout of x with probability p (ONNX Dropout with training_mode true: the
// output and its keep mask, as torch.onnx exports nn.Dropout in train mode); x itself when p is 0.
Val dropout(OnnxBuilder& b, const Val& x, double p);
// Scaled dot-product attention over already projected q, k, v ([B,S,hidden] each); returns
// the merged heads [B,Sq,hidden] before the output projection.
Val attention(OnnxBuilder& b, const Val& q, const Val& k, const Val& v,
                 const SeqDims& qd, const SeqDims& kd, const AttentionSpec& spec);

// nn.Conv2d in scope `name` (weight [out,in,k,k], optional bias).
Val conv2d(OnnxBuilder& b, const Val& x, const std::string& name, int64_t in, int64_t out, int64_t k,
           int64_t stride, int64_t pad, bool bias);
// nn.BatchNorm2d kept as a node: weight, bias, running_mean, running_var initializers.
Val batchNorm(OnnxBuilder& b, const Val& x, const std::string& name, int64_t channels);

// torch.finfo(float32).min, the fill value of HF's masks.
inline constexpr float kMaskMin = -3.4028234663852886e+38f;
// HF's extended attention mask: mask[:, None, None, :] -> Cast -> (1 - m) * min.
Val extendedMask(OnnxBuilder& b, const Val& mask2d);

} // namespace tapas::zoo
