#include "runtime/exec/pipeline_step.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace tapas::runtime {

namespace {

using torch::Tensor;
using Clock = std::chrono::steady_clock;

constexpr int kActivationTag = 11, kGradientTag = 12;
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
        last_ = in.stage == p.stages - 1;
        runs_.assign(g.nodes.size(), 0);
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) runs_[size_t(n)] = p.nodeStage[size_t(n)] == in.stage;
        if (in.stage > 0) incoming_ = &p.crossing[size_t(in.stage - 1)];
        if (!last_) outgoing_ = &p.crossing[size_t(in.stage)];
        flights_.resize(size_t(in.microBatches));
        report_ = torch::zeros({}, torch::kFloat32);
    }

    PipelineStepResult run()
    {
        const int m = in_.microBatches;
        const int warm = std::min(in_.partition->stages - in_.stage - 1, m);
        for (int j = 0; j < warm; ++j) forward(j);
        for (int j = 0; j < m - warm; ++j) {
            forward(warm + j);
            backward(j);
        }
        for (int j = m - warm; j < m; ++j) backward(j);
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

    void send(const Tensor& x, int tag)
    {
        const Tensor data = x.detach().contiguous();
        if (data.dim() > kMaxDims) throw std::runtime_error("pipeline send: a tensor of more than 8 dims");
        Tensor header = torch::zeros({2 + kMaxDims}, torch::kLong);
        int64_t* h = header.data_ptr<int64_t>();
        h[0] = int64_t(data.scalar_type());
        h[1] = data.dim();
        for (int64_t d = 0; d < data.dim(); ++d) h[2 + d] = data.size(d);
        const int peer = tag == kActivationTag ? in_.stage + 1 : in_.stage - 1;
        pending_.push_back(in_.pp->sendAsync(h, size_t(header.nbytes()), peer, tag));
        pending_.push_back(in_.pp->sendAsync(data.data_ptr(), size_t(data.nbytes()), peer, tag));
        kept_.push_back(header);
        kept_.push_back(data);
    }

    Tensor receive(int tag)
    {
        const auto start = Clock::now();
        const int peer = tag == kActivationTag ? in_.stage - 1 : in_.stage + 1;
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

    void forward(int j)
    {
        Flight& f = flights_[size_t(j)];
        if (incoming_)
            for (size_t i = 0; i < incoming_->size(); ++i) {
                Tensor x = receive(kActivationTag);
                if (x.is_floating_point()) x.requires_grad_(true);
                f.received.push_back(x);
            }
        if (in_.recompute) {
            // Values only: nothing of the stage's inside is kept until the backward.
            torch::NoGradGuard values;
            const std::vector<Tensor> out = stageForward(f, j, true);
            for (const Tensor& t : out) send(t, kActivationTag);
            return;
        }
        for (const Tensor& t : stageForward(f, j, true)) {
            send(t, kActivationTag);
            f.sent.push_back(t);
        }
    }

    // The stage's nodes on micro-batch j from what it received: the tensors it sends on (the
    // last stage: none, its loss goes into the flight and, when `report`, into the step's loss).
    std::vector<Tensor> stageForward(Flight& f, int j, bool report)
    {
        std::unordered_map<TensorId, LocalValue> received;
        if (incoming_)
            for (size_t i = 0; i < incoming_->size(); ++i)
                received[(*incoming_)[i]] = asProduced(*in_.interp, g_, (*incoming_)[i], f.received[i]);
        const std::vector<TensorId>& wanted = last_ ? g_.outputs : *outgoing_;
        std::vector<LocalValue> values = in_.interp->run(*in_.params, in_.feeds(j), received, runs_, wanted);
        std::vector<Tensor> out;
        if (last_) {
            for (LocalValue& v : values) v = in_.interp->finalOutput(std::move(v));
            LossParts l = in_.loss(values, j);
            f.loss = l.backward;
            if (report) report_ = report_ + l.report.detach();
            return out;
        }
        for (LocalValue& v : values) out.push_back(std::move(v.t));
        return out;
    }

    void backward(int j)
    {
        Flight& f = flights_[size_t(j)];
        if (in_.recompute) f.sent = stageForward(f, j, false); // the forward again, recorded this time
        if (last_) {
            if (f.loss.requires_grad()) f.loss.backward();
        } else {
            std::vector<Tensor> roots, grads;
            for (const Tensor& s : f.sent) {
                Tensor gr = receive(kGradientTag);
                if (s.requires_grad() && gr.numel() == s.numel() && gr.numel() > 0) {
                    roots.push_back(s);
                    grads.push_back(gr.reshape(s.sizes()).to(s.scalar_type()));
                }
            }
            if (!roots.empty()) torch::autograd::backward(roots, grads);
        }
        for (const Tensor& x : f.received) {
            Tensor gr = !x.is_floating_point() ? torch::zeros({0}, torch::kFloat32)
                        : x.grad().defined()   ? x.grad()
                                               : torch::zeros_like(x);
            if (in_.corruptGradients && gr.numel() > 0) gr = torch::zeros_like(gr);
            send(gr, kGradientTag);
        }
        f = Flight{}; // this micro-batch's activations are no longer needed
    }

    const PipelineStepInput& in_;
    const Graph& g_;
    bool last_ = true;
    std::vector<char> runs_;
    const std::vector<TensorId>* incoming_ = nullptr;
    const std::vector<TensorId>* outgoing_ = nullptr;
    std::vector<Flight> flights_;
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
