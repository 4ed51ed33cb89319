#pragma once
// GPU kernel time from a roofline, for clusters that state their devices' memory bandwidth
// (ClusterSpec::roofline). One FLOP rate for every op (peak x efficiency) makes a softmax over
// the attention scores free and prices a skinny GEMM like a large one; on a GPU neither holds:
// - A GEMM (batch x [m x k] x [k x n]) runs as output tiles, one per SM at a time, in waves:
//   a partial tile or a partial last wave costs a whole one (tile and wave quantization, NVIDIA's
//   "Matrix Multiplication Background User's Guide", ch. 3). Among cuBLAS's tile shapes the fastest
//   is taken; a smaller tile reuses each operand byte less, so its rate is capped by what the L2
//   feeds (a tile of tm x tn does 2 tm tn FLOPs per (tm + tn) elements loaded). A GEMM whose
//   operands and output take longer to move through HBM than to multiply is memory-bound.
//   A large GEMM reaches the cluster's `efficiency` of peak and no more.
// - Every other op (element-wise, normalization, softmax, reductions, copies) takes the longer
//   of its bytes over the HBM bandwidth and its FLOPs at the GEMM rate.
// The A100 80GB SXM's datasheet and best-case constants (the selene preset states the achieved
// ones below instead; README, "Pipeline stages, and Megatron-LM's published runs"):
// - efficiency 0.859: the most a bf16 matmul reached on an A100 SXM over a search of shapes,
//   267.9 of 312 TFLOP/s (S. Bekman, "Machine Learning Engineering", compute/accelerator/README.md,
//   "Maximum Achievable Matmul FLOPS comparison table", mamf-finder.py, CUDA 12.1);
// - memory_bandwidth 2.039e12: A100 80GB SXM HBM2e, 2,039 GB/s (NVIDIA A100 datasheet);
// - l2_bandwidth 7.05e12: A100 L2 read bandwidth, 5,120 B/clk (NVIDIA A100 whitepaper), 7,050 GB/s
//   as the GTC'21 talk S33322 gives it;
// - multiprocessors 108 (A100 whitepaper); the tile shapes below from NVIDIA's matmul guide.
// The chains the exporters unfold (LayerNorm, GELU: core/ops/node_chains.h) run as one fused
// kernel, as Megatron-LM and apex run them: one pass over their input and output; a bias added
// to a GEMM's output is the GEMM's epilogue; a Transpose that only GEMMs read is their operand's
// transpose flag or batch stride, no kernel.
#include "core/cluster/cluster_spec.h"
#include "core/cost/family_time.h"
#include "core/ir/graph.h"
#include "core/ops/op_registry.h"
#include "core/shard/op_sharding.h"

#include <optional>
#include <string>
#include <vector>

namespace tapas {

// The A100 80GB SXM's roofline constants listed above (HBM, L2, SMs), and the MAMF efficiency.
inline constexpr DeviceRoofline kA100SxmRoofline{2.039e12, 7.05e12, 108};
inline constexpr double kA100MamfEfficiency = 0.859;

// The same device's *achieved* figures, each the published measurement whose conditions come
// closest to minutes-long fp16 training under CUDA 11 (the rule: same device, same operation and
// dtype, sustained on random data, then the software nearest CUDA 11.1; README, "A GPU roofline
// for the compute term"). The selene-a100x1024 preset states these, as it states NCCL's achieved
// bus bandwidth rather than the links' nominal one:
// - efficiency 0.737: 230 of 312 TFLOP/s, an 8192^3 fp16 torch.matmul (cuBLAS) on an A100 80GB
//   SXM, randn operands, timed for at least 3 s (torch.utils.benchmark blocked_autorange, median),
//   PyTorch with CUDA 11.x, 2022 (M. Li, github.com/mli/transformers-benchmarks, README table and
//   micro_bench.ipynb);
// - memory_bandwidth 1.732e12: the "scale" kernel (one load stream, one store stream, as a
//   LayerNorm, GELU, dropout or copy runs) over 1 GiB buffers at full occupancy on an A100 80GB,
//   median of 9 (D. Ernst, github.com/te42kyfo/gpu-benches, gpu-stream/a100_80.txt, 2023);
// - l2_bandwidth 5.41e12: reads of L2-resident data sets (2-25 MB) on the same A100 80GB, the
//   median over those sizes (same repository, gpu-l2-cache/a100_80.txt);
// - multiprocessors 108 (a count, not a rate);
// - collective_sms 16: the SMs NCCL runs a DGX A100's collectives on (one CTA per channel, 16 on a
//   DGX with its 8 NICs), which it shares with no compute kernel (S. Jeaugey, NCCL's maintainer,
//   github.com/NVIDIA/nccl issue 689, 2023).
inline constexpr DeviceRoofline kA100SxmAchievedRoofline{1.732e12, 5.41e12, 108, 16};
inline constexpr double kA100Fp16SustainedEfficiency = 0.737; // 230 / 312

struct GpuRoofline {
    double peakFlops = 0;       // FLOP/s of the compute dtype
    double efficiency = 1;      // of peak, what a large well-shaped GEMM sustains
    double memoryBandwidth = 0; // HBM bytes/s
    double l2Bandwidth = 0;     // bytes/s feeding the SMs' tiles; 0: no limit
    int multiprocessors = 0;    // 0: no wave quantization
    double elemBytes = 2;       // bytes per element of the compute dtype
};

// The roofline of cluster c's devices in `dtype`, when c states a memory bandwidth and carries no
// measured per-family rates (a calibrated CPU cluster keeps its families: core/cost/family_time).
std::optional<GpuRoofline> gpuRoofline(const ClusterSpec& c, const std::string& dtype);

struct GemmDims {
    double batch = 1, m = 1, n = 1, k = 1;
};

// Seconds of one forward GEMM of `d` on one device.
double gemmSeconds(const GpuRoofline& r, const GemmDims& d);
// The fraction of peak that GEMM reaches: 2 batch m n k / seconds / peak.
double gemmPeakFraction(const GpuRoofline& r, const GemmDims& d);
// Seconds of an op moving `bytes` through HBM and doing `flops` (the longer of the two).
double streamSeconds(const GpuRoofline& r, double flops, double bytes);

// Bytes of HBM one parameter's mixed-precision optimizer step moves, as Megatron-LM's
// Float16OptimizerWithFloat16Params runs it (megatron/optimizer/optimizer.py at commit a8d172b3,
// April 2021, the code of the SC'21 runs): the fp16 gradient copied to an fp32 main gradient
// (2 read + 4 written), unscaled and checked for inf/nan (torch._amp_foreach_non_finite_check_and_unscale_:
// 4 + 4), its L2 norm for clipping (multi_tensor_l2norm: 4 read), apex's FusedAdam (param, grad,
// m, v read: 16; param, m, v written: 12), the fp32 main parameter copied back to the fp16 model
// (4 + 2): 52 bytes, all memory-bound passes.
inline constexpr double kMixedPrecisionAdamBytesPerParam = 52;

// Seconds of that step for `params` parameters updated on one device (its shard of them under a
// distributed optimizer): bytes over the HBM bandwidth. The step runs once per training step,
// after the gradient all-reduce, whatever the micro-batch count.
double optimizerStepSeconds(const GpuRoofline& r, double params);

// Bytes of HBM the training loss moves per element of a float graph output (the logits), as
// Megatron-LM runs its loss with --fp16-lm-cross-entropy off, the default: cross entropy over
// output.float() (megatron/model/gpt_model.py, post_language_model_processing), each tensor-parallel
// rank over its vocabulary shard (_VocabParallelCrossEntropy, megatron/mpu/cross_entropy.py; the
// code of April 2021). Forward: the fp16 logits cast to fp32 (2 read + 4 written), their max over
// the vocabulary (4), subtracted in place (4 + 4), exp in place (4 + 4), summed (4), divided in
// place into the softmax kept for the backward (4 + 4): 38. Backward: the softmax times the loss's
// gradient in place (4 + 4), cast back to fp16 for the head (4 + 2): 14. The per-row terms (the
// target's logit, the all-reduces of one value per token) are negligible beside them.
inline constexpr double kFp32CrossEntropyBytesPerLogit = 52;

// Seconds of that loss, forward and backward, over `logits` elements on one device.
double crossEntropySeconds(const GpuRoofline& r, double logits);

// Compute seconds lost while a collective runs `overlapSeconds` beside compute (torch DDP's
// gradient buckets during the backward): its SMs do no compute then, collectiveSms of the
// device's multiprocessors; 0 for a device that states neither.
inline double overlappedCollectiveCompute(const DeviceRoofline& r, double overlapSeconds)
{
    return r.multiprocessors > 0 ? overlapSeconds * r.collectiveSms / r.multiprocessors : 0;
}

// How the roofline prices each node of a graph, found once per graph and cost model (the search
// then asks only for arithmetic per strategy).
struct RooflineOp {
    enum class Kind : uint8_t { Stream, Gemm, Fused, Free };
    Kind kind = Kind::Stream;
    GemmDims dims;         // Gemm: the whole graph's GEMM (every replica's batch)
    bool batchInM = false; // Gemm: the batch axis is folded into m (the other operand is a matrix)
    int outRank = 0;       // Gemm: rank of the output (which dim a split output layout divides)
    double bytes = 0;      // Fused: the chain's input and output, compute dtype; Stream: scale of
                           // the cost rule's bytes to the compute dtype
};
// Per node of g (indexed by NodeId); `chains` are the fused chains (pricedChains(g)).
std::vector<RooflineOp> rooflineOps(const Graph& g, const PricedChains& chains, double elemBytes);

// Forward seconds on one device of node `op` (its cost rule's `cost`) under strategy s, each
// replica's batch cut into `batchShards` pieces: the GEMM's dims divided as the strategy's
// layouts divide them (a split output divides m, n or the batch; a partial one k).
double rooflineForwardSeconds(const GpuRoofline& r, const RooflineOp& op, const OpCost& cost, const OpStrategy& s,
                              double batchShards);

} // namespace tapas
