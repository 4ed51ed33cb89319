#include "core/onnx/onnx_attribute_check.h"

#include "core/onnx/onnx_tensors.h"

#include <set>
#include <string_view>

namespace tapas::onnximport {

namespace {

// Ops whose shape inference reads kernel_shape/strides/dilations/pads/group.
const std::set<std::string_view>& windowedOps()
{
    static const std::set<std::string_view> ops = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv",
                                                   "MaxPool", "AveragePool", "LpPool", "MaxUnpool",
                                                   "MaxRoiPool", "Col2Im", "DeformConv"};
    return ops;
}

std::string nodeLabel(const onnx::NodeProto& n, int index)
{
    return "node '" + (n.name().empty() ? "#" + std::to_string(index) : n.name()) + "' (" + n.op_type() + ")";
}

std::string listOf(const onnx::AttributeProto& a)
{
    std::string s;
    for (int64_t v : a.ints()) s += (s.empty() ? "" : ",") + std::to_string(v);
    return "[" + s + "]";
}

Status checkNode(const onnx::NodeProto& n, int index)
{
    const bool windowed = n.domain().empty() || n.domain() == "ai.onnx" ? windowedOps().count(n.op_type()) > 0 : false;
    int kernelRank = -1;
    for (const auto& a : n.attribute())
        if (windowed && a.name() == "kernel_shape") kernelRank = a.ints_size();
    auto bad = [&](const onnx::AttributeProto& a, const std::string& allowed) {
        const std::string value = a.type() == onnx::AttributeProto::INT ? std::to_string(a.i()) : listOf(a);
        return Status::failure(nodeLabel(n, index) + ": attribute '" + a.name() + "' is " + value + "; " + allowed);
    };
    for (const auto& a : n.attribute()) {
        const std::string& name = a.name();
        if (windowed) {
            if (name == "strides" || name == "dilations" || name == "kernel_shape") {
                for (int64_t v : a.ints())
                    if (v < 1 || v > kMaxPlausibleDim) return bad(a, "each value must be at least 1");
                if (name != "kernel_shape" && kernelRank >= 0 && a.ints_size() != kernelRank)
                    return bad(a, "it must have one value per kernel dim (" + std::to_string(kernelRank) + ")");
            } else if (name == "pads") {
                for (int64_t v : a.ints())
                    if (v < 0 || v > kMaxPlausibleDim) return bad(a, "pads must not be negative");
                if (kernelRank >= 0 && a.ints_size() != 2 * kernelRank)
                    return bad(a, "it must have two values per kernel dim (" + std::to_string(2 * kernelRank) + ")");
            } else if (name == "output_padding" || name == "output_shape") {
                for (int64_t v : a.ints())
                    if (v < 0 || v > kMaxPlausibleDim) return bad(a, "values must not be negative");
            } else if (name == "group" && (a.i() < 1 || a.i() > kMaxPlausibleDim)) {
                return bad(a, "it must be at least 1");
            }
        }
        if (name == "blocksize" && (a.i() < 1 || a.i() > kMaxPlausibleDim)) return bad(a, "it must be at least 1");
        if ((n.op_type() == "LRN" && name == "size") && (a.i() < 1 || a.i() > kMaxPlausibleDim))
            return bad(a, "it must be at least 1");
    }
    return Status::success();
}

Status checkGraph(const onnx::GraphProto& g, bool main)
{
    if (main) {
        for (const auto& in : g.input()) {
            if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) continue;
            const auto& dims = in.type().tensor_type().shape().dim();
            for (int i = 0; i < dims.size(); ++i) {
                if (!dims[i].has_dim_value()) continue;
                const int64_t v = dims[i].dim_value();
                if (v < 0 || v > kMaxPlausibleDim)
                    return Status::failure("graph input '" + in.name() + "' has dim " + std::to_string(i) + " = " +
                                           std::to_string(v) + "; a dim must be between 0 and 2^40");
            }
        }
    }
    for (int i = 0; i < g.node_size(); ++i) {
        const onnx::NodeProto& n = g.node(i);
        if (Status s = checkNode(n, i); !s) return s;
        for (const auto& a : n.attribute()) {
            if (a.has_g())
                if (Status s = checkGraph(a.g(), false); !s) return s;
            for (const auto& sub : a.graphs())
                if (Status s = checkGraph(sub, false); !s) return s;
        }
    }
    return Status::success();
}

} // namespace

Status checkAttributeValues(const onnx::GraphProto& g)
{
    return checkGraph(g, true);
}

} // namespace tapas::onnximport
