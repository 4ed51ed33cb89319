// LSTM, GRU and RNN (ONNX semantics): shape rule and cost; they run replicated.
// Shapes (layout 0; layout 1 puts batch first): X [seq, batch, input], W [dirs, gates*H, input],
// R [dirs, gates*H, H]; Y [seq, dirs, batch, H], Y_h and Y_c [dirs, batch, H]. Gates: LSTM 4,
// GRU 3, RNN 1. FLOPs per step, direction and sample: the two gate products, 2*gates*H*(input+H),
// plus about 4 per gate and unit for the activations and the state update.
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"

namespace tapas {
namespace {
using namespace ops;

int gatesOf(const std::string& op) { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }

int directionsOf(const Node& n) { return n.attrString("direction", "forward") == "bidirectional" ? 2 : 1; }

void recurrentRule(ShapeContext& c)
{
    const DType t = c.inType(0);
    for (size_t o = 0; o < c.numOutputs(); ++o) c.setOutType(o, t);
    const Shape& x = c.inShape(0);
    const int64_t h = c.node().attrInt("hidden_size", 0);
    if (x.rank() != 3 || h <= 0) return;
    const bool batchFirst = c.node().attrInt("layout", 0) == 1;
    const Dim seq = x.dims[batchFirst ? 1 : 0], batch = x.dims[batchFirst ? 0 : 1];
    const Dim dirs = Dim::known(directionsOf(c.node())), hid = Dim::known(h);
    c.setOutShape(0, batchFirst ? Shape::ofDims({batch, seq, dirs, hid}) : Shape::ofDims({seq, dirs, batch, hid}));
    const Shape state = batchFirst ? Shape::ofDims({batch, dirs, hid}) : Shape::ofDims({dirs, batch, hid});
    for (size_t o = 1; o < c.numOutputs(); ++o) c.setOutShape(o, state);
}

OpCost recurrentCost(const Graph& g, const Node& n)
{
    const Shape& x = shapeOf(g, n.input(0));
    const double h = double(std::max<int64_t>(n.attrInt("hidden_size", 0), 0));
    const double gates = gatesOf(n.opType);
    double input = 1, steps = elementCount(x); // seq * batch * input
    if (x.rank() == 3 && x.dims[2].isKnown() && x.dims[2].value > 0) {
        input = double(x.dims[2].value);
        steps /= input;
    }
    return costWithFlops(g, n, steps * directionsOf(n) * (2 * gates * h * (input + h) + 4 * gates * h));
}

} // namespace

void registerRecurrentOps(OpRegistry& r)
{
    addAll(r, {"LSTM", "GRU", "RNN"}, recurrentRule, recurrentCost,
           Sharding::replicated("the hidden state feeds every step's gates: splitting the units would gather the "
                                "state at each step; no rule for that yet"));
}

} // namespace tapas
