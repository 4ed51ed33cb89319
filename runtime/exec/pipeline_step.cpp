#include "runtime/exec/pipeline_step.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace tapas::runtime {

namespace {

using torch::Tensor;
using Clock = std::chrono::steady_clock;

// Tags of the messages across the boundary after stage b: one per boundary and direction, so
// each (sender, receiver, tag) stream carries its micro-batches in schedule order (MPI keeps
// that order), however the chunks of a rank interleave.
constexpr int kActivationTag = 1 << 12, kGradientTag = 2 << 12;
constexpr int kMaxDims = 8;

// The layout a stage made tensor t in (its producer's output layout): how it arrives next door.
LocalValue asProduced(const GraphInterpreter& interp, const Graph& g, TensorId t, Tensor x)
{
    const NodeId p = g.tensor(t).producer;
    const ExecLayouts& L = interp.layouts();
    const Node& node = g.node(p);
    for (size_t o = 0; o < node.outputs.size(); ++o)
        if (node.outputs[o] == t) return {std::move(x), L.nodes[size_t(p)].outputs[o], L.producedK[size_t(t)]};
    throw std::runtime_error("tensor '" + g.tensor(t).name + "' is not an output of its producer");
}

class StageRun {
public:
    StageRun(const PipelineStepInput& in, const Graph& g) : in_(in), g_(g)
    {
        const StagePartition& p = *in.partition;
        ranks_ = p.ranks;
        v_ = p.stages / p.ranks;
        if (v_ > 1 && in.microBatches % ranks_ != 0)
            throw std::runtime_error("the interleaved schedule takes micro-batches in groups of pp (" + std::to_string(ranks_) +
                                     "); the plan has " + std::to_string(in.microBatches) +
                                     " (pipeline.micro_batches must be a multiple of pp)");
        for (int c = 0; c < v_; ++c) {
            Chunk k;
            k.stage = c * ranks_ + in.stage;
            k.last = k.stage == p.stages - 1;
            k.runs.assign(g.nodes.size(), 0);
            for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) k.runs[size_t(n)] = p.nodeStage[size_t(n)] == k.stage;
            if (k.stage > 0) k.incoming = &p.crossing[size_t(k.stage - 1)];
            if (!k.last) k.outgoing = &p.crossing[size_t(k.stage)];
            k.recompute = size_t(k.stage) < in.recompute.size() ? in.recompute[size_t(k.stage)] : Recompute::None;
            k.flights.resize(size_t(in.microBatches));
            chunks_.push_back(std::move(k));
        }
        report_ = torch::zeros({}, torch::kFloat32);
    }

    // 1F1B over the micro-batches of every chunk this rank holds. Without interleaving: stage s
    // runs pp - s - 1 forwards ahead, then one forward and one backward in turn, then the rest
    // of the backwards. Interleaved (Narayanan et al., SC'21, Megatron-LM's schedule): the
    // micro-batches go through the chunks in groups of pp, forwards in chunk order and
    // backwards in reverse chunk order, with 2 (pp - rank - 1) + (v - 1) pp forwards ahead.
    PipelineStepResult run()
    {
        const int m = in_.microBatches, total = m * v_;
        const int ahead = v_ == 1 ? ranks_ - in_.stage - 1 : 2 * (ranks_ - in_.stage - 1) + (v_ - 1) * ranks_;
        const int warm = std::min(ahead, total);
        for (int k = 0; k < warm; ++k) forward(k);
        for (int k = 0; k < total - warm; ++k) {
            forward(warm + k);
            backward(k);
        }
        for (int k = total - warm; k < total; ++k) backward(k);
        for (auto& p : pending_) p->wait();
        pending_.clear();
        return {report_, wait_};
    }

private:
    struct Flight {
        std::vector<Tensor> received; // leaves, in incoming order
        std::vector<Tensor> sent;     // in outgoing order
        Tensor loss;
    };
    struct Chunk {
        int stage = 0;
        bool last = false;
        Recompute recompute = Recompute::None;
        std::vector<char> runs;
        const std::vector<TensorId>* incoming = nullptr;
        const std::vector<TensorId>* outgoing = nullptr;
        std::vector<Flight> flights;
    };

    // The k-th forward (or backward) of this rank: which chunk and which micro-batch.
    std::pair<int, int> unit(int k, bool forwardPass) const
    {
        const int group = ranks_ * v_, inGroup = k % group;
        int chunk = inGroup / ranks_;
        if (!forwardPass) chunk = v_ - 1 - chunk;
        return {chunk, (k / group) * ranks_ + inGroup % ranks_};
    }

    void send(const Tensor& x, int toStage, int tag)
    {
        const Tensor data = x.detach().contiguous();
        if (data.dim() > kMaxDims) throw std::runtime_error("pipeline send: a tensor of more than 8 dims");
        Tensor header = torch::zeros({2 + kMaxDims}, torch::kLong);
        int64_t* h = header.data_ptr<int64_t>();
        h[0] = int64_t(data.scalar_type());
        h[1] = data.dim();
        for (int64_t d = 0; d < data.dim(); ++d) h[2 + d] = data.size(d);
        const int peer = in_.partition->rankOf(toStage);
        pending_.push_back(in_.pp->sendAsync(h, size_t(header.nbytes()), peer, tag));
        pending_.push_back(in_.pp->sendAsync(data.data_ptr(), size_t(data.nbytes()), peer, tag));
        kept_.push_back(header);
        kept_.push_back(data);
    }

    Tensor receive(int fromStage, int tag)
    {
        const auto start = Clock::now();
        const int peer = in_.partition->rankOf(fromStage);
        Tensor header = torch::zeros({2 + kMaxDims}, torch::kLong);
        int64_t* h = header.data_ptr<int64_t>();
        in_.pp->recv(h, size_t(header.nbytes()), peer, tag);
        if (h[1] < 0 || h[1] > kMaxDims) throw std::runtime_error("pipeline receive: a corrupt message header");
        const std::vector<int64_t> dims(h + 2, h + 2 + h[1]);
        Tensor x = torch::empty(dims, torch::TensorOptions().dtype(static_cast<torch::ScalarType>(h[0])));
        in_.pp->recv(x.data_ptr(), size_t(x.nbytes()), peer, tag);
        wait_ += std::chrono::duration<double>(Clock::now() - start).count();
        return x;
    }

    void forward(int k)
    {
        const auto [c, j] = unit(k, true);
        Chunk& ch = chunks_[size_t(c)];
        Flight& f = ch.flights[size_t(j)];
        if (ch.incoming)
            for (size_t i = 0; i < ch.incoming->size(); ++i) {
                Tensor x = receive(ch.stage - 1, kActivationTag + ch.stage - 1);
                if (x.is_floating_point()) x.requires_grad_(true);
                f.received.push_back(x);
            }
        if (ch.recompute == Recompute::Full) {
            // Values only: nothing of the stage's inside is kept until the backward.
            torch::NoGradGuard values;
            for (const Tensor& t : stageForward(ch, f, j, true)) send(t, ch.stage + 1, kActivationTag + ch.stage);
            return;
        }
        for (const Tensor& t : stageForward(ch, f, j, true)) {
            send(t, ch.stage + 1, kActivationTag + ch.stage);
            f.sent.push_back(t);
        }
    }

    // The stage's nodes on micro-batch j from what it received: the tensors it sends on (the
    // last stage: none, its loss goes into the flight and, when `report`, into the step's loss).
    std::vector<Tensor> stageForward(const Chunk& ch, Flight& f, int j, bool report)
    {
        std::unordered_map<TensorId, LocalValue> received;
        if (ch.incoming)
            for (size_t i = 0; i < ch.incoming->size(); ++i)
                received[(*ch.incoming)[i]] = asProduced(*in_.interp, g_, (*ch.incoming)[i], f.received[i]);
        const std::vector<TensorId>& wanted = ch.last ? g_.outputs : *ch.outgoing;
        std::vector<LocalValue> values =
            in_.interp->run(*in_.params, in_.feeds(j), received, ch.runs, wanted, ch.recompute == Recompute::Selective);
        std::vector<Tensor> out;
        if (ch.last) {
            for (LocalValue& v : values) v = in_.interp->finalOutput(std::move(v));
            LossParts l = in_.loss(values, j);
            f.loss = l.backward;
            if (report) report_ = report_ + l.report.detach();
            return out;
        }
        for (LocalValue& v : values) out.push_back(std::move(v.t));
        return out;
    }

    void backward(int k)
    {
        const auto [c, j] = unit(k, false);
        Chunk& ch = chunks_[size_t(c)];
        Flight& f = ch.flights[size_t(j)];
        if (ch.recompute == Recompute::Full) f.sent = stageForward(ch, f, j, false); // the forward again, recorded this time
        if (ch.last) {
            if (f.loss.requires_grad()) f.loss.backward();
        } else {
            std::vector<Tensor> roots, grads;
            for (const Tensor& s : f.sent) {
                Tensor gr = receive(ch.stage + 1, kGradientTag + ch.stage);
                if (s.requires_grad() && gr.numel() == s.numel() && gr.numel() > 0) {
                    roots.push_back(s);
                    grads.push_back(gr.reshape(s.sizes()).to(s.scalar_type()));
                }
            }
            if (!roots.empty()) torch::autograd::backward(roots, grads);
        }
        if (ch.stage > 0)
            for (const Tensor& x : f.received) {
                Tensor gr = !x.is_floating_point() ? torch::zeros({0}, torch::kFloat32)
                            : x.grad().defined()   ? x.grad()
                                                   : torch::zeros_like(x);
                if (in_.corruptGradients && gr.numel() > 0) gr = torch::zeros_like(gr);
                send(gr, ch.stage - 1, kGradientTag + ch.stage - 1);
            }
        f = Flight{}; // this micro-batch's activations are no longer needed
    }

    const PipelineStepInput& in_;
    const Graph& g_;
    int ranks_ = 1, v_ = 1; // pipeline ranks, stages per rank
    std::vector<Chunk> chunks_; // this rank's stages, in chain order
    std::vector<std::unique_ptr<PendingCollective>> pending_;
    std::vector<Tensor> kept_; // send buffers, alive until their sends complete
    Tensor report_;
    double wait_ = 0;
};

} // namespace

PipelineStepResult runPipelineStep(const PipelineStepInput& in)
{
    const Graph& g = in.interp->graph();
    if (in.partition->stages > 1 && !in.pp) throw std::runtime_error("pipeline step without a pipeline communicator");
    StageRun r(in, g);
    return r.run();
}

} // namespace tapas::runtime
