// LSTM, GRU and RNN with ONNX semantics, composed of torch ops so autograd gives the backward:
// gate orders iofc (LSTM) and zrh (GRU), directions forward / reverse / bidirectional, layout 0
// ([seq, batch, ...]) or 1 (batch first), biases, initial states, sequence_lens (a sample's
// state stops at its length and its Y is 0 beyond it), LSTM peepholes, GRU linear_before_reset
// and clip. Only the default activations are run (Sigmoid/Tanh/Tanh, Sigmoid/Tanh, Tanh);
// other activation lists and LSTM's input_forget are refused naming the node.
#include "runtime/exec/kernels/kernel_table.h"

namespace tapas::runtime {

namespace {
using namespace kernels;

enum class Cell { Lstm, Gru, Rnn };

int gates(Cell k) { return k == Cell::Lstm ? 4 : k == Cell::Gru ? 3 : 1; }

void checkActivations(const KernelCall& c, Cell k, int dirs)
{
    const Attribute* a = c.node.attr("activations");
    if (!a) return;
    std::vector<std::string> want = k == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                    : k == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                     : std::vector<std::string>{"Tanh"};
    std::vector<std::string> all;
    for (int d = 0; d < dirs; ++d) all.insert(all.end(), want.begin(), want.end());
    if (a->strings != all && a->strings != want) {
        std::string got;
        for (const std::string& s : a->strings) got += (got.empty() ? "" : ",") + s;
        fail(c, "activations '" + got + "' are not run; only the defaults are");
    }
}

struct Setup {
    Cell kind;
    int64_t hidden = 0, steps = 0, batch = 0;
    int dirs = 1;
    bool reverseOnly = false, batchFirst = false;
    double clip = 0;
    Tensor x, w, r, b, mask, h0, c0, p;
};

Setup setup(const KernelCall& c, Cell kind)
{
    Setup s;
    s.kind = kind;
    s.hidden = c.node.attrInt("hidden_size", 0);
    if (s.hidden <= 0) fail(c, "needs a positive hidden_size attribute");
    const std::string direction = c.node.attrString("direction", "forward");
    if (direction == "bidirectional") s.dirs = 2;
    else if (direction == "reverse") s.reverseOnly = true;
    else if (direction != "forward")
        fail(c, "direction '" + direction + "' is not forward, reverse or bidirectional");
    checkActivations(c, kind, s.dirs);
    if (kind == Cell::Lstm && c.node.attrInt("input_forget", 0) != 0) fail(c, "input_forget is not run");
    s.clip = c.node.attrFloat("clip", 0);
    s.batchFirst = c.node.attrInt("layout", 0) == 1;
    s.x = in(c, 0);
    if (s.x.dim() != 3) fail(c, "X has rank " + std::to_string(s.x.dim()) + "; it must be 3");
    if (s.batchFirst) s.x = s.x.transpose(0, 1);
    s.steps = s.x.size(0);
    s.batch = s.x.size(1);
    const int64_t gh = gates(kind) * s.hidden;
    s.w = in(c, 1);
    s.r = in(c, 2);
    if (s.w.dim() != 3 || s.w.size(0) != s.dirs || s.w.size(1) != gh || s.w.size(2) != s.x.size(2))
        fail(c, "W is " + std::string(c10::str(s.w.sizes())) + ", expected [" + std::to_string(s.dirs) + ", " +
                    std::to_string(gh) + ", " + std::to_string(s.x.size(2)) + "]");
    if (s.r.dim() != 3 || s.r.size(0) != s.dirs || s.r.size(1) != gh || s.r.size(2) != s.hidden)
        fail(c, "R is " + std::string(c10::str(s.r.sizes())) + ", expected [" + std::to_string(s.dirs) + ", " +
                    std::to_string(gh) + ", " + std::to_string(s.hidden) + "]");
    s.b = has(c, 3) ? c.in[3] : torch::zeros({s.dirs, 2 * gh}, s.x.options());
    if (has(c, 4)) {
        Tensor lens = c.in[4].to(torch::kLong).reshape({1, -1});
        if (lens.size(1) != s.batch) fail(c, "sequence_lens has " + std::to_string(lens.size(1)) + " entries for a batch of " + std::to_string(s.batch));
        s.mask = (torch::arange(s.steps, torch::kLong).reshape({-1, 1}) < lens).unsqueeze(-1).to(s.x.scalar_type());
    }
    auto state = [&](size_t i) {
        if (!has(c, i)) return torch::zeros({s.dirs, s.batch, s.hidden}, s.x.options());
        return s.batchFirst ? c.in[i].transpose(0, 1) : c.in[i];
    };
    s.h0 = state(5);
    if (kind == Cell::Lstm) {
        s.c0 = state(6);
        if (has(c, 7)) s.p = c.in[7];
    }
    return s;
}

Tensor clipped(const Setup& s, const Tensor& t) { return s.clip > 0 ? t.clamp(-s.clip, s.clip) : t; }

std::vector<Tensor> recurrent(const KernelCall& c, Cell kind)
{
    const Setup s = setup(c, kind);
    const int64_t gh = gates(kind) * s.hidden;
    std::vector<Tensor> ys, hs, cs;
    for (int d = 0; d < s.dirs; ++d) {
        const bool reverse = s.reverseOnly || d == 1;
        const Tensor w = s.w[d], r = s.r[d], wb = s.b[d].narrow(0, 0, gh), rb = s.b[d].narrow(0, gh, gh);
        const Tensor xw = torch::matmul(s.x, w.t()) + wb; // every step's input part at once
        Tensor h = s.h0[d], cell = kind == Cell::Lstm ? s.c0[d] : Tensor();
        std::vector<Tensor> y(size_t(s.steps));
        for (int64_t k = 0; k < s.steps; ++k) {
            const int64_t t = reverse ? s.steps - 1 - k : k;
            Tensor hNew, cNew;
            if (kind == Cell::Lstm) {
                const auto g = (xw[t] + torch::matmul(h, r.t()) + rb).chunk(4, -1); // i, o, f, c
                Tensor iPre = g[0], oPre = g[1], fPre = g[2];
                if (s.p.defined()) {
                    const auto pp = s.p[d].chunk(3, -1); // i, o, f
                    iPre = iPre + pp[0] * cell;
                    fPre = fPre + pp[2] * cell;
                }
                cNew = torch::sigmoid(clipped(s, fPre)) * cell + torch::sigmoid(clipped(s, iPre)) * torch::tanh(clipped(s, g[3]));
                if (s.p.defined()) oPre = oPre + s.p[d].chunk(3, -1)[1] * cNew;
                hNew = torch::sigmoid(clipped(s, oPre)) * torch::tanh(cNew);
            } else if (kind == Cell::Gru) {
                const auto xg = xw[t].chunk(3, -1), rw = r.chunk(3, 0), rbg = rb.chunk(3, -1); // z, r, h
                const Tensor z = torch::sigmoid(clipped(s, xg[0] + torch::matmul(h, rw[0].t()) + rbg[0]));
                const Tensor rr = torch::sigmoid(clipped(s, xg[1] + torch::matmul(h, rw[1].t()) + rbg[1]));
                const Tensor hh = c.node.attrInt("linear_before_reset", 0) != 0
                                      ? xg[2] + rr * (torch::matmul(h, rw[2].t()) + rbg[2])
                                      : xg[2] + torch::matmul(rr * h, rw[2].t()) + rbg[2];
                hNew = (1 - z) * torch::tanh(clipped(s, hh)) + z * h;
            } else {
                hNew = torch::tanh(clipped(s, xw[t] + torch::matmul(h, r.t()) + rb));
            }
            if (s.mask.defined()) {
                const Tensor m = s.mask[t];
                y[size_t(t)] = m * hNew;
                hNew = m * hNew + (1 - m) * h;
                if (cNew.defined()) cNew = m * cNew + (1 - m) * cell;
            } else {
                y[size_t(t)] = hNew;
            }
            h = hNew;
            if (cNew.defined()) cell = cNew;
        }
        ys.push_back(torch::stack(y));
        hs.push_back(h);
        if (cell.defined()) cs.push_back(cell);
    }
    Tensor yAll = torch::stack(ys, 1), hAll = torch::stack(hs); // [seq, dirs, batch, H], [dirs, batch, H]
    Tensor cAll = cs.empty() ? Tensor() : torch::stack(cs);
    if (s.batchFirst) {
        yAll = yAll.permute({2, 0, 1, 3});
        hAll = hAll.transpose(0, 1);
        if (cAll.defined()) cAll = cAll.transpose(0, 1);
    }
    std::vector<Tensor> out{yAll, hAll};
    if (cAll.defined()) out.push_back(cAll);
    return out;
}

} // namespace

void registerRecurrentKernels(KernelTable& t)
{
    t.add("LSTM", [](const KernelCall& c) { return recurrent(c, Cell::Lstm); });
    t.add("GRU", [](const KernelCall& c) { return recurrent(c, Cell::Gru); });
    t.add("RNN", [](const KernelCall& c) { return recurrent(c, Cell::Rnn); });
}

} // namespace tapas::runtime
