#include "runtime/exec/subgraph_runner.h"

#include "core/onnx/onnx_subgraph.h"
#include "core/ops/shard_helpers.h"
#include "runtime/exec/op_kernels.h"

#include <stdexcept>

namespace tapas::runtime {

namespace {

// A value the importer knows whole (shape arithmetic, small constants and initializers).
bool wholeValue(const Tensor& x)
{
    return x.value && x.value->shape.isFullyKnown() && x.value->size() == x.value->shape.numElementsOr(-1);
}

} // namespace

std::unordered_map<std::string, torch::Tensor> outerValues(const Graph& g, const Node& n,
                                                           const std::vector<torch::Tensor>& in)
{
    std::unordered_map<std::string, torch::Tensor> out;
    for (size_t i = formalInputs(n); i < n.inputs.size() && i < in.size(); ++i)
        if (n.inputs[i] != kNoTensor && in[i].defined()) out[g.tensor(n.inputs[i]).name] = in[i];
    return out;
}

std::vector<torch::Tensor> runSubgraph(const Graph& body, const std::vector<torch::Tensor>& formal,
                                       const std::unordered_map<std::string, torch::Tensor>& outer,
                                       const std::string& owner)
{
    const std::string where = "in the body of '" + owner + "'";
    std::vector<torch::Tensor> values(body.tensors.size());
    for (TensorId t = 0; t < TensorId(body.tensors.size()); ++t) {
        const Tensor& x = body.tensor(t);
        if (x.producer == kNoNode && x.kind == TensorKind::Activation) {
            if (auto it = outer.find(x.name); it != outer.end()) values[size_t(t)] = it->second;
        } else if (wholeValue(x) && (x.value->isInteger() || x.producer == kNoNode ||
                                     body.node(x.producer).opType == "Constant")) {
            values[size_t(t)] = constTensor(*x.value);
        }
    }
    if (formal.size() < body.inputs.size())
        throw std::runtime_error(where + ": the body takes " + std::to_string(body.inputs.size()) + " inputs, " +
                                 std::to_string(formal.size()) + " given");
    for (size_t i = 0; i < body.inputs.size(); ++i) values[size_t(body.inputs[i])] = formal[i];

    for (NodeId n = 0; n < NodeId(body.nodes.size()); ++n) {
        const Node& node = body.node(n);
        bool allKnown = !node.outputs.empty();
        for (TensorId o : node.outputs) allKnown = allKnown && (o == kNoTensor || values[size_t(o)].defined());
        if (allKnown) continue;
        if (const Attribute* v = node.opType == "Constant" ? node.attr("value") : nullptr;
            v && v->tensor.size() != v->tensorElements)
            throw std::runtime_error("node '" + node.name + "' (Constant) " + where + ": its value (" +
                                     std::to_string(v->tensorElements) +
                                     " elements) is not kept by the importer; bodies with large constants are not run yet");
        const OpStrategy whole = replicateStrategy(node);
        KernelCall call{body, node, whole, {}, {}, 1, 0};
        for (TensorId t : node.inputs) {
            if (t != kNoTensor && !values[size_t(t)].defined())
                throw std::runtime_error("node '" + node.name + "' (" + node.opType + ") " + where + ": input '" +
                                         body.tensor(t).name + "' has no value");
            call.in.push_back(t == kNoTensor ? torch::Tensor() : values[size_t(t)]);
        }
        for (TensorId o : node.outputs) {
            const Shape* s = o == kNoTensor ? nullptr : &body.tensor(o).shape;
            call.outShapes.push_back(s && s->isFullyKnown() ? std::optional(s->knownDims()) : std::nullopt);
        }
        std::vector<torch::Tensor> out;
        try {
            out = runKernel(call);
        } catch (const c10::Error& e) {
            throw std::runtime_error("node '" + node.name + "' (" + node.opType + ") " + where + ": " +
                                     e.what_without_backtrace());
        } catch (const std::runtime_error& e) {
            throw std::runtime_error(std::string(e.what()) + " (" + where + ")");
        }
        for (size_t o = 0; o < node.outputs.size() && o < out.size(); ++o) {
            const TensorId t = node.outputs[o];
            if (t == kNoTensor || !out[o].defined()) continue;
            torch::Tensor v = out[o];
            if (dtypeIsFloating(body.tensor(t).dtype) && v.scalar_type() != torch::kFloat32 &&
                v.scalar_type() != torch::kFloat64)
                v = v.to(torch::kFloat32);
            values[size_t(t)] = std::move(v);
        }
    }
    std::vector<torch::Tensor> outputs;
    for (TensorId t : body.outputs) {
        if (!values[size_t(t)].defined())
            throw std::runtime_error(where + ": output '" + body.tensor(t).name + "' was never computed");
        outputs.push_back(values[size_t(t)]);
    }
    return outputs;
}

} // namespace tapas::runtime
