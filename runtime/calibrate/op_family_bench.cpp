#include "runtime/calibrate/op_family_bench.h"

#include "core/util/cpu_clock.h"
#include "core/util/median.h"

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

double elems(const std::vector<int64_t>& s)
{
    double n = 1;
    for (int64_t d : s) n *= double(d);
    return n;
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

    auto conv = [&](int64_t b, int64_t c, int64_t hw, int64_t o, int64_t kk, int64_t stride = 1) {
        const int64_t ohw = (hw + 2 * (kk / 2) - kk) / stride + 1;
        const double out = double(b) * o * ohw * ohw;
        cs.push_back({"conv",
                      std::to_string(b) + "x" + std::to_string(c) + "x" + std::to_string(hw) + "^2 k" + std::to_string(kk) +
                          (stride > 1 ? " s" + std::to_string(stride) : std::string()) + " o" + std::to_string(o),
                      2.0 * out * c * kk * kk, 4.0 * (double(b) * c * hw * hw + double(o) * c * kk * kk + out), true,
                      [=] { return std::vector<Tensor>{leaf({b, c, hw, hw}), leaf({o, c, kk, kk})}; },
                      [=](const std::vector<Tensor>& v) { return torch::conv2d(v[0], v[1], {}, stride, kk / 2); }});
    };
    conv(1, 1, 2, 1, 1);
    conv(8, 64, 28, 64, 3);
    conv(8, 32, 56, 64, 1);
    // What the corpus trains on 2 ranks: a batch of 1-2 per rank, strided stems, few channels
    // (audio front ends), and 1-D convolutions; torch's CPU kernels run these well below the
    // rate of the large square cases, and the family's rate is the median over all.
    conv(1, 64, 56, 32, 3);
    conv(1, 128, 28, 64, 3, 2);
    conv(1, 3, 224, 32, 7, 2);
    conv(2, 16, 40, 32, 3);
    conv(2, 32, 20, 32, 3);
    auto conv1d = [&](int64_t b, int64_t c, int64_t len, int64_t o, int64_t kk) {
        const double out = double(b) * o * len;
        cs.push_back({"conv", "1-D " + std::to_string(b) + "x" + std::to_string(c) + "x" + std::to_string(len) + " k" + std::to_string(kk),
                      2.0 * out * c * kk, 4.0 * (double(b) * c * len + double(o) * c * kk + out), true,
                      [=] { return std::vector<Tensor>{leaf({b, c, len}), leaf({o, c, kk})}; },
                      [=](const std::vector<Tensor>& v) { return torch::conv1d(v[0], v[1], {}, 1, kk / 2); }});
    };
    conv1d(1, 64, 64, 64, 3);
    conv1d(1, 16, 256, 32, 3);
    // Grouped and depthwise convolutions (MobileNet, PP-OCR): a handful of FLOPs per output
    // element, which torch's CPU kernels run far below the dense rate; priced as a family of
    // their own ("conv_grouped", core/cost/family_time).
    auto grouped = [&](int64_t b, int64_t c, int64_t hw, int64_t kk, int64_t groups) {
        const double out = double(b) * c * hw * hw;
        cs.push_back({"conv_grouped",
                      std::to_string(b) + "x" + std::to_string(c) + "x" + std::to_string(hw) + "^2 k" + std::to_string(kk) + " g" +
                          std::to_string(groups),
                      2.0 * out * double(c / groups) * kk * kk, 4.0 * (2 * out + double(c) * (c / groups) * kk * kk), true,
                      [=] { return std::vector<Tensor>{leaf({b, c, hw, hw}), leaf({c, c / groups, kk, kk})}; },
                      [=](const std::vector<Tensor>& v) { return torch::conv2d(v[0], v[1], {}, 1, kk / 2, 1, groups); }});
    };
    grouped(1, 2, 2, 1, 2);
    grouped(8, 64, 28, 3, 64);
    grouped(8, 128, 14, 3, 128);
    grouped(8, 64, 28, 3, 8);

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
    add("elementwise", "add 4", {4}, 3, [](const std::vector<Tensor>& v) { return v[0] + v[1]; }, 2);
    add("elementwise", "add 512x1024", big, 3, [](const std::vector<Tensor>& v) { return v[0] + v[1]; }, 2);
    add("elementwise", "mul 512x1024", big, 3, [](const std::vector<Tensor>& v) { return v[0] * v[1]; }, 2);
    add("elementwise", "erf 512x1024", big, 2, [](const std::vector<Tensor>& v) { return torch::erf(v[0]); });
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
    // BatchNorm as the worker runs it (the inference form with stored statistics, broadcast
    // element-wise over the channels: runtime/exec/kernels/normalization_kernels).
    add("normalization", "batchnorm 2x64x56x56", {2, 64, 56, 56}, 2, [](const std::vector<Tensor>& v) {
        const Tensor mean = torch::zeros({1, 64, 1, 1}), var = torch::ones({1, 64, 1, 1});
        const Tensor scale = torch::ones({1, 64, 1, 1}).set_requires_grad(true), shift = torch::zeros({1, 64, 1, 1}).set_requires_grad(true);
        return (v[0] - mean) / torch::sqrt(var + 1e-5) * scale + shift;
    });
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
    // Pooling reads each input element a few times and writes less: bound by bytes, as the
    // element-wise ops are, not by the convolutions' FLOP rate ("pool").
    add("pool", "max 1x1x2x2 k2", {1, 1, 2, 2}, 1.25,
        [](const std::vector<Tensor>& v) { return torch::max_pool2d(v[0], {2, 2}, {2, 2}); });
    add("pool", "max 8x64x56x56 k3s2", {8, 64, 56, 56}, 1.25,
        [](const std::vector<Tensor>& v) { return torch::max_pool2d(v[0], {3, 3}, {2, 2}, {1, 1}); });
    add("pool", "global avg 8x256x14x14", {8, 256, 14, 14}, 1.0,
        [](const std::vector<Tensor>& v) { return v[0].mean({2, 3}, true); });
    add("generator", "arange 4", {4}, 1, [](const std::vector<Tensor>&) { return torch::arange(4, torch::kFloat32); }, 0, false);

    // The worker's Adam update of one weight (runtime/exec/plan_trainer): bytes are the weight's.
    auto adam = [&](int64_t n) {
        cs.push_back({"optimizer", "adam " + std::to_string(n), 0, 4.0 * double(n), false,
                      [=] { return std::vector<Tensor>{torch::randn({n}), torch::randn({n}), torch::zeros({n}), torch::zeros({n})}; },
                      [](const std::vector<Tensor>& v) {
                          Tensor p = v[0], g = v[1], m = v[2], s = v[3];
                          m.mul_(0.9).add_(g, 0.1);
                          s.mul_(0.999).addcmul_(g, g, 0.001);
                          p.sub_(m / 0.1 / ((s / 0.001).sqrt() + 1e-8) * 1e-3);
                          return p;
                      }});
    };
    adam(4);
    adam(512 * 1024);
    return cs;
}

} // namespace

std::vector<FamilyCase> timeOpFamilies(double secondsPerCase, const std::function<void()>& together)
{
    std::vector<FamilyCase> out;
    for (const Case& c : familyCases()) {
        if (together) together();
        out.push_back({c.family, c.name, c.flops, c.bytes, timeCase(c, secondsPerCase), c.bytesBound, c.products});
    }
    return out;
}

std::map<std::string, OpFamilyRate> fitFamilyRates(const std::vector<FamilyCase>& cases)
{
    std::map<std::string, double> overhead;
    std::map<std::string, std::vector<double>> flopRates, byteRates;
    std::map<std::string, std::map<double, std::vector<double>>> bySize; // family -> product FLOPs -> rates
    for (const FamilyCase& c : cases) {
        if (!overhead.count(c.family)) { // the family's first case is its tiny one
            overhead[c.family] = c.seconds;
            continue;
        }
        // What the size adds over the overhead; never below a tenth of the case (timer noise).
        const double work = std::max(c.seconds - overhead[c.family], 0.1 * c.seconds);
        if (c.flops > 0 && !c.bytesBound) {
            flopRates[c.family].push_back(c.flops / work);
            if (c.family == "matmul" || c.family == "matmul_strided")
                bySize[c.family][c.flops / c.products].push_back(c.flops / work);
        } else {
            byteRates[c.family].push_back(c.bytes / work);
        }
    }
    std::map<std::string, OpFamilyRate> rates;
    for (const auto& [family, o] : overhead) {
        OpFamilyRate r;
        r.overhead = o;
        if (flopRates.count(family)) r.flopRate = median(flopRates[family], EvenMiddle::Lower);
        if (byteRates.count(family)) r.byteRate = median(byteRates[family], EvenMiddle::Lower);
        if (bySize.count(family) && bySize[family].size() >= 2)
            for (auto& [unit, rs] : bySize[family]) r.bySize.push_back({unit, median(rs, EvenMiddle::Lower)});
        rates[family] = r;
    }
    return rates;
}

} // namespace tapas::runtime
