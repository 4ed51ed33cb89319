#include "runtime/exec/tp_collectives.h"

#include <chrono>
#include <stdexcept>

namespace tapas::runtime {

namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

TpGroup* g_group = nullptr;

TpGroup& group()
{
    if (!g_group || !g_group->comm) throw std::runtime_error("tensor-parallel collective without a tp group");
    return *g_group;
}

struct CommTimer {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~CommTimer()
    {
        if (g_group)
            g_group->commSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
};

// Communicators move floats; integer tensors (indices, masks) travel as floats (exact < 2^24).
Tensor asFloat(const Tensor& x) { return x.to(torch::kFloat32).contiguous(); }

// A split the ranks cannot share evenly would make the collective read or write past its
// buffers; refuse it with the shape instead.
void requireDivisible(const Tensor& x, int64_t dim, int tp, const char* what)
{
    if (dim < 0 || dim >= x.dim() || x.size(dim) % tp != 0) {
        std::string shape;
        for (int64_t d : x.sizes()) shape += (shape.empty() ? "" : "x") + std::to_string(d);
        throw std::runtime_error(std::string(what) + ": dim " + std::to_string(dim) + " of a [" + shape +
                                 "] tensor does not split " + std::to_string(tp) + " ways");
    }
}

Tensor rawAllReduce(const Tensor& x)
{
    TpGroup& g = group();
    Tensor b = asFloat(x).clone();
    {
        CommTimer t;
        g.comm->allReduceSum(b.data_ptr<float>(), size_t(b.numel()));
    }
    return b.to(x.scalar_type());
}

Tensor rawAllGather(const Tensor& x, int64_t dim)
{
    TpGroup& g = group();
    Tensor in = asFloat(x.movedim(dim, 0));
    std::vector<int64_t> shape = in.sizes().vec();
    shape[0] *= g.tp;
    Tensor out = torch::empty(shape, in.options());
    {
        CommTimer t;
        g.comm->allGather(in.data_ptr<float>(), size_t(in.numel()), out.data_ptr<float>());
    }
    return out.movedim(0, dim).to(x.scalar_type());
}

Tensor rawReduceScatter(const Tensor& x, int64_t dim)
{
    TpGroup& g = group();
    requireDivisible(x, dim, g.tp, "reduce-scatter");
    Tensor in = asFloat(x.movedim(dim, 0));
    std::vector<int64_t> shape = in.sizes().vec();
    shape[0] /= g.tp;
    Tensor out = torch::empty(shape, in.options());
    {
        CommTimer t;
        g.comm->reduceScatterSum(in.data_ptr<float>(), size_t(out.numel()), out.data_ptr<float>());
    }
    return out.movedim(0, dim).to(x.scalar_type());
}

// S(from) -> S(to): piece j of this rank's shard along `to` goes to rank j; what arrives from
// rank i is rank i's part of `from`, so the pieces concatenate along `from` in rank order.
Tensor rawAllToAll(const Tensor& x, int64_t from, int64_t to)
{
    TpGroup& g = group();
    requireDivisible(x, to, g.tp, "all-to-all");
    Tensor xf = asFloat(x);
    std::vector<Tensor> pieces;
    for (const Tensor& p : xf.chunk(g.tp, to)) pieces.push_back(p.contiguous().reshape({-1}));
    Tensor send = torch::cat(pieces);
    Tensor recv = torch::empty_like(send);
    const int64_t count = pieces[0].numel();
    {
        CommTimer t;
        g.comm->allToAll(send.data_ptr<float>(), size_t(count), recv.data_ptr<float>());
    }
    std::vector<int64_t> pieceShape = xf.sizes().vec();
    pieceShape[size_t(to)] /= g.tp;
    std::vector<Tensor> parts;
    for (int i = 0; i < g.tp; ++i) parts.push_back(recv.narrow(0, i * count, count).reshape(pieceShape));
    return torch::cat(parts, from).to(x.scalar_type());
}

Tensor localNarrow(const Tensor& x, int64_t dim)
{
    TpGroup& g = group();
    requireDivisible(x, dim, g.tp, "slice");
    const int64_t part = x.size(dim) / g.tp;
    return x.narrow(dim, g.index * part, part).contiguous();
}

struct AllReduceFn : torch::autograd::Function<AllReduceFn> {
    static Tensor forward(AutogradContext*, Tensor x) { return rawAllReduce(x); }
    static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

struct CopyToTpFn : torch::autograd::Function<CopyToTpFn> {
    // The identity forward: autograd returns an unmodified input as a view of it (no copy), so a
    // replicated weight or activation that split compute reads is not held twice until the
    // backward (a clone doubled the mel spectrogram's STFT kernels, 1 MB of its 6.4 MB peak).
    static Tensor forward(AutogradContext*, Tensor x) { return x; }
    static variable_list backward(AutogradContext*, variable_list g)
    {
        if (group().skipFAllReduce) return {g[0]};
        return {rawAllReduce(g[0])};
    }
};

struct AllGatherFn : torch::autograd::Function<AllGatherFn> {
    static Tensor forward(AutogradContext* ctx, Tensor x, int64_t dim)
    {
        ctx->saved_data["dim"] = dim;
        return rawAllGather(x, dim);
    }
    static variable_list backward(AutogradContext* ctx, variable_list g)
    {
        return {localNarrow(g[0], ctx->saved_data["dim"].toInt()), Tensor()};
    }
};

struct SliceFn : torch::autograd::Function<SliceFn> {
    static Tensor forward(AutogradContext* ctx, Tensor x, int64_t dim)
    {
        ctx->saved_data["dim"] = dim;
        return localNarrow(x, dim);
    }
    static variable_list backward(AutogradContext* ctx, variable_list g)
    {
        return {rawAllGather(g[0], ctx->saved_data["dim"].toInt()), Tensor()};
    }
};

struct ReduceScatterFn : torch::autograd::Function<ReduceScatterFn> {
    static Tensor forward(AutogradContext* ctx, Tensor x, int64_t dim)
    {
        ctx->saved_data["dim"] = dim;
        return rawReduceScatter(x, dim);
    }
    static variable_list backward(AutogradContext* ctx, variable_list g)
    {
        return {rawAllGather(g[0], ctx->saved_data["dim"].toInt()), Tensor()};
    }
};

struct AllToAllFn : torch::autograd::Function<AllToAllFn> {
    static Tensor forward(AutogradContext* ctx, Tensor x, int64_t from, int64_t to)
    {
        ctx->saved_data["from"] = from;
        ctx->saved_data["to"] = to;
        return rawAllToAll(x, from, to);
    }
    static variable_list backward(AutogradContext* ctx, variable_list g)
    {
        return {rawAllToAll(g[0], ctx->saved_data["to"].toInt(), ctx->saved_data["from"].toInt()), Tensor(),
                Tensor()};
    }
};

// R -> P: the value counts once in the sum, on tp rank 0; its gradient is replicated.
struct ToPartialFn : torch::autograd::Function<ToPartialFn> {
    static Tensor forward(AutogradContext*, Tensor x) { return group().index == 0 ? x.clone() : torch::zeros_like(x); }
    static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

Tensor interleaveIndex(int64_t size, int k, int tp)
{
    const int64_t block = size / (int64_t(k) * tp);
    std::vector<int64_t> idx;
    idx.reserve(size_t(size));
    for (int r = 0; r < tp; ++r)
        for (int p = 0; p < k; ++p)
            for (int64_t j = 0; j < block; ++j) idx.push_back(p * (size / k) + r * block + j);
    return torch::tensor(idx, torch::kLong);
}

} // namespace

void setActiveTpGroup(TpGroup* g) { g_group = g; }
TpGroup* activeTpGroup() { return g_group; }

Tensor interleavePermute(const Tensor& x, int dim, int k, int tp, bool inverse)
{
    if (k <= 1) return x;
    Tensor idx = interleaveIndex(x.size(dim), k, tp);
    if (inverse) idx = torch::argsort(idx);
    return x.index_select(dim, idx);
}

Tensor shardOf(const Tensor& whole, const TensorLayout& layout, int k, int tp, int index)
{
    if (tp <= 1 || layout.kind == TensorLayout::R) return whole;
    if (layout.kind == TensorLayout::P) return index == 0 ? whole : torch::zeros_like(whole);
    const Tensor w = interleavePermute(whole, layout.dim, k, tp, false);
    const int64_t part = w.size(layout.dim) / tp;
    return w.narrow(layout.dim, index * part, part).contiguous();
}

Tensor copyToTpRegion(const Tensor& x)
{
    if (!g_group || g_group->tp <= 1 || !x.requires_grad()) return x;
    return CopyToTpFn::apply(x);
}

Tensor reshard(const Tensor& input, const TensorLayout& fromIn, int fromK, const TensorLayout& to, int toK)
{
    if (!g_group || g_group->tp <= 1) return input;
    if (fromIn == to && fromK == toK) return input;
    const int tp = g_group->tp;
    Tensor x = input;
    TensorLayout from = fromIn;
    // Interleaved sources, and a change of interleave on the same split, go through R.
    if (from.kind == TensorLayout::S && (fromK > 1 || (from == to && fromK != toK))) {
        x = AllGatherFn::apply(x, int64_t(from.dim));
        x = interleavePermute(x, from.dim, fromK, tp, true);
        from = TensorLayout::replicated();
        if (from == to) return x;
    }
    switch (to.kind) {
    case TensorLayout::R:
        if (from.kind == TensorLayout::P) return AllReduceFn::apply(x);
        if (from.kind == TensorLayout::S) return AllGatherFn::apply(x, int64_t(from.dim));
        return x;
    case TensorLayout::P:
        if (from.kind == TensorLayout::S) x = AllGatherFn::apply(x, int64_t(from.dim));
        return from.kind == TensorLayout::P ? x : ToPartialFn::apply(x);
    case TensorLayout::S: {
        const int64_t e = to.dim;
        // The split dim is whole locally in every case below, so permuting it here is exact.
        if (toK > 1) x = interleavePermute(x, int(e), toK, tp, false);
        if (from.kind == TensorLayout::R) return SliceFn::apply(x, e);
        if (from.kind == TensorLayout::P) return ReduceScatterFn::apply(x, e);
        return AllToAllFn::apply(x, int64_t(from.dim), e);
    }
    }
    return x;
}

void allReduceInPlace(Communicator& comm, Tensor& flat, double& seconds)
{
    const auto start = std::chrono::steady_clock::now();
    comm.allReduceSum(flat.data_ptr<float>(), size_t(flat.numel()));
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace tapas::runtime
