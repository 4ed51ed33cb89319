#include "runtime/calibrate/op_family_bench.h"

#include "runtime/exec/kernels/torch_forms.h"

#include "core/cost/torch_conv_kernel.h"
#include "core/util/cpu_clock.h"
#include "core/util/median.h"
#include "runtime/exec/adam_update.h"
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/synthetic_batch.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>

namespace tapas::runtime {

namespace {

using torch::Tensor;
using Clock = std::chrono::steady_clock;

// One timed case: `make` builds fresh leaf inputs (so no graph survives between runs), `run`
// is the forward; the backward seeds ones. Returns the median of the timed repetitions.
struct Case {
    std::string family, name;
    double flops = 0, bytes = 0;
    bool backward = true; // generators make no gradient
    std::function<std::vector<Tensor>()> make;
    std::function<Tensor(const std::vector<Tensor>&)> run;
    bool bytesBound = false;
    double products = 1;
    int chainNodes = 0; // a chain of this many nodes run through the worker's interpreter (nodeChainCase)
};

// Timed in the calling thread's CPU seconds. A rank runs torch on one intra-op thread, so a
// case's CPU time is what it takes on a core of its own: other processes sharing the machine
// while the calibration runs do not slow the rates it writes.
double timeCase(const Case& c, double budget)
{
    std::vector<double> times;
    const auto start = Clock::now();
    for (int i = 0; i < 5 || std::chrono::duration<double>(Clock::now() - start).count() < budget; ++i) {
        const std::vector<Tensor> in = c.make();
        const double t0 = threadCpuSeconds();
        Tensor out = c.run(in);
        if (c.backward) out.backward(torch::ones_like(out));
        const double t = threadCpuSeconds() - t0;
        if (i >= 2) times.push_back(t); // two warm-up runs
        if (times.size() >= 2000) break;
    }
    return median(std::move(times), EvenMiddle::Upper); // the slower middle time: conservative
}

Tensor leaf(std::vector<int64_t> shape, bool grad = true) { return torch::randn(shape).set_requires_grad(grad); }

// A chain of `nodes` element-wise nodes on a 4-element tensor, run through the worker's
// GraphInterpreter as a step runs the graph: Relu nodes, or (`weights`) Add nodes each adding a
// trained weight of its own whose gradient is already defined (zeros), as the worker's are.
Case nodeChainCase(const std::string& family, int nodes, bool weights)
{
    auto g = std::make_shared<Graph>();
    auto tensor = [&](const std::string& name, TensorKind kind) {
        ::tapas::Tensor t;
        t.name = name;
        t.dtype = DType::Float32;
        t.shape = Shape::of({4});
        t.kind = kind;
        return g->addTensor(t);
    };
    const TensorId x = tensor("x", TensorKind::Input);
    g->inputs = {x};
    std::vector<TensorId> ws;
    TensorId y = x;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.opType = weights ? "Add" : "Relu";
        n.inputs = {y};
        if (weights) {
            ws.push_back(tensor("w" + std::to_string(i), TensorKind::Weight));
            n.inputs.push_back(ws.back());
        }
        y = tensor("y" + std::to_string(i), TensorKind::Activation);
        n.outputs = {y};
        g->addNode(n);
    }
    g->outputs = {y};
    Result<ExecLayouts> layouts = analyseLayouts(*g, nullptr, 1);
    if (!layouts.ok()) throw std::runtime_error("calibration chain: " + layouts.error());
    auto interp = std::make_shared<GraphInterpreter>(*g, *layouts, 0);
    Case c{family, std::string(weights ? "add-weight" : "relu") + " chain " + std::to_string(nodes), 0, 0, true,
           [=] {
               std::vector<Tensor> v{leaf({4})};
               for (size_t i = 0; i < ws.size(); ++i) {
                   v.push_back(leaf({4}));
                   v.back().mutable_grad() = torch::zeros({4});
               }
               return v;
           },
           [g, interp, x, ws](const std::vector<Tensor>& v) {
               std::unordered_map<TensorId, Tensor> params, feeds{{x, v[0]}};
               for (size_t i = 0; i < ws.size(); ++i) params[ws[i]] = v[1 + i];
               return interp->forward(params, feeds).front().t;
           }};
    c.chainNodes = nodes;
    return c;
}

double elems(const std::vector<int64_t>& s)
{
    double n = 1;
    for (int64_t d : s) n *= double(d);
    return n;
}

std::string shapeName(const std::vector<int64_t>& shape)
{
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

// Every family's cases: first its tiny one (the overhead), then the training-sized ones.
std::vector<Case> familyCases()
{
    std::vector<Case> cs;
    auto mm = [&](int64_t m, int64_t k, int64_t n) {
        cs.push_back({"matmul", std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n), 2.0 * m * k * n,
                      4.0 * (m * k + k * n + m * n), true, [=] { return std::vector<Tensor>{leaf({m, k}), leaf({k, n})}; },
                      [](const std::vector<Tensor>& v) { return torch::matmul(v[0], v[1]); }});
    };
    mm(2, 2, 2);
    for (auto [m, k, n] : {std::tuple{512, 256, 768}, {512, 256, 1024}, {512, 1024, 256}, {512, 256, 512}}) mm(m, k, n);
    // The GEMMs of small models on 2 ranks (32-128 rows, 64-256 wide): their forward and
    // backward run well below the large cases' rate, so matmul is priced by product size.
    for (auto [m, k, n] : {std::tuple{32, 64, 64}, {64, 128, 128}, {64, 256, 256}, {128, 256, 512}}) mm(m, k, n);
    // Attention's batched products (heads x batch of seq x head-dim): torch runs one GEMM per
    // matrix, so each pays at its own small size.
    auto bmm = [&](int64_t b, int64_t m, int64_t k, int64_t n) {
        cs.push_back({"matmul",
                      std::to_string(b) + "x(" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ")",
                      2.0 * b * m * k * n, 4.0 * b * (m * k + k * n + m * n), true,
                      [=] { return std::vector<Tensor>{leaf({b, m, k}), leaf({b, k, n})}; },
                      [](const std::vector<Tensor>& v) { return torch::matmul(v[0], v[1]); }});
        cs.back().products = double(b);
    };
    bmm(8, 32, 32, 32);
    bmm(16, 64, 64, 64);
    // Attention's batched products as exported models hand them to the worker: operands that
    // are Transpose outputs, strided views of [seq, batch x heads, head-dim] (Q, V) or of K read
    // as K^T, 3-D or 4-D [batch, heads, ...]. torch::matmul copies such a view before its bmm
    // and its backward runs two more products on the strided operands: per product these cost
    // several times the contiguous cases above ("matmul_strided", core/cost/family_time).
    // `aStrided`: the left operand a view too (Q K^T); otherwise it is contiguous (softmax x V).
    auto strided = [&](std::vector<int64_t> batch, int64_t m, int64_t k, int64_t n, bool aStrided) {
        double b = 1;
        std::string name;
        for (int64_t d : batch) {
            b *= double(d);
            name += std::to_string(d) + "x";
        }
        name += "(" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ")" + (aStrided ? " A,B^T views" : " B view");
        const bool fourD = batch.size() == 2;
        cs.push_back({"matmul_strided", name, 2.0 * b * m * k * n, 4.0 * b * (m * k + k * n + m * n), true,
                      [=] {
                          // The leaves are laid out as the exporter's producers write them; the
                          // views the product reads are the Transposes' outputs.
                          const int64_t bb = batch[0], h = fourD ? batch[1] : 1;
                          Tensor a, bT;
                          if (fourD) {
                              a = aStrided ? leaf({bb, m, h, k}).permute({0, 2, 1, 3}) : leaf({bb, h, m, k});
                              bT = leaf({bb, n, h, k}).permute({0, 2, 3, 1});
                          } else {
                              a = aStrided ? leaf({m, bb, k}).transpose(0, 1) : leaf({bb, m, k});
                              bT = aStrided ? leaf({n, bb, k}).permute({1, 2, 0}) : leaf({k, bb, n}).transpose(0, 1);
                          }
                          return std::vector<Tensor>{a, bT};
                      },
                      [](const std::vector<Tensor>& v) { return torch::matmul(v[0], v[1]); }});
        cs.back().products = b;
    };
    strided({2}, 2, 2, 2, true);
    strided({16}, 16, 16, 16, true);  // encoder_4l_small: batch 4 x 4 heads, seq 16, head-dim 16
    strided({16}, 16, 16, 16, false);
    strided({8}, 32, 64, 32, true);   // bert_mini_4l: batch 2 x 4 heads, seq 32, head-dim 64
    strided({8}, 32, 32, 64, false);
    strided({2, 4}, 64, 64, 64, true); // [batch, heads, seq, head-dim] as GPT-style exports run it
    strided({2, 8}, 128, 64, 128, true);
    // A classifier head on a batch of 2: reading the weight and writing its gradient bound it,
    // not its FLOPs; these give the family's byte rate.
    for (auto [m, k, n] : {std::tuple{2, 512, 1000}, {2, 1280, 1000}, {4, 256, 2048}}) {
        mm(m, k, n);
        cs.back().bytesBound = true;
    }

    // Convolutions, by what torch runs for each kind (core/cost/family_time's pricingFamily):
    // each kind's first case is its tiny one (the overhead), then the corpus's shapes as a rank
    // holds them under the 1x2 plans (a batch of 1-2, channels halved, strided stems,
    // few-channel audio layers, 1x3 and 3x1 kernels), so the rate by size (OpFamilyRate::bySize)
    // spans the small nodes that run far below the large cases' rate. FLOPs and bytes as the
    // Conv cost rule counts them. A dense case's family also says which kernel torch runs for it
    // (core/cost/torch_conv_kernel, the rule the cost model prices by): "conv" oneDNN's,
    // "conv.native" torch's own (small inputs of one sample), whose fixed cost is a fraction of
    // oneDNN's; "conv1d" torch's own, "conv1d.onednn" oneDNN's (a batch above 1).
    auto conv2d = [&](std::string family, int64_t b, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw,
                      int64_t stride = 1, int64_t groups = 1, int64_t strideW = 0) {
        if (strideW == 0) strideW = stride;
        const int64_t oh = (h + 2 * (kh / 2) - kh) / stride + 1, ow = (w + 2 * (kw / 2) - kw) / strideW + 1;
        const double out = double(b) * o * oh * ow;
        const double weight = double(o) * (c / groups) * kh * kw;
        if (family == "conv" && !torchConvRunsOneDnn({{b, c, h, w}, {kh, kw}, {stride, strideW}, {}, groups})) family = "conv.native";
        const std::string strides = stride > 1 || strideW > 1 ? " s" + std::to_string(stride) + (strideW != stride ? "x" + std::to_string(strideW) : "") : "";
        cs.push_back({family,
                      std::to_string(b) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + " k" +
                          std::to_string(kh) + "x" + std::to_string(kw) + strides + " o" + std::to_string(o) +
                          (groups > 1 ? " g" + std::to_string(groups) : std::string()),
                      2.0 * out * double(c / groups) * kh * kw, 4.0 * (double(b) * c * h * w + weight + out), true,
                      [=] { return std::vector<Tensor>{leaf({b, c, h, w}), leaf({o, c / groups, kh, kw})}; },
                      [=](const std::vector<Tensor>& v) {
                          return torch::conv2d(v[0], v[1], {}, std::vector<int64_t>{stride, strideW},
                                               std::vector<int64_t>{kh / 2, kw / 2}, 1, groups);
                      }});
    };
    // Dense convolutions with a spatial kernel (unfold + GEMM, col2im in the backward), oneDNN's
    // tiny case first, then torch's own.
    conv2d("conv", 2, 1, 4, 4, 1, 3, 3);
    conv2d("conv", 1, 1, 4, 4, 1, 3, 3);
    conv2d("conv", 8, 64, 28, 28, 64, 3, 3);
    conv2d("conv", 1, 64, 56, 56, 64, 3, 3);
    conv2d("conv", 1, 128, 28, 28, 64, 3, 3, 2);
    conv2d("conv", 1, 3, 224, 224, 64, 7, 7, 2);
    conv2d("conv", 2, 16, 40, 40, 32, 3, 3);
    conv2d("conv", 2, 32, 20, 20, 32, 3, 3);
    conv2d("conv", 1, 3, 48, 192, 8, 3, 3, 2);
    conv2d("conv", 1, 24, 74, 32, 24, 3, 1);
    conv2d("conv", 2, 24, 74, 32, 24, 1, 3);
    conv2d("conv", 1, 48, 34, 16, 48, 1, 3);
    conv2d("conv", 2, 72, 30, 8, 72, 3, 1);
    conv2d("conv", 2, 96, 10, 2, 96, 3, 1);
    conv2d("conv", 1, 96, 10, 2, 96, 3, 1);
    conv2d("conv", 1, 72, 30, 8, 72, 3, 1);
    conv2d("conv", 1, 96, 14, 4, 96, 1, 3);
    // 1x1 kernels: a GEMM over the pixels.
    conv2d("conv_pointwise", 1, 1, 2, 2, 1, 1, 1);
    conv2d("conv_pointwise", 8, 32, 56, 56, 64, 1, 1);
    conv2d("conv_pointwise", 1, 16, 112, 112, 96, 1, 1);
    conv2d("conv_pointwise", 1, 96, 56, 56, 24, 1, 1);
    conv2d("conv_pointwise", 1, 960, 7, 7, 160, 1, 1);
    conv2d("conv_pointwise", 1, 200, 2, 96, 32, 1, 1);
    conv2d("conv_pointwise", 1, 16, 3, 96, 88, 1, 1);
    conv2d("conv_pointwise", 1, 88, 1, 1, 22, 1, 1);
    // Depthwise (a group per channel; MobileNet, PP-OCR) and other grouped convolutions: a
    // handful of FLOPs per output element, which torch's CPU kernels run far below the dense rate.
    conv2d("conv_depthwise", 1, 2, 2, 2, 2, 3, 3, 1, 2);
    conv2d("conv_depthwise", 1, 144, 56, 56, 144, 3, 3, 1, 144);
    conv2d("conv_depthwise", 1, 384, 14, 14, 384, 3, 3, 1, 384);
    conv2d("conv_depthwise", 1, 200, 2, 96, 200, 5, 5, 1, 200);
    conv2d("conv_depthwise", 1, 88, 3, 96, 88, 5, 5, 1, 88);
    conv2d("conv_depthwise", 1, 8, 24, 96, 8, 3, 3, 1, 8);
    // Strided depthwise convolutions: a quarter (or half) of the unstrided FLOPs, whose backward
    // still scatters over the whole input, at several times the unstrided time per FLOP.
    // MobileNet's four (96 at 112x112 to 576 at 14x14, halved channels or batch on a rank) and
    // PP-OCR's 2x1 strides.
    conv2d("conv_depthwise_strided", 1, 2, 4, 4, 2, 3, 3, 2, 2);
    conv2d("conv_depthwise_strided", 2, 48, 112, 112, 48, 3, 3, 2, 48);
    conv2d("conv_depthwise_strided", 1, 144, 56, 56, 144, 3, 3, 2, 144);
    conv2d("conv_depthwise_strided", 2, 96, 28, 28, 96, 3, 3, 2, 96);
    conv2d("conv_depthwise_strided", 1, 576, 14, 14, 576, 3, 3, 2, 576);
    conv2d("conv_depthwise_strided", 2, 8, 24, 96, 8, 3, 3, 2, 8, 1);
    conv2d("conv_depthwise_strided", 2, 32, 6, 96, 32, 5, 5, 2, 32, 1);
    conv2d("conv_depthwise_strided", 2, 104, 3, 96, 104, 5, 5, 2, 104, 1);
    conv2d("conv_grouped", 1, 2, 2, 2, 2, 1, 1, 1, 2);
    conv2d("conv_grouped", 8, 64, 28, 28, 64, 3, 3, 1, 8);
    conv2d("conv_grouped", 1, 64, 28, 28, 64, 3, 3, 1, 8);
    conv2d("conv_grouped", 1, 128, 14, 14, 128, 3, 3, 1, 8);
    // 1-D convolutions (audio: Silero's encoder, the STFT as a strided convolution): torch runs
    // them as 2-D ones of height 1, whose backward costs far more per FLOP than a 2-D conv's; on
    // one sample with its own kernel ("conv1d"), on a batch above 1 on oneDNN's ("conv1d.onednn",
    // a fixed cost several times torch's): Silero's encoder keeps its batch of 2 on each rank
    // when the plan splits its channels.
    auto conv1d = [&](int64_t b, int64_t c, int64_t len, int64_t o, int64_t kk, int64_t stride = 1) {
        const int64_t olen = (len + 2 * (kk / 2) - kk) / stride + 1;
        const double out = double(b) * o * olen;
        const bool oneDnn = torchConvRunsOneDnn({{b, c, len}, {kk}, {stride}, {}, 1});
        cs.push_back({oneDnn ? "conv1d.onednn" : "conv1d",
                      "1-D " + std::to_string(b) + "x" + std::to_string(c) + "x" + std::to_string(len) + " k" + std::to_string(kk) +
                          (stride > 1 ? " s" + std::to_string(stride) : std::string()) + " o" + std::to_string(o),
                      2.0 * out * c * kk, 4.0 * (double(b) * c * len + double(o) * c * kk + out), true,
                      [=] { return std::vector<Tensor>{leaf({b, c, len}), leaf({o, c, kk})}; },
                      [=](const std::vector<Tensor>& v) { return torch::conv1d(v[0], v[1], {}, stride, kk / 2); }});
    };
    conv1d(1, 1, 4, 1, 3);
    conv1d(1, 64, 2, 64, 3);
    conv1d(1, 128, 3, 64, 3);
    conv1d(1, 64, 64, 64, 3);
    conv1d(1, 16, 256, 32, 3);
    conv1d(1, 1, 576, 258, 256, 128);
    conv1d(2, 1, 4, 1, 3);
    conv1d(2, 129, 3, 64, 3);
    conv1d(2, 128, 3, 32, 3, 2);
    conv1d(2, 32, 2, 64, 3, 2);
    conv1d(2, 64, 1, 64, 3);
    conv1d(2, 1, 576, 129, 256, 128);
    conv1d(2, 1, 16000, 257, 512, 160);

    // Memory-bound families: FLOPs do not bound them, bytes do.
    const std::vector<int64_t> big{512, 1024};
    auto add = [&](const std::string& family, const std::string& name, std::vector<int64_t> shape, double bytesPerElem,
                   std::function<Tensor(const std::vector<Tensor>&)> run, int inputs = 1, bool grad = true) {
        cs.push_back({family, name, 0, bytesPerElem * 4.0 * elems(shape), grad,
                      [=] {
                          std::vector<Tensor> v;
                          for (int i = 0; i < inputs; ++i) v.push_back(leaf(shape, grad));
                          return v;
                      },
                      std::move(run)});
    };
    // Element-wise ops by size: the rate of one whose operands stay in the cores' caches is
    // several times that of one streaming from memory (OpFamilyRate::byteBySize). Per size the
    // median of add, mul and relu (and erf at the largest).
    add("elementwise", "add 4", {4}, 3, [](const std::vector<Tensor>& v) { return v[0] + v[1]; }, 2);
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{1, 16, 3, 96}, {1, 64, 28, 28}, {1, 64, 56, 56}, big}) {
        const std::string dims = shapeName(shape);
        add("elementwise", "add " + dims, shape, 3, [](const std::vector<Tensor>& v) { return v[0] + v[1]; }, 2);
        add("elementwise", "mul " + dims, shape, 3, [](const std::vector<Tensor>& v) { return v[0] * v[1]; }, 2);
        add("elementwise", "relu " + dims, shape, 2, [](const std::vector<Tensor>& v) { return torch::relu(v[0]); });
    }
    add("elementwise", "erf 512x1024", big, 2, [](const std::vector<Tensor>& v) { return torch::erf(v[0]); });
    // Element-wise ops whose kernels (runtime/exec/kernels/elementwise_kernels) are not one
    // add's: Clip, and a Max or Min against a constant scalar (tf2onnx's ReLU), run as
    // clampBetween (runtime/exec/kernels/torch_forms, the worker's own function); HardSigmoid is
    // a multiply-add and that. Each its own family ("elementwise.<op>"), tiny case first.
    const std::vector<std::vector<int64_t>> ewSizes{{1, 200, 1, 1}, {1, 24, 74, 32}, {1, 144, 56, 56}};
    auto opCases = [&](const std::string& op, double bytesPerElem, std::function<Tensor(const std::vector<Tensor>&)> run) {
        add("elementwise." + op, op + " 4", {4}, bytesPerElem, run);
        for (const auto& shape : ewSizes) add("elementwise." + op, op + " " + shapeName(shape), shape, bytesPerElem, run);
    };
    opCases("Clip", 2, [](const std::vector<Tensor>& v) { return clampBetween(v[0], 0.0, 6.0); });
    opCases("Max", 2, [](const std::vector<Tensor>& v) { return clampBetween(v[0], 0.0, std::nullopt); });
    opCases("Min", 2, [](const std::vector<Tensor>& v) { return clampBetween(v[0], std::nullopt, 0.0); });
    opCases("HardSigmoid", 2, [](const std::vector<Tensor>& v) { return clampBetween(v[0] * 0.2 + 0.5, 0.0, 1.0); });
    opCases("LeakyRelu", 2, [](const std::vector<Tensor>& v) { return torch::leaky_relu(v[0], 0.2); });
    // A Max or Min of two tensors (no one-element constant among them) runs torch's maximum /
    // minimum, whose backward compares the operands again and masks a gradient for each: its own
    // family, several times the clamp's time (core/cost/family_time, boundAgainstConstant).
    auto pairCases = [&](const std::string& family, std::function<Tensor(const std::vector<Tensor>&)> run) {
        add(family, family.substr(family.find('.') + 1) + " 4", {4}, 3, run, 2);
        for (const auto& shape : ewSizes) add(family, family.substr(family.find('.') + 1) + " " + shapeName(shape), shape, 3, run, 2);
    };
    pairCases("elementwise.maximum", [](const std::vector<Tensor>& v) { return torch::maximum(v[0], v[1]); });
    pairCases("elementwise.minimum", [](const std::vector<Tensor>& v) { return torch::minimum(v[0], v[1]); });
    // GELU as the worker runs an exported erf chain (one torch::gelu, core/ops/node_chains):
    // its own rate, since erf's polynomial costs several times an add's pass over the bytes.
    add("gelu", "gelu 4", {4}, 2, [](const std::vector<Tensor>& v) { return torch::gelu(v[0]); });
    add("gelu", "gelu 512x1024", big, 2, [](const std::vector<Tensor>& v) { return torch::gelu(v[0]); });
    // LayerNorm as the worker runs an exported chain or a LayerNormalization node: torch's
    // layer_norm with scale and shift, whose backward also reduces their gradients; its fixed
    // cost is several times a softmax's. Bytes: x read and the output written.
    auto layerNorm = [&](int64_t rows, int64_t d) {
        cs.push_back({"layer_norm", "layer_norm " + std::to_string(rows) + "x" + std::to_string(d), 0, 8.0 * double(rows) * d, true,
                      [=] { return std::vector<Tensor>{leaf({rows, d}), leaf({d}), leaf({d})}; },
                      [=](const std::vector<Tensor>& v) { return torch::layer_norm(v[0], {d}, v[1], v[2]); }});
    };
    layerNorm(2, 4);
    layerNorm(64, 256);
    layerNorm(64, 192);
    layerNorm(512, 256);
    layerNorm(512, 1024);
    add("normalization", "softmax 4", {4}, 2, [](const std::vector<Tensor>& v) { return torch::softmax(v[0], -1); });
    add("normalization", "layernorm 512x1024", big, 2,
        [](const std::vector<Tensor>& v) { return torch::layer_norm(v[0], {1024}); });
    add("normalization", "softmax 512x1024", big, 2, [](const std::vector<Tensor>& v) { return torch::softmax(v[0], -1); });
    // BatchNorm as the worker runs it (inferenceBatchNorm, runtime/exec/kernels/torch_forms: the
    // inference form with stored statistics, four broadcast ops whose backward reduces the
    // scale's and shift's gradients), given per-channel tensors as the worker holds them (the
    // scale and shift weights that take a gradient, the statistics that do not): a family of its
    // own, whose fixed cost is four ops', not a softmax's. Bytes: x read and the output written.
    auto batchNorm = [&](std::vector<int64_t> shape) {
        const int64_t ch = shape[1];
        cs.push_back({"batchnorm", "batchnorm " + shapeName(shape), 0, 8.0 * elems(shape), true,
                      [=] {
                          return std::vector<Tensor>{leaf(shape), leaf({ch}), leaf({ch}), torch::randn({ch}), torch::rand({ch}) + 0.5};
                      },
                      [](const std::vector<Tensor>& v) { return inferenceBatchNorm(v[0], v[1], v[2], v[3], v[4], 1e-5); }});
    };
    batchNorm({1, 2, 2, 2});
    batchNorm({1, 16, 3, 96});
    batchNorm({1, 200, 2, 96});
    batchNorm({1, 24, 12, 96});
    batchNorm({2, 64, 56, 56});
    add("reduce", "mean 4", {4}, 1, [](const std::vector<Tensor>& v) { return v[0].mean({-1}, true); });
    add("reduce", "mean 512x1024", big, 1, [](const std::vector<Tensor>& v) { return v[0].mean({-1}, true); });
    // Shape ops are views in the interpreter: their cost is the overhead alone.
    add("shape", "reshape 4", {4}, 2, [](const std::vector<Tensor>& v) { return v[0].reshape({2, 2}); });
    add("indexing", "concat 4", {4}, 4, [](const std::vector<Tensor>& v) { return torch::cat({v[0], v[1]}); }, 2);
    add("indexing", "concat 512x1024", big, 4, [](const std::vector<Tensor>& v) { return torch::cat({v[0], v[1]}); }, 2);
    add("resize", "nearest 1x1x2x2", {1, 1, 2, 2}, 5,
        [](const std::vector<Tensor>& v) { return torch::upsample_nearest2d(v[0], std::vector<int64_t>{4, 4}); });
    add("resize", "nearest 8x64x28x28", {8, 64, 28, 28}, 5,
        [](const std::vector<Tensor>& v) { return torch::upsample_nearest2d(v[0], std::vector<int64_t>{56, 56}); });
    // Pooling by kind, bound by bytes (input read, output written), not by the convolutions'
    // FLOP rate: max pooling (its backward scatters through the saved indices) and global
    // average pooling (a mean), each with its tiny case and the corpus's sizes.
    auto pool = [&](const std::string& family, std::vector<int64_t> shape, double outFraction,
                    std::function<Tensor(const std::vector<Tensor>&)> run) {
        add(family, family + " " + shapeName(shape), shape, 1 + outFraction, std::move(run));
    };
    auto maxPool = [](int64_t k, int64_t s, int64_t p) {
        return [=](const std::vector<Tensor>& v) { return torch::max_pool2d(v[0], {k, k}, {s, s}, {p, p}); };
    };
    pool("max_pool", {1, 1, 2, 2}, 0.25, maxPool(2, 2, 0));
    pool("max_pool", {1, 200, 2, 96}, 0.25, maxPool(2, 2, 0));
    pool("max_pool", {1, 24, 72, 32}, 0.25, maxPool(2, 2, 0));
    pool("max_pool", {1, 64, 112, 112}, 0.25, maxPool(3, 2, 1));
    pool("max_pool", {8, 64, 56, 56}, 0.25, maxPool(3, 2, 1));
    auto globalAvg = [](const std::vector<Tensor>& v) { return v[0].mean({2, 3}, true); };
    pool("global_pool", {1, 1, 2, 2}, 0.25, globalAvg);
    pool("global_pool", {1, 88, 3, 96}, 0, globalAvg);
    pool("global_pool", {1, 1280, 7, 7}, 0, globalAvg);
    pool("global_pool", {8, 256, 14, 14}, 0, globalAvg);
    // Other pooling (AveragePool with a window).
    pool("pool", {1, 1, 2, 2}, 0.25, [](const std::vector<Tensor>& v) { return torch::avg_pool2d(v[0], {2, 2}, {2, 2}); });
    pool("pool", {1, 64, 56, 56}, 0.25, [](const std::vector<Tensor>& v) { return torch::avg_pool2d(v[0], {2, 2}, {2, 2}); });
    add("generator", "arange 4", {4}, 1, [](const std::vector<Tensor>&) { return torch::arange(4, torch::kFloat32); }, 0, false);

    // The worker's Adam update (runtime/exec/plan_trainer): its own function, adamUpdate, one
    // vectorised pass over the flat fp32 buffers of the weights, their gradients and moments
    // (tensor expressions would make about ten passes, several times slower). Bytes are the
    // weights'; the sizes span a small model's and a large one's.
    auto adam = [&](int64_t n) {
        cs.push_back({"optimizer", "adam " + std::to_string(n), 0, 4.0 * double(n), false,
                      [=] { return std::vector<Tensor>{torch::randn({n}), torch::randn({n}), torch::zeros({n}), torch::zeros({n})}; },
                      [](const std::vector<Tensor>& v) {
                          Tensor p = v[0], m = v[2], s = v[3];
                          adamUpdate(p, v[1], m, s, 1, AdamSettings{});
                          return p;
                      }});
    };
    adam(4);
    adam(256 * 1024);
    adam(4 * 1024 * 1024);

    // The worker's step beside the graph's nodes (runtime/exec/plan_trainer): it draws every
    // float input from a seeded stream ("synthetic_input": Box-Muller, a log and a sincos per
    // pair of values), and its loss draws a seeded target the size of each float output (the
    // whole output on every tensor-parallel rank) and takes the MSE against it, forward and
    // backward ("loss"). Bytes: the elements drawn, 4 each.
    auto drawn = [&](const std::string& family, int64_t n) {
        const bool loss = family == "loss";
        cs.push_back({family, family + " " + std::to_string(n), 0, 4.0 * double(n), loss,
                      [=] { return loss ? std::vector<Tensor>{leaf({n})} : std::vector<Tensor>{}; },
                      [=](const std::vector<Tensor>& v) {
                          const Tensor target = seededNormalPiece(mixSeed(7, uint64_t(n)), {n}, 1.0, -1, 0, 1);
                          if (!loss) return target;
                          const Tensor diff = v[0] - target;
                          return (diff * diff).sum() * (1.0 / double(n));
                      }});
    };
    for (const char* family : {"synthetic_input", "loss"})
        for (int64_t n : {int64_t(4), int64_t(4096), int64_t(64 * 1024), int64_t(1024 * 1024)}) drawn(family, n);

    // A Gather from a table that takes a gradient (an embedding): torch's index_select, whose
    // backward zero-fills a gradient the whole table's size and adds the selected rows into it,
    // so the table's bytes bound it, not the rows read ("gather", core/cost/family_time). Bytes:
    // the table, plus the rows read and written. 64 rows (a batch of 2 x 32 tokens) from tables
    // of a position embedding's to a vocabulary's size.
    auto gather = [&](int64_t rows, int64_t width, int64_t picked) {
        cs.push_back({"gather", "index_select " + std::to_string(picked) + " of " + std::to_string(rows) + "x" + std::to_string(width),
                      0, 4.0 * double(rows * width + 2 * picked * width), true,
                      [=] { return std::vector<Tensor>{leaf({rows, width}), torch::randint(rows, {picked}, torch::kLong)}; },
                      [](const std::vector<Tensor>& v) { return v[0].index_select(0, v[1]); }});
    };
    gather(4, 2, 2);
    gather(512, 256, 64);
    gather(4096, 128, 64);
    gather(8192, 256, 64);
    gather(32768, 256, 256);

    // What a node costs inside a step beyond its kernels timed alone: the worker's interpreter
    // (GraphInterpreter: values looked up, layouts checked, freed after their last reader) and
    // autograd's pass over a whole graph instead of one node's, per node; and per trained weight,
    // AccumulateGrad adding the node's fresh gradient into the held one (the worker's gradients
    // are views of one flat buffer, zeroed each step, so the add always runs). Chains of tiny
    // nodes through the worker's own interpreter at two lengths: the slope is a node's in-step
    // time, which fitFamilyRates sets against what the family prices the same node at.
    for (int n : {32, 256}) cs.push_back(nodeChainCase("node_in_step", n, false));
    for (int n : {32, 256}) cs.push_back(nodeChainCase("weight_in_step", n, true));
    return cs;
}

} // namespace

std::vector<FamilyCase> timeOpFamilies(double secondsPerCase, const std::function<void()>& together)
{
    std::vector<FamilyCase> out;
    for (const Case& c : familyCases()) {
        if (together) together();
        out.push_back({c.family, c.name, c.flops, c.bytes, timeCase(c, secondsPerCase), c.bytesBound, c.products, c.chainNodes});
    }
    return out;
}

std::map<std::string, OpFamilyRate> fitFamilyRates(const std::vector<FamilyCase>& cases)
{
    std::map<std::string, double> overhead;
    std::map<std::string, std::vector<double>> flopRates, byteRates;
    std::map<std::string, std::map<double, std::vector<double>>> bySize;     // family -> product FLOPs -> rates
    std::map<std::string, std::map<double, std::vector<double>>> byteBySize; // family -> case bytes -> rates
    std::map<std::string, std::map<int, double>> chains;                       // family -> nodes -> seconds
    for (const FamilyCase& c : cases) {
        if (c.chainNodes > 0) {
            chains[c.family][c.chainNodes] = c.seconds;
            continue;
        }
        if (!overhead.count(c.family)) { // the family's first case is its tiny one
            overhead[c.family] = c.seconds;
            continue;
        }
        // What the size adds over the overhead; never below a tenth of the case (timer noise).
        const double work = std::max(c.seconds - overhead[c.family], 0.1 * c.seconds);
        if (c.flops > 0 && !c.bytesBound) {
            flopRates[c.family].push_back(c.flops / work);
            bySize[c.family][c.flops / c.products].push_back(c.flops / work);
        } else {
            byteRates[c.family].push_back(c.bytes / work);
            if (c.flops == 0) byteBySize[c.family][c.bytes].push_back(c.bytes / work);
        }
    }
    std::map<std::string, OpFamilyRate> rates;
    for (const auto& [family, o] : overhead) {
        OpFamilyRate r;
        r.overhead = o;
        if (flopRates.count(family)) r.flopRate = median(flopRates[family], EvenMiddle::Lower);
        if (byteRates.count(family)) r.byteRate = median(byteRates[family], EvenMiddle::Lower);
        // A rate by size wherever the cases span two sizes or more: the small nodes of the
        // corpus run far below the large cases' rate, in every family.
        if (bySize.count(family) && bySize[family].size() >= 2)
            for (auto& [unit, rs] : bySize[family]) r.bySize.push_back({unit, median(rs, EvenMiddle::Lower)});
        if (byteBySize.count(family) && byteBySize[family].size() >= 2)
            for (auto& [bytes, rs] : byteBySize[family]) r.byteBySize.push_back({bytes, median(rs, EvenMiddle::Lower)});
        rates[family] = r;
    }
    // Per node of a chain: the slope between its shortest and longest length.
    auto slope = [&](const std::string& family) -> std::optional<double> {
        const auto it = chains.find(family);
        if (it == chains.end() || it->second.size() < 2) return std::nullopt;
        const auto& [n0, t0] = *it->second.begin();
        const auto& [n1, t1] = *it->second.rbegin();
        return (t1 - t0) / double(n1 - n0);
    };
    const std::optional<double> node = slope("node_in_step"), weighted = slope("weight_in_step");
    // Written only when positive (a spec family needs a rate or an overhead): a node that costs
    // no more in a step than alone leaves the family out, and the cost model adds nothing.
    if (node && rates.count("elementwise") && *node > rates["elementwise"].overhead)
        rates["node_in_step"].overhead = *node - rates["elementwise"].overhead;
    if (node && weighted && *weighted > *node) rates["weight_in_step"].overhead = *weighted - *node;
    return rates;
}

} // namespace tapas::runtime
