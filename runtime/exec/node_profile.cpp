#include "runtime/exec/node_profile.h"

#include "core/util/median.h"
#include "runtime/protocol/durable_file.h"

#include <nlohmann/json.hpp>

namespace tapas::runtime {

double timeForwardBackward(const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& fn,
                           const std::vector<torch::Tensor>& in, int reps)
{
    std::vector<double> times;
    for (int i = 0; i <= reps; ++i) {
        std::vector<torch::Tensor> copies;
        for (const torch::Tensor& x : in)
            copies.push_back(x.defined() ? x.detach().clone().requires_grad_(x.requires_grad()) : x);
        const double t0 = threadCpuSeconds();
        std::vector<torch::Tensor> outs = fn(copies), seeded, seeds;
        for (const torch::Tensor& o : outs)
            if (o.defined() && o.requires_grad()) {
                seeded.push_back(o);
                seeds.push_back(torch::ones_like(o));
            }
        if (!seeded.empty()) torch::autograd::backward(seeded, seeds);
        const double t = threadCpuSeconds() - t0;
        if (i > 0) times.push_back(t); // the first run warms caches and the allocator
    }
    return median(std::move(times), EvenMiddle::Upper);
}

Status writeNodeProfile(const std::string& path, const Graph& g, int rank, const std::vector<NodeTiming>& timings)
{
    nlohmann::json nodes = nlohmann::json::array();
    for (const NodeTiming& t : timings) {
        nlohmann::json names = nlohmann::json::array(), ops = nlohmann::json::array();
        for (NodeId n : t.nodes) {
            names.push_back(g.node(n).name);
            ops.push_back(g.node(n).opType);
        }
        nodes.push_back({{"nodes", names}, {"ops", ops}, {"fused", t.fused},
                         {"isolated_forward_backward_cpu_s", t.isolated}});
    }
    const nlohmann::json j{{"rank", rank}, {"nodes", nodes}};
    const std::string text = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    protocol::DurableFile f(path);
    f.write(text.data(), text.size());
    return f.finish();
}

} // namespace tapas::runtime
