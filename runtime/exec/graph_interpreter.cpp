#include "runtime/exec/graph_interpreter.h"

#include "core/cost/pipeline_cost.h"
#include "runtime/exec/op_kernels.h"
#include "runtime/exec/region_checkpoint.h"
#include "runtime/exec/tp_collectives.h"

#include <numeric>
#include <stdexcept>

namespace tapas::runtime {

namespace {

std::string shapeText(const std::vector<int64_t>& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out + "]";
}

bool knownValue(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    if (!x.value || isTrainable(g, t)) return false;
    // Integer values are shape arithmetic; float ones only for constants and initializers.
    if (x.value->isInteger()) return true;
    return x.producer == kNoNode || g.node(x.producer).opType == "Constant";
}

} // namespace

torch::Tensor untrainedWeight(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    const std::vector<int64_t> shape = x.shape.isFullyKnown() ? x.shape.knownDims() : std::vector<int64_t>{};
    const auto type = torchType(x.dtype);
    if (x.dtype == DType::Bool) {
        torch::Tensor ones = torch::ones(shape, torch::kBool);
        if (shape.size() >= 2 && shape[shape.size() - 1] == shape[shape.size() - 2]) return torch::tril(ones);
        return ones;
    }
    for (NodeId c : x.consumers) {
        const Node& n = g.node(c);
        if (n.opType == "BatchNormalization" && n.input(4) == t) return torch::ones(shape, type);
    }
    if (dtypeIsFloating(x.dtype) && x.shape.numElementsOr(1) <= 1) return torch::ones(shape, type);
    return torch::zeros(shape, type);
}

torch::Tensor storedValue(const Graph& g, TensorId t, const StoredWeights* stored)
{
    if (!stored) return {};
    const Tensor& x = g.tensor(t);
    const auto it = stored->tensors.find(x.name);
    if (it == stored->tensors.end() || !x.shape.isFullyKnown()) return {};
    const std::vector<int64_t> shape = x.shape.knownDims();
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const std::vector<float>& v = it->second.values;
    if (int64_t(v.size()) != n) return {};
    // from_blob borrows the bytes; the clone owns them, so the map may go away.
    return torch::from_blob(const_cast<float*>(v.data()), {n}, torch::kFloat32).clone().reshape(shape);
}

GraphInterpreter::GraphInterpreter(const Graph& g, ExecLayouts layouts, int tpIndex, const StoredWeights* stored,
                                   bool fuse)
    : g_(g), L_(std::move(layouts)), tpIndex_(tpIndex), fusedIn_(g.nodes.size(), -1)
{
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t) {
        const Tensor& x = g.tensor(t);
        if (knownValue(g, t)) {
            constants_[t] = constTensor(*x.value);
        } else if (x.producer == kNoNode && (x.kind == TensorKind::Weight || x.kind == TensorKind::Constant) &&
                   !isTrainable(g, t)) {
            torch::Tensor v = storedValue(g, t, stored);
            constants_[t] = v.defined() ? v : untrainedWeight(g, t);
        } else if (x.producer != kNoNode && g.node(x.producer).opType == "Constant" && dtypeIsFloating(x.dtype) &&
                   !isTrainable(g, t)) {
            // The IR keeps only small values; a Constant node's weight comes from the file, and
            // the node is then skipped as already computed.
            if (torch::Tensor v = storedValue(g, t, stored); v.defined()) constants_[t] = v;
        }
    }
    if (fuse) {
        std::vector<char> known(g.tensors.size(), 0);
        for (const auto& [t, v] : constants_) known[size_t(t)] = 1;
        fusions_ = findFusions(g, L_, known);
        for (size_t f = 0; f < fusions_.size(); ++f)
            for (NodeId n : fusions_[f].nodes) fusedIn_[size_t(n)] = int(f);
    }
    findCoreRegions();
}

// The connected pieces of the attention-core nodes, each with what it reads and what leaves it.
// A piece a fused chain crosses is left out: run apart from the chain it would give other floats
// than the run that keeps everything (which fuses the chain).
void GraphInterpreter::findCoreRegions()
{
    const size_t nodes = g_.nodes.size();
    coreOf_.assign(nodes, -1);
    const std::vector<char> core = attentionCoreNodes(g_);
    std::vector<NodeId> root(nodes);
    std::iota(root.begin(), root.end(), NodeId(0));
    auto find = [&](NodeId n) {
        while (root[size_t(n)] != n) n = root[size_t(n)] = root[size_t(root[size_t(n)])];
        return n;
    };
    for (NodeId n = 0; n < NodeId(nodes); ++n) {
        if (!core[size_t(n)]) continue;
        for (TensorId t : g_.node(n).inputs) {
            if (t == kNoTensor) continue;
            const NodeId p = g_.tensor(t).producer;
            if (p != kNoNode && core[size_t(p)]) root[size_t(find(n))] = find(p);
        }
    }
    std::vector<int> pieceOf(nodes, -1);
    std::vector<CoreRegion> pieces;
    for (NodeId n = 0; n < NodeId(nodes); ++n) {
        if (!core[size_t(n)]) continue;
        const NodeId r = find(n);
        if (pieceOf[size_t(r)] < 0) {
            pieceOf[size_t(r)] = int(pieces.size());
            pieces.emplace_back();
        }
        pieces[size_t(pieceOf[size_t(r)])].nodes.push_back(n); // graph order: n grows
    }
    std::vector<char> isOutput(g_.tensors.size(), 0);
    for (TensorId t : g_.outputs) isOutput[size_t(t)] = 1;
    for (CoreRegion& r : pieces) {
        r.runs.assign(nodes, 0);
        for (NodeId n : r.nodes) r.runs[size_t(n)] = 1;
        bool crossed = false;
        for (NodeId n : r.nodes) {
            const int f = fusedIn_[size_t(n)];
            if (f >= 0)
                for (NodeId m : fusions_[size_t(f)].nodes) crossed = crossed || !r.runs[size_t(m)];
        }
        if (crossed) continue;
        for (NodeId n : r.nodes) {
            for (TensorId t : g_.node(n).inputs) {
                if (t == kNoTensor || constants_.count(t)) continue;
                const NodeId p = g_.tensor(t).producer;
                if ((p == kNoNode || !r.runs[size_t(p)]) && std::find(r.inputs.begin(), r.inputs.end(), t) == r.inputs.end())
                    r.inputs.push_back(t);
            }
            for (TensorId t : g_.node(n).outputs) {
                if (t == kNoTensor) continue;
                bool leaves = isOutput[size_t(t)];
                for (NodeId c : g_.tensor(t).consumers) leaves = leaves || !r.runs[size_t(c)];
                if (leaves) r.outputs.push_back(t);
            }
        }
        if (r.outputs.empty()) continue; // nothing reads it: nothing to keep or rerun
        for (NodeId n : r.nodes) coreOf_[size_t(n)] = int(cores_.size());
        cores_.push_back(std::move(r));
    }
}

int GraphInterpreter::coreRegionsIn(const std::vector<char>& runs) const
{
    int count = 0;
    for (const CoreRegion& r : cores_) {
        bool whole = true;
        for (NodeId n : r.nodes) whole = whole && (runs.empty() || runs[size_t(n)]);
        count += whole;
    }
    return count;
}

// An element-wise op whose output is split while a replicated input still spans the whole
// split extent (a bias whose values the importer kept is planned as a constant): that input
// is cut to this rank's part so the shapes broadcast as the plan intends (undefined otherwise).
torch::Tensor GraphInterpreter::splitLikeOutput(NodeId n, const torch::Tensor& in) const
{
    static const char* const kBroadcasting[] = {"Add", "Sub", "Mul", "Div", "Pow", "Where", "Max", "Min", "Sum",
                                                "Mean", "Equal", "Less", "Greater", "And", "Or", "PRelu"};
    const Node& node = g_.node(n);
    bool broadcasting = false;
    for (const char* op : kBroadcasting) broadcasting = broadcasting || node.opType == op;
    if (!broadcasting || L_.tp <= 1 || node.outputs.empty() || node.outputs[0] == kNoTensor) return {};
    const TensorLayout& o = L_.nodes[size_t(n)].outputs[0];
    if (o.kind != TensorLayout::S) return {};
    const Shape& os = g_.tensor(node.outputs[0]).shape;
    const int a = o.dim - (os.rank() - int(in.dim()));
    if (a < 0 || a >= in.dim() || !os.dims[size_t(o.dim)].isKnown()) return {};
    const int64_t whole = os.dims[size_t(o.dim)].value;
    if (whole <= 1 || in.size(a) != whole) return {};
    return reshard(in, TensorLayout::replicated(), 1, TensorLayout::split(a), L_.producedK[size_t(node.outputs[0])]);
}

torch::Tensor GraphInterpreter::prepareInput(NodeId n, size_t i, const LocalValue& v) const
{
    const OpStrategy& s = L_.nodes[size_t(n)];
    torch::Tensor x = reshard(v.t, v.layout, v.k, s.inputs[i], L_.needK[size_t(n)][i]);
    if (!splitsWork(s) || s.inputs[i].kind != TensorLayout::R) return x;
    // Sliced to the output's split, its gradient comes back whole through the slice; else
    // Megatron's f makes the gradient of a replicated float input whole.
    if (torch::Tensor part = splitLikeOutput(n, x); part.defined()) return part;
    return x.is_floating_point() ? copyToTpRegion(x) : x;
}

std::optional<std::vector<int64_t>> GraphInterpreter::localShape(TensorId t, const TensorLayout& layout) const
{
    const Shape& s = g_.tensor(t).shape;
    if (!s.isFullyKnown()) return std::nullopt;
    std::vector<int64_t> d = s.knownDims();
    if (layout.kind == TensorLayout::S && layout.dim >= 0 && size_t(layout.dim) < d.size()) d[size_t(layout.dim)] /= L_.tp;
    return d;
}

std::vector<LocalValue> GraphInterpreter::forward(const std::unordered_map<TensorId, torch::Tensor>& params,
                                                  const std::unordered_map<TensorId, torch::Tensor>& feeds) const
{
    std::vector<LocalValue> outputs = run(params, feeds, {}, {}, g_.outputs);
    for (LocalValue& v : outputs) v = finalOutput(std::move(v));
    return outputs;
}

LocalValue GraphInterpreter::finalOutput(LocalValue v) const
{
    if (v.layout.kind == TensorLayout::P) {
        v.t = reshard(v.t, v.layout, 1, TensorLayout::replicated(), 1);
        v.layout = TensorLayout::replicated();
    } else if (v.k > 1) {
        v.t = reshard(v.t, v.layout, v.k, v.layout, 1);
        v.k = 1;
    }
    return v;
}

std::vector<LocalValue> GraphInterpreter::run(const std::unordered_map<TensorId, torch::Tensor>& params,
                                              const std::unordered_map<TensorId, torch::Tensor>& feeds,
                                              const std::unordered_map<TensorId, LocalValue>& received,
                                              const std::vector<char>& runs, const std::vector<TensorId>& wanted,
                                              bool recomputeCores) const
{
    std::vector<LocalValue> values(g_.tensors.size());
    std::vector<bool> set(g_.tensors.size(), false);
    auto put = [&](TensorId t, torch::Tensor v, TensorLayout l, int k) {
        values[size_t(t)] = {std::move(v), l, k};
        set[size_t(t)] = true;
    };
    for (const auto& [t, v] : constants_) put(t, v, TensorLayout::replicated(), 1);
    for (const auto& [t, v] : feeds) put(t, v, TensorLayout::replicated(), 1);
    for (const auto& [t, v] : params) put(t, v, L_.storage[size_t(t)], L_.producedK[size_t(t)]);
    for (const auto& [t, v] : received) put(t, v.t, v.layout, v.k);

    // A fused chain runs only when this call runs all of it and holds none of its inner values
    // (a stage boundary inside it): otherwise its nodes run one by one.
    std::vector<char> fusedHere(fusions_.size(), 0);
    for (size_t f = 0; f < fusions_.size(); ++f) {
        bool whole = true;
        for (NodeId m : fusions_[f].nodes) {
            whole = whole && (runs.empty() || runs[size_t(m)]);
            for (TensorId o : g_.node(m).outputs) whole = whole && (o == kNoTensor || !set[size_t(o)]);
        }
        fusedHere[f] = whole;
    }
    auto valueOf = [&](const Node& node, TensorId t) -> const LocalValue& {
        if (!set[size_t(t)])
            throw std::runtime_error("node '" + node.name + "' (" + node.opType + "): input '" + g_.tensor(t).name +
                                     "' has no value (unsupported producer or missing feed)");
        return values[size_t(t)];
    };
    // The attention cores run checkpointed here: every node of them in this call, none of their
    // outputs given already. Profiling times each node on its own instead.
    std::vector<char> checkpointed(cores_.size(), 0);
    if (recomputeCores && !profile_)
        for (size_t c = 0; c < cores_.size(); ++c) {
            bool whole = true;
            for (NodeId m : cores_[c].nodes) whole = whole && (runs.empty() || runs[size_t(m)]);
            for (TensorId o : cores_[c].outputs) whole = whole && !set[size_t(o)];
            checkpointed[c] = whole;
        }
    // Region c from its inputs as this call holds them: the same nodes through run() again, on
    // the inputs as the checkpoint hands them (leaves of the rerun in the backward).
    auto runCore = [&](const CoreRegion& r, const Node& at) {
        std::vector<torch::Tensor> in;
        std::vector<LocalValue> how;
        for (TensorId t : r.inputs) {
            how.push_back(valueOf(at, t));
            in.push_back(how.back().t);
        }
        std::vector<torch::Tensor> out = runCheckpointed(
            [this, &r, how](const std::vector<torch::Tensor>& x) {
                std::unordered_map<TensorId, LocalValue> given;
                for (size_t i = 0; i < r.inputs.size(); ++i) given[r.inputs[i]] = {x[i], how[i].layout, how[i].k};
                std::vector<torch::Tensor> made;
                for (LocalValue& v : run({}, {}, given, r.runs, r.outputs)) made.push_back(std::move(v.t));
                return made;
            },
            in);
        for (size_t i = 0; i < r.outputs.size(); ++i) {
            const TensorId t = r.outputs[i];
            const NodeId p = g_.tensor(t).producer;
            const std::vector<TensorId>& made = g_.node(p).outputs;
            for (size_t o = 0; o < made.size(); ++o)
                if (made[o] == t) put(t, out[i], L_.nodes[size_t(p)].outputs[o], L_.producedK[size_t(t)]);
        }
    };
    // Checks an op's result against the plan's local shape and stores it.
    auto store = [&](const Node& node, const OpStrategy& s, size_t o, torch::Tensor v,
                     const std::optional<std::vector<int64_t>>& expect) {
        const TensorId t = node.outputs[o];
        if (expect && v.sizes().vec() != *expect)
            throw std::runtime_error("node '" + node.name + "' (" + node.opType + "): output '" + g_.tensor(t).name +
                                     "' came out " + shapeText(v.sizes().vec()) + " on this rank, the plan expects " +
                                     shapeText(*expect));
        if (dtypeIsFloating(g_.tensor(t).dtype) && v.scalar_type() != torch::kFloat32) v = v.to(torch::kFloat32);
        put(t, std::move(v), s.outputs[o], L_.producedK[size_t(t)]);
    };

    // How node n runs in this call: not at all, alone, or as the last node of a checkpointed
    // core or of a fused chain (the others of which run nothing themselves).
    enum class Runs { No, Alone, Core, Fused };
    auto howRuns = [&](NodeId n) {
        if (!runs.empty() && !runs[size_t(n)]) return Runs::No;
        const Node& node = g_.node(n);
        bool allKnown = !node.outputs.empty();
        for (TensorId o : node.outputs) allKnown = allKnown && (o == kNoTensor || set[size_t(o)]);
        if (allKnown) return Runs::No; // constants folded by the importer
        if (const int c = coreOf_[size_t(n)]; c >= 0 && checkpointed[size_t(c)])
            return n == cores_[size_t(c)].nodes.back() ? Runs::Core : Runs::No;
        if (const int f = fusedIn_[size_t(n)]; f >= 0 && fusedHere[size_t(f)])
            return n == fusions_[size_t(f)].nodes.back() ? Runs::Fused : Runs::No;
        return Runs::Alone;
    };
    auto readBy = [&](NodeId n, Runs how) {
        std::vector<TensorId> r;
        if (how == Runs::Core) r = cores_[size_t(coreOf_[size_t(n)])].inputs;
        else if (how == Runs::Fused)
            for (const FusedGroup::Port& p : fusions_[size_t(fusedIn_[size_t(n)])].inputs) r.push_back(p.tensor);
        else if (how == Runs::Alone)
            for (TensorId t : g_.node(n).inputs)
                if (t != kNoTensor) r.push_back(t);
        return r;
    };
    // Each value is let go after the last node of this call that reads it, unless the caller
    // wants it: autograd holds on its own to what a backward needs, so a micro-batch's forward
    // leaves behind what libtorch saved (what the cost model counts as kept), not every value it
    // made. The outputs a node makes and nothing reads are let go at once.
    // Decided once before any node runs: a node's own outputs are set only by itself, so its
    // decision cannot change while the earlier nodes run.
    std::vector<Runs> plan(g_.nodes.size());
    std::vector<NodeId> lastRead(g_.tensors.size(), kNoNode);
    std::vector<char> keep(g_.tensors.size(), 0);
    for (TensorId t : wanted) keep[size_t(t)] = 1;
    for (NodeId n = 0; n < NodeId(g_.nodes.size()); ++n) {
        plan[size_t(n)] = howRuns(n);
        for (TensorId t : readBy(n, plan[size_t(n)])) lastRead[size_t(t)] = n;
    }
    auto letGo = [&](NodeId n, Runs how) {
        for (TensorId t : readBy(n, how))
            if (lastRead[size_t(t)] == n && !keep[size_t(t)]) values[size_t(t)].t = torch::Tensor();
        for (TensorId o : g_.node(n).outputs)
            if (o != kNoTensor && lastRead[size_t(o)] == kNoNode && !keep[size_t(o)]) values[size_t(o)].t = torch::Tensor();
    };

    for (NodeId n = 0; n < NodeId(g_.nodes.size()); ++n) {
        const Runs how = plan[size_t(n)];
        if (how == Runs::No) continue;
        const Node& node = g_.node(n);
        if (how == Runs::Core) {
            runCore(cores_[size_t(coreOf_[size_t(n)])], node);
            letGo(n, how);
            continue;
        }
        const OpStrategy& s = L_.nodes[size_t(n)];
        // Called only when profiling: off, a step builds none of its arguments.
        auto profile = [&](std::vector<NodeId> covered, std::string fused, const std::vector<torch::Tensor>& in,
                           const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& fn) {
            profile_->push_back({std::move(covered), std::move(fused), timeForwardBackward(fn, in)});
        };
        if (how == Runs::Fused) { // the chain runs at its last node, when all it reads is there
            const FusedGroup& group = fusions_[size_t(fusedIn_[size_t(n)])];
            std::vector<torch::Tensor> in;
            for (const FusedGroup::Port& p : group.inputs) in.push_back(prepareInput(p.node, p.input, valueOf(g_.node(p.node), p.tensor)));
            torch::Tensor out;
            try {
                out = runFusedGroup(group, in);
            } catch (const c10::Error& e) {
                throw std::runtime_error("node '" + node.name + "' (" + node.opType + ", fused " + fusionName(group.kind) +
                                         "): " + e.what_without_backtrace());
            }
            store(node, s, 0, std::move(out), localShape(group.output, s.outputs[0]));
            if (profile_)
                profile(group.nodes, fusionName(group.kind), in,
                        [&group](const std::vector<torch::Tensor>& x) { return std::vector<torch::Tensor>{runFusedGroup(group, x)}; });
            letGo(n, how);
            continue;
        }
        KernelCall call{g_, node, s, {}, {}, L_.tp, tpIndex_};
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorId t = node.inputs[i];
            if (t == kNoTensor) call.in.emplace_back();
            else call.in.push_back(prepareInput(n, i, valueOf(node, t)));
        }
        for (size_t o = 0; o < node.outputs.size(); ++o)
            call.outShapes.push_back(node.outputs[o] == kNoTensor ? std::nullopt
                                                                  : localShape(node.outputs[o], s.outputs[o]));
        std::vector<torch::Tensor> out;
        try {
            out = runKernel(call);
        } catch (const c10::Error& e) {
            throw std::runtime_error("node '" + node.name + "' (" + node.opType + "): " + e.what_without_backtrace());
        }
        for (size_t o = 0; o < node.outputs.size() && o < out.size(); ++o)
            if (node.outputs[o] != kNoTensor && out[o].defined()) store(node, s, o, out[o], call.outShapes[o]);
        if (profile_)
            profile({n}, {}, call.in, [&call](const std::vector<torch::Tensor>& x) {
                KernelCall alone{call.graph, call.node, call.strategy, x, call.outShapes, call.tp, call.tpIndex};
                return runKernel(alone);
            });
        call.in.clear();
        letGo(n, how);
    }
    std::vector<LocalValue> outputs;
    for (TensorId t : wanted) {
        if (!set[size_t(t)]) throw std::runtime_error("tensor '" + g_.tensor(t).name + "' was never computed");
        outputs.push_back(values[size_t(t)]);
    }
    return outputs;
}

} // namespace tapas::runtime
