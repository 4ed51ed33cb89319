// Convolutions and their companions: split the batch, the output channels (weight dim 0), or
// the input channels (weight dim 1, output partial). Pooling, BatchNorm and Resize follow a
// batch or channel split.
#include "core/shard/op_sharding.h"
#include "core/shard/shard_families.h"

namespace tapas {

namespace {

using L = TensorLayout;

std::vector<OpStrategy> convStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (c.inShape(0).rank() < 3) return out;
    const bool hasBias = c.node.input(2) != kNoTensor;
    // ConvTranspose stores its weight as [in, out/group, k...].
    const bool transposed = c.node.opType == "ConvTranspose";
    const int wOut = transposed ? 1 : 0, wIn = transposed ? 0 : 1;
    auto make = [&](const char* name, L x, L w, L b, L o) { out.push_back(splitStrategy(c, name, {x, w, b}, o)); };
    make("batch", L::split(0), L::replicated(), L::replicated(), L::split(0));
    if (c.node.attrInt("group", 1) == 1) {
        make("out-channels", L::replicated(), L::split(wOut), L::split(0), L::split(1));
        // Partial sums over the input channels; a bias joins the sum once (partial layout).
        make("in-channels", L::split(1), L::split(wIn), hasBias ? L::partial() : L::replicated(), L::partial());
    } else {
        // Depthwise/grouped: channels split together with their groups.
        if (!transposed) make("channels", L::split(1), L::split(0), L::split(0), L::split(1));
    }
    return out;
}

// Batch or channel split passed straight through; per-channel parameters follow the channels.
std::vector<OpStrategy> channelwiseStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (c.inShape(0).rank() < 2) return out;
    for (int d : {0, 1}) {
        OpStrategy s = replicateStrategy(c.node);
        s.name = d == 0 ? "batch" : "channels";
        s.inputs[0] = L::split(d);
        for (size_t i = 1; i < s.inputs.size(); ++i)
            if (d == 1 && c.inShape(i).rank() == 1 && !c.isMeta(i)) s.inputs[i] = L::split(0);
        for (size_t o = 0; o < s.outputs.size(); ++o)
            s.outputs[o] = o == 0 ? L::split(d) : (d == 1 ? L::split(0) : L::replicated());
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace

void registerConvSharding(ShardRegistry& r)
{
    r.add("Conv", convStrategies);
    r.add("ConvTranspose", convStrategies);
    for (const char* op : {"BatchNormalization", "InstanceNormalization", "MaxPool", "AveragePool", "GlobalAveragePool",
                           "GlobalMaxPool", "Resize", "Upsample", "LRN"})
        r.add(op, channelwiseStrategies);
}

} // namespace tapas
