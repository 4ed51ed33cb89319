#include "core/ops/worker_support.h"

#include "core/onnx/onnx_subgraph.h"
#include "core/ops/op_registry.h"

#include <unordered_map>

namespace tapas {

const std::map<std::string, std::string>& opsTheWorkerCannotRun()
{
    static const std::map<std::string, std::string> table = [] {
        std::map<std::string, std::string> t;
        auto add = [&t](std::initializer_list<const char*> ops, const char* why) {
            for (const char* op : ops) t.emplace(op, why);
        };
        const char* noKernel = "no torch kernel for it yet";
        add({"LpPool", "GlobalLpPool"}, "no torch kernel for Lp pooling yet");
        add({"Mod", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Round", "ThresholdedRelu",
             "Shrink", "Selu", "FastGelu", "BiasGelu", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
             "Atanh", "Softsign", "Celu", "QuickGelu", "Mish", "IsNaN", "IsInf", "CastLike"},
            noKernel);
        add({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "EyeLike"}, noKernel);
        add({"GatherND", "Scatter", "ScatterND", "ReverseSequence", "OneHot", "CumSum", "NonZero", "Compress"}, noKernel);
        add({"GroupNormalization", "MeanVarianceNormalization", "LRN", "Hardmax",
             "LpNormalization", "SimplifiedLayerNormalization", "SkipLayerNormalization"},
            noKernel);
        add({"ReduceL1", "ReduceLogSum", "ArgMax", "ArgMin"}, noKernel);
        add({"Scan"}, "no torch kernel for Scan's sliced inputs and stacked outputs yet (If and Loop run)");
        return t;
    }();
    return table;
}

namespace {

// Walks g and, depth first, the bodies of its control-flow nodes: an op the worker cannot run
// inside a branch stops the run as surely as one in the main graph.
void collectGaps(const Graph& g, std::vector<WorkerGap>& gaps, std::unordered_map<std::string, size_t>& index)
{
    const OpRegistry& ops = OpRegistry::instance();
    for (const Node& n : g.nodes) {
        std::string why;
        const std::string key = n.domain.empty() || n.domain == "ai.onnx" ? n.opType : n.domain + "::" + n.opType;
        if (key != n.opType) {
            why = "ops of domain '" + n.domain + "' are not run by the executor";
        } else if (!ops.find(n.opType)) {
            why = "an op the executor does not know";
        } else if (auto it = opsTheWorkerCannotRun().find(n.opType); it != opsTheWorkerCannotRun().end()) {
            why = it->second;
        }
        if (!why.empty()) {
            auto [it, added] = index.emplace(key, gaps.size());
            if (added) gaps.push_back({key, why, 0, n.name});
            ++gaps[it->second].nodes;
        }
        for (const auto& body : subgraphsOf(n)) collectGaps(*body, gaps, index);
    }
}

} // namespace

std::vector<WorkerGap> workerGaps(const Graph& g)
{
    std::vector<WorkerGap> gaps;
    std::unordered_map<std::string, size_t> index;
    collectGaps(g, gaps, index);
    return gaps;
}

Status checkWorkerRuns(const Graph& g, const std::string& modelFile)
{
    const std::vector<WorkerGap> gaps = workerGaps(g);
    if (gaps.empty()) return Status::success();
    return Status::failure("model '" + modelFile + "' cannot run on tapas-worker, which has no kernel for " +
                           describeWorkerSupport(gaps).substr(4)); // without the "no: "
}

std::string describeWorkerSupport(const std::vector<WorkerGap>& gaps)
{
    if (gaps.empty()) return "yes";
    std::string out = "no: ";
    for (size_t i = 0; i < gaps.size(); ++i) {
        const WorkerGap& gap = gaps[i];
        out += (i ? "; " : "") + gap.opType + " (" + std::to_string(gap.nodes) + (gap.nodes == 1 ? " node" : " nodes") +
               ", first '" + gap.firstNode + "'): " + gap.why;
    }
    return out;
}

} // namespace tapas
