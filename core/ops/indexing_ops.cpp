// Ops that select, join or pad along axes: Concat, Split, Slice, Gather (+Elements/ND),
// Scatter*, Pad, OneHot, Trilu, CumSum, and the data-dependent NonZero/Compress, whose output
// length stays unknown by nature. Values of small 1-D tensors (shape vectors) are folded
// through Concat/Split/Slice/Gather, symbolic elements included.
// Costs: no FLOPs except CumSum/Trilu (1 per element) and NonZero (1 per input element); Gather
// and Slice read only what they output (an embedding lookup does not read the whole table).
// Sharding: Concat, Split and Slice keep a split of any dim they do not join, cut or slice;
// Gather on an embedding table splits the vocabulary (output partial, masked lookups) or the
// hidden size.
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

namespace tapas {
namespace {
using namespace ops;

OpCost copyCost(const Graph& g, const Node& n) { return costWithFlops(g, n, 0); }

// Reads the selected elements (= output) plus the index inputs.
OpCost selectCost(const Graph& g, const Node& n)
{
    OpCost c = costWithFlops(g, n, 0);
    c.bytesRead = c.bytesWritten;
    for (size_t i = 1; i < n.inputs.size(); ++i) c.bytesRead += tensorBytes(g, n.input(i));
    return c;
}

void concatRule(ShapeContext& c)
{
    DType t = DType::Undefined;
    int rank = -1;
    for (size_t i = 0; i < c.numInputs(); ++i) {
        if (t == DType::Undefined) t = c.inType(i);
        if (rank < 0) rank = c.inShape(i).rank();
    }
    c.setOutType(0, t);
    if (rank < 0) return;
    auto axis = normAxis(c.node().attrInt("axis", 0), rank);
    if (!axis) return;
    Shape out = Shape::ofDims(std::vector<Dim>(size_t(rank), Dim::unknown()));
    Dim sum = Dim::known(0);
    for (size_t i = 0; i < c.numInputs(); ++i) {
        const Shape& s = c.inShape(i);
        if (s.rank() != rank) {
            sum = Dim::unknown();
            continue;
        }
        for (int d = 0; d < rank; ++d)
            if (d != *axis) out.dims[size_t(d)] = unifyDim(out.dims[size_t(d)], s.dims[size_t(d)]);
        sum = addDim(sum, s.dims[size_t(*axis)]);
    }
    out.dims[size_t(*axis)] = sum;
    c.setOutShape(0, out);
    if (rank != 1) return;
    std::vector<SymInt> elems;
    for (size_t i = 0; i < c.numInputs(); ++i) {
        auto e = c.inElements(i);
        if (!e) return;
        elems.insert(elems.end(), e->begin(), e->end());
    }
    c.setOutElements(0, std::move(elems), false, t);
}

void splitRule(ShapeContext& c)
{
    const Shape& x = c.inShape(0);
    const size_t n = c.numOutputs();
    for (size_t i = 0; i < n; ++i) c.setOutType(i, c.inType(0));
    if (!x.rankKnown || n == 0) return;
    auto axis = normAxis(c.node().attrInt("axis", 0), x.rank());
    if (!axis) return;
    const Dim d = x.dims[size_t(*axis)];
    std::vector<Dim> parts;
    auto sizes = intsFromInputOrAttr(c, 1, "split");
    if (sizes && sizes->size() == n) {
        for (int64_t s : *sizes) parts.push_back(dimOf(s));
    } else if (c.hasInput(1) || (c.node().attr("split") && !sizes)) {
        parts.assign(n, Dim::unknown());
    } else if (d.isKnown()) {
        // Equal split; opset 18 lets the last chunk be smaller (ceil-sized chunks).
        const int64_t chunk = (d.value + int64_t(n) - 1) / int64_t(n);
        for (size_t i = 0; i < n; ++i)
            parts.push_back(Dim::known(std::max<int64_t>(0, std::min(chunk, d.value - chunk * int64_t(i)))));
    } else {
        parts.assign(n, divDim(d, Dim::known(int64_t(n))));
    }
    for (size_t i = 0; i < n; ++i) {
        Shape out = x;
        out.dims[size_t(*axis)] = parts[i];
        c.setOutShape(i, out);
    }
    auto elems = c.inElements(0);
    if (!elems || x.rank() != 1) return;
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!parts[i].isKnown() || at + size_t(parts[i].value) > elems->size()) return;
        c.setOutElements(i, {elems->begin() + long(at), elems->begin() + long(at + size_t(parts[i].value))}, false,
                         c.inType(0));
        at += size_t(parts[i].value);
    }
}

// ONNX Slice on one axis of known size: negative starts/ends count from the end, then both are
// clamped ([0,d] for positive steps, [-1,d-1] for negative), INT_MAX meaning "to the end".
int64_t sliceLength(int64_t d, int64_t start, int64_t end, int64_t step)
{
    if (d <= 0) return 0;
    if (start < 0) start += d;
    if (end < 0) end += d;
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, d);
        end = std::clamp<int64_t>(end, 0, d);
        return end > start ? (end - start + step - 1) / step : 0;
    }
    start = std::clamp<int64_t>(start, 0, d - 1);
    end = std::clamp<int64_t>(end, -1, d - 1);
    return start > end ? (start - end + (-step) - 1) / (-step) : 0;
}

std::optional<std::vector<SymInt>> symList(const std::vector<int64_t>& v)
{
    std::vector<SymInt> out;
    for (int64_t x : v) out.push_back(SymInt::of(x));
    return out;
}

std::optional<std::vector<int64_t>> numbers(const std::optional<std::vector<SymInt>>& v)
{
    if (!v) return std::nullopt;
    std::vector<int64_t> out;
    for (const SymInt& s : *v) {
        if (!s.known) return std::nullopt;
        out.push_back(s.value);
    }
    return out;
}

// One sliced axis. Numbers follow ONNX exactly. A symbolic end with start 0 and step 1 (x[:seq]
// on a max-positions buffer) gives the symbol: it assumes the end does not pass the axis, which
// any working model satisfies; a whole-axis slice keeps a symbolic size.
Dim slicedDim(const Dim& d, const SymInt& start, const SymInt& end, int64_t step)
{
    if (step == 0 || step == INT64_MIN) return Dim::unknown();
    if (d.isKnown() && start.known && end.known) return Dim::known(sliceLength(d.value, start.value, end.value, step));
    if (start.known && start.value == 0 && step == 1 && end.isSymbolic()) return end.toDim();
    if (start.known && end.known && !d.isKnown()) {
        const bool whole = (start.value == 0 && end.value >= INT_MAX && step == 1)
                           || (start.value == -1 && end.value <= INT_MIN && step == -1);
        if (whole) return d;
    }
    return Dim::unknown();
}

void sliceRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    const bool fromInputs = c.numInputs() > 1; // opset 10+: starts/ends/axes/steps as inputs
    auto startElems = fromInputs ? c.inElements(1) : symList(c.node().attrInts("starts"));
    auto endElems = fromInputs ? c.inElements(2) : symList(c.node().attrInts("ends"));
    auto starts = numbers(startElems), ends = numbers(endElems);
    const size_t count = startElems ? startElems->size() : endElems ? endElems->size() : 0;
    std::optional<std::vector<int64_t>> axes;
    if (fromInputs ? c.hasInput(3) : c.node().attr("axes") != nullptr) {
        axes = fromInputs ? c.inInts(3) : std::optional(c.node().attrInts("axes"));
    } else if (startElems || endElems) {
        axes = std::vector<int64_t>(count);
        for (size_t i = 0; i < count; ++i) (*axes)[i] = int64_t(i);
    }
    std::optional<std::vector<int64_t>> steps;
    if (fromInputs && c.hasInput(4)) steps = c.inInts(4);
    else if (axes) steps = std::vector<int64_t>(axes->size(), 1);

    Shape out = x;
    if (!axes) {
        c.setOutShape(0, Shape::ofDims(std::vector<Dim>(x.dims.size(), Dim::unknown())));
        return;
    }
    const size_t n = axes->size();
    const bool bounds = startElems && endElems && steps && startElems->size() == n && endElems->size() == n
                        && steps->size() == n;
    for (size_t i = 0; i < n; ++i) {
        auto a = normAxis((*axes)[i], x.rank());
        if (!a) return;
        Dim& d = out.dims[size_t(*a)];
        d = bounds ? slicedDim(d, (*startElems)[i], (*endElems)[i], (*steps)[i]) : Dim::unknown();
    }
    c.setOutShape(0, out);
    const bool known = bounds && starts && ends;
    // A small integer matrix (torch's F.pad export reverses its [dims, 2] pad table this way)
    // keeps its value, so the pads it becomes are known.
    if (const ConstValue* v = c.inValue(0); v && v->isInteger() && known && x.rank() >= 2 && x.isFullyKnown()) {
        std::vector<std::vector<int64_t>> picks;
        for (int64_t d : x.knownDims()) {
            picks.emplace_back();
            for (int64_t k = 0; k < d; ++k) picks.back().push_back(k);
        }
        for (size_t i = 0; i < n; ++i) {
            const int a = *normAxis((*axes)[i], x.rank());
            const int64_t len = int64_t(picks[size_t(a)].size()), step = (*steps)[i];
            if (step == 0 || step == INT64_MIN) return;
            int64_t start = (*starts)[i], end = (*ends)[i];
            if (start < 0) start = start < -len ? 0 : start + len;
            if (end < 0) end = end < -len ? -1 : end + len;
            std::vector<int64_t>& pick = picks[size_t(a)];
            pick.clear();
            if (step > 0) {
                for (int64_t k = std::clamp<int64_t>(start, 0, len); k < std::clamp<int64_t>(end, 0, len); k += step)
                    pick.push_back(k);
            } else {
                for (int64_t k = std::clamp<int64_t>(start, -1, len - 1); k > std::clamp<int64_t>(end, -1, len - 1); k += step)
                    pick.push_back(k);
            }
        }
        const std::vector<int64_t> dims = x.knownDims();
        std::vector<int64_t> values, outDims, at(dims.size(), 0);
        for (const auto& pick : picks) outDims.push_back(int64_t(pick.size()));
        std::vector<size_t> it(dims.size(), 0);
        int64_t total = 1;
        for (int64_t d : outDims) total *= d;
        for (int64_t e = 0; e < total; ++e) {
            int64_t flat = 0;
            for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + picks[k][it[k]];
            values.push_back(v->ints[size_t(flat)]);
            for (size_t k = dims.size(); k-- > 0;) {
                if (++it[k] < picks[k].size()) break;
                it[k] = 0;
            }
        }
        c.setOutValue(0, makeInts(std::move(values), Shape::of(outDims), v->dtype));
        return;
    }
    // Slicing a shape vector (shape[:2], shape[-1:]) keeps its symbolic elements.
    auto elems = c.inElements(0);
    if (!elems || x.rank() != 1 || !known || axes->size() != 1) return;
    const int64_t len = int64_t(elems->size());
    if (len == 0 || (*steps)[0] == 0 || (*steps)[0] == INT64_MIN) return;
    int64_t start = (*starts)[0], end = (*ends)[0];
    const int64_t step = (*steps)[0];
    if (start < 0) start += len;
    if (end < 0) end += len;
    std::vector<SymInt> picked;
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, len);
        end = std::clamp<int64_t>(end, 0, len);
        for (int64_t k = start; k < end; k += step) picked.push_back((*elems)[size_t(k)]);
    } else {
        start = std::clamp<int64_t>(start, 0, len - 1);
        end = std::clamp<int64_t>(end, -1, len - 1);
        for (int64_t k = start; k > end; k += step) picked.push_back((*elems)[size_t(k)]);
    }
    c.setOutElements(0, std::move(picked), false, c.inType(0));
}

void gatherRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& data = c.inShape(0);
    const Shape& idx = c.inShape(1);
    if (!data.rankKnown || !idx.rankKnown) return;
    auto axis = normAxis(c.node().attrInt("axis", 0), data.rank());
    if (!axis) return;
    Shape out = Shape::ofDims({data.dims.begin(), data.dims.begin() + *axis});
    out.dims.insert(out.dims.end(), idx.dims.begin(), idx.dims.end());
    out.dims.insert(out.dims.end(), data.dims.begin() + *axis + 1, data.dims.end());
    c.setOutShape(0, out);
    // Picking dims out of a shape vector: Shape(x)[0] is 'batch'.
    auto elems = c.inElements(0);
    auto indices = c.inInts(1);
    if (!elems || !indices || data.rank() != 1 || idx.rank() > 1) return;
    std::vector<SymInt> picked;
    const int64_t n = int64_t(elems->size());
    for (int64_t i : *indices) {
        if (i < 0) i += n;
        if (i < 0 || i >= n) return;
        picked.push_back((*elems)[size_t(i)]);
    }
    c.setOutElements(0, std::move(picked), idx.rank() == 0, c.inType(0));
}

void gatherNDRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& data = c.inShape(0);
    const Shape& idx = c.inShape(1);
    if (!data.rankKnown || idx.rank() < 1 || !idx.dims.back().isKnown()) return;
    const int64_t batch = c.node().attrInt("batch_dims", 0);
    const int64_t last = idx.dims.back().value;
    if (batch < 0 || last < 0 || batch > data.rank() || last > data.rank() - batch) return;
    Shape out = Shape::ofDims({idx.dims.begin(), idx.dims.end() - 1});
    out.dims.insert(out.dims.end(), data.dims.begin() + batch + last, data.dims.end());
    c.setOutShape(0, out);
}

void padRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    std::optional<std::vector<int64_t>> pads = c.hasInput(1) ? c.inInts(1)
                                               : c.node().attr("pads") ? std::optional(c.node().attrInts("pads"))
                                                                       : std::optional(c.node().attrInts("paddings"));
    std::vector<int> axes;
    if (c.hasInput(3)) {
        auto a = c.inInts(3);
        if (!a) pads.reset();
        else
            for (int64_t v : *a) {
                auto n = normAxis(v, x.rank());
                if (!n) return;
                axes.push_back(*n);
            }
    } else {
        for (int i = 0; i < x.rank(); ++i) axes.push_back(i);
    }
    Shape out = x;
    for (size_t i = 0; i < axes.size(); ++i) {
        Dim& d = out.dims[size_t(axes[i])];
        int64_t total = 0;
        const bool ok = pads && pads->size() == 2 * axes.size()
                        && !__builtin_add_overflow((*pads)[i], (*pads)[i + axes.size()], &total);
        d = ok ? addDim(d, total) : Dim::unknown();
    }
    c.setOutShape(0, out);
}

void oneHotRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(2));
    const Shape& idx = c.inShape(0);
    if (!idx.rankKnown) return;
    auto axis = normAxis(c.node().attrInt("axis", -1), idx.rank() + 1);
    if (!axis) return;
    Dim depth = Dim::unknown();
    if (auto e = c.inElements(1); e && e->size() == 1) depth = (*e)[0].toDim();
    else if (const ConstValue* v = c.inValue(1); v && v->size() == 1) depth = Dim::known(std::max<int64_t>(0, toInt64(v->floatAt(0))));
    Shape out = idx;
    out.dims.insert(out.dims.begin() + *axis, depth);
    c.setOutShape(0, out);
}

void nonZeroRule(ShapeContext& c)
{
    c.setOutType(0, DType::Int64);
    const Shape& x = c.inShape(0);
    // [rank, number of non-zeros]: the second depends on the data.
    if (x.rankKnown) c.setOutShape(0, Shape::ofDims({Dim::known(x.rank()), Dim::unknown()}));
}

void compressRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    const Attribute* axisAttr = c.node().attr("axis");
    if (!axisAttr) {
        c.setOutShape(0, Shape::ofDims({Dim::unknown()}));
        return;
    }
    if (!x.rankKnown) return;
    auto axis = normAxis(axisAttr->i, x.rank());
    if (!axis) return;
    Shape out = x;
    out.dims[size_t(*axis)] = Dim::unknown();
    c.setOutShape(0, out);
}

using L = TensorLayout;

// Split along any dim keeps a split of any dim on every part (along the split axis itself the
// parts are interleaved per device, as Megatron stores its packed QKV weight).
std::vector<OpStrategy> splitStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < c.inShape(0).rank(); ++d) {
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = L::split(d);
        for (auto& o : s.outputs) o = L::split(d);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> concatStrategies(const ShardContext& c)
{
    const int r = c.outShape(0).rank();
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    const int axis = shardAxis(c.node.attrInt("axis", 0), r);
    for (int d = 0; d < r; ++d) {
        if (d == axis) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        for (auto& i : s.inputs) i = L::split(d);
        s.outputs[0] = L::split(d);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

// One of k equal parts of a packed axis (torch's nn.MultiheadAttention slices its packed
// in-projection into q, k and v): with the axis split, every device holds its share of each part
// side by side, as Megatron-LM stores its fused QKV, and takes its share of the part locally. The
// runtime interleaves the producer's split k ways, as for Split.
std::optional<OpStrategy> packedPartSlice(const ShardContext& c, const std::vector<int64_t>& axes)
{
    if (c.tp <= 1 || axes.size() != 1 || c.node.input(1) == kNoTensor || c.node.input(2) == kNoTensor) return std::nullopt;
    const Tensor& starts = c.graph.tensor(c.node.input(1));
    const Tensor& ends = c.graph.tensor(c.node.input(2));
    if (!starts.value || !ends.value || starts.value->ints.size() != 1 || ends.value->ints.size() != 1) return std::nullopt;
    if (c.node.input(4) != kNoTensor) {
        const Tensor& steps = c.graph.tensor(c.node.input(4));
        if (!steps.value || steps.value->ints.size() != 1 || steps.value->ints[0] != 1) return std::nullopt;
    }
    const Shape& x = c.inShape(0);
    const int r = x.rank();
    const int d = shardAxis(axes[0], r);
    if (d < 0 || d >= r || !x.dims[size_t(d)].isKnown()) return std::nullopt;
    const int64_t whole = x.dims[size_t(d)].value;
    int64_t s = starts.value->ints[0], e = std::min(ends.value->ints[0], whole);
    if (s < 0) s += whole;
    if (e < 0) e += whole;
    const int64_t extent = e - s;
    if (s < 0 || extent <= 0 || extent >= whole || whole % extent != 0 || s % extent != 0 || extent % c.tp != 0)
        return std::nullopt;
    OpStrategy p = replicateStrategy(c.node);
    p.name = "packed S(" + std::to_string(d) + ")";
    p.inputs[0] = L::split(d);
    p.outputs[0] = L::split(d);
    p.computeFraction = 1.0 / c.tp;
    return p;
}

std::vector<OpStrategy> sliceStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    std::vector<int64_t> axes = c.node.attrInts("axes");
    if (c.node.input(3) != kNoTensor) {
        const Tensor& a = c.graph.tensor(c.node.input(3));
        if (!a.value) return {replicateStrategy(c.node)};
        axes = a.value->ints;
    } else if (c.node.input(1) != kNoTensor && axes.empty()) {
        for (int d = 0; d < r; ++d) axes.push_back(d); // no axes input: every dim may be sliced
    }
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (std::optional<OpStrategy> packed = packedPartSlice(c, axes)) out.push_back(std::move(*packed));
    for (int d = 0; d < r; ++d) {
        bool sliced = false;
        for (int64_t a : axes) sliced |= shardAxis(a, r) == d;
        if (sliced) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = L::split(d);
        s.outputs[0] = L::split(d);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> gatherStrategies(const ShardContext& c)
{
    const int rd = c.inShape(0).rank(), ri = c.inShape(1).rank(), ro = c.outShape(0).rank();
    const int axis = shardAxis(c.node.attrInt("axis", 0), rd);
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    auto make = [&](std::string name, L data, L idx, L o) {
        out.push_back(splitStrategy(c, std::move(name), {data, idx}, o));
    };
    if (c.isWeight(0) && rd == 2 && axis == 0) // embedding table [vocab, hidden]
        make("vocab", L::split(0), L::replicated(), L::partial());
    for (int d = 0; d < rd; ++d)
        if (d != axis) make(d == rd - 1 && c.isWeight(0) ? "hidden" : "S(" + std::to_string(d) + ")", L::split(d),
                            L::replicated(), L::split(d < axis ? d : d + ri - 1));
    for (int j = 0; j < ri && ro > 0; ++j) make("indices S(" + std::to_string(j) + ")", L::replicated(), L::split(j), L::split(axis + j));
    return out;
}

} // namespace

void registerIndexingOps(OpRegistry& r)
{
    r.add({"Concat", concatRule, copyCost, concatStrategies});
    r.add({"Split", splitRule, copyCost, splitStrategies});
    r.add({"Slice", sliceRule, selectCost, sliceStrategies});
    r.add({"Gather", gatherRule, selectCost, gatherStrategies});
    const Sharding indexed = Sharding::replicated("indices address the whole tensor; no rule for a split of it yet");
    r.add({"GatherElements", [](ShapeContext& c) {
               c.setOutType(0, c.inType(0));
               c.setOutShape(0, c.inShape(1));
           }, selectCost, indexed});
    r.add({"GatherND", gatherNDRule, selectCost, indexed});
    addAll(r, {"ScatterElements", "Scatter", "ScatterND", "ReverseSequence"}, sameAsInput0, copyCost, indexed);
    r.add({"Pad", padRule, copyCost, Sharding::replicated("no rule for padded dims yet")});
    r.add({"OneHot", oneHotRule, copyCost, indexed});
    addAll(r, {"Trilu", "CumSum"}, sameAsInput0, perOutputFlops(1),
           Sharding::replicated("works along whole rows or axes; no rule for which dims may split yet"));
    const Sharding dataDependent = Sharding::replicated("its output length depends on the data");
    r.add({"NonZero", nonZeroRule, perInputFlops(1), dataDependent});
    r.add({"Compress", compressRule, selectCost, dataDependent});
}

} // namespace tapas
