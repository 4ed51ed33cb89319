// MatMul, Gemm and Einsum: shape rules, FLOPs (a multiply-add counts 2) and sharding. MatMul
// and Gemm split the rows (batch or m), the columns (n: "column parallel", the weight's
// out-features), or the contraction (k: "row parallel", output partial -> all-reduce).
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <map>

namespace tapas {
namespace {
using namespace ops;

// numpy.matmul: 1-D operands get a 1 prepended (A) / appended (B) which is removed afterwards;
// the batch dims broadcast.
std::optional<Shape> matmulShape(const Shape& a, const Shape& b)
{
    if (!a.rankKnown || !b.rankKnown || a.dims.empty() || b.dims.empty()) return std::nullopt;
    std::vector<Dim> ad = a.dims, bd = b.dims;
    const bool aVec = ad.size() == 1, bVec = bd.size() == 1;
    if (aVec) ad.insert(ad.begin(), Dim::known(1));
    if (bVec) bd.push_back(Dim::known(1));
    Shape ab = Shape::ofDims({ad.begin(), ad.end() - 2});
    Shape bb = Shape::ofDims({bd.begin(), bd.end() - 2});
    Shape out = broadcastShapes({&ab, &bb});
    if (!aVec) out.dims.push_back(ad[ad.size() - 2]);
    if (!bVec) out.dims.push_back(bd.back());
    return out;
}

void matmulRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0) != DType::Undefined ? c.inType(0) : c.inType(1));
    if (auto s = matmulShape(c.inShape(0), c.inShape(1))) c.setOutShape(0, *s);
}

// 2·M·N·K per batch: M·N outputs (batch included) each a K-long dot product.
OpCost matmulCost(const Graph& g, const Node& n)
{
    const Shape& a = shapeOf(g, n.input(0));
    const double k = a.rankKnown && !a.dims.empty() && a.dims.back().isKnown() ? double(a.dims.back().value) : 1.0;
    return costWithFlops(g, n, 2.0 * outElems(g, n) * k);
}

void gemmRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0) != DType::Undefined ? c.inType(0) : c.inType(1));
    const Shape& a = c.inShape(0);
    const Shape& b = c.inShape(1);
    if (a.rank() != 2 || b.rank() != 2) return;
    const bool ta = c.node().attrInt("transA", 0) != 0, tb = c.node().attrInt("transB", 0) != 0;
    c.setOutShape(0, Shape::ofDims({a.dims[ta ? 1 : 0], b.dims[tb ? 0 : 1]}));
}

// 2·M·N·K, plus one add per output for the C (bias) term.
OpCost gemmCost(const Graph& g, const Node& n)
{
    const Shape& a = shapeOf(g, n.input(0));
    double k = 1;
    if (a.rank() == 2) {
        const Dim& kd = a.dims[n.attrInt("transA", 0) ? 0 : 1];
        if (kd.isKnown()) k = double(kd.value);
    }
    const double outs = outElems(g, n);
    return costWithFlops(g, n, 2.0 * outs * k + (n.input(2) != kNoTensor ? outs : 0.0));
}

// "bij,bjk->bik": letters of each operand, and the output's (explicit, or the implicit
// alphabetical list of letters used once). Ellipsis is handled as a block of broadcast dims.
struct EinsumSpec {
    std::vector<std::string> inputs;
    std::string output;
    bool explicitOutput = false;
};

std::optional<EinsumSpec> parseEinsum(std::string eq)
{
    std::string clean;
    for (char ch : eq)
        if (ch != ' ') clean += ch;
    EinsumSpec spec;
    const size_t arrow = clean.find("->");
    std::string lhs = clean.substr(0, arrow);
    if (arrow != std::string::npos) {
        spec.output = clean.substr(arrow + 2);
        spec.explicitOutput = true;
    }
    size_t start = 0;
    while (true) {
        const size_t comma = lhs.find(',', start);
        spec.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return spec;
}

// Maps each letter to its dim; returns the letters' dims, ellipsis dims and the output shape.
struct EinsumDims {
    std::map<char, Dim> letters;
    std::vector<Dim> ellipsis;
    Shape out;
};

std::optional<EinsumDims> einsumDims(const Graph& g, const Node& n)
{
    auto spec = parseEinsum(n.attrString("equation", ""));
    if (!spec || spec->inputs.size() != n.inputs.size()) return std::nullopt;
    EinsumDims r;
    std::map<char, int> uses;
    std::vector<const Shape*> ellShapes;
    std::vector<Shape> ellStore(spec->inputs.size());
    for (size_t i = 0; i < spec->inputs.size(); ++i) {
        const Shape& s = shapeOf(g, n.input(i));
        if (!s.rankKnown) return std::nullopt;
        const std::string& term = spec->inputs[i];
        const size_t ell = term.find("...");
        const std::string pre = term.substr(0, ell);
        const std::string post = ell == std::string::npos ? std::string() : term.substr(ell + 3);
        const size_t named = pre.size() + post.size();
        if (s.dims.size() < named || (ell == std::string::npos && s.dims.size() != named)) return std::nullopt;
        const size_t ellRank = s.dims.size() - named;
        auto bind = [&](char ch, const Dim& d) {
            auto it = r.letters.find(ch);
            r.letters[ch] = it == r.letters.end() ? d : broadcastDim(it->second, d);
            ++uses[ch];
        };
        for (size_t k = 0; k < pre.size(); ++k) bind(pre[k], s.dims[k]);
        for (size_t k = 0; k < post.size(); ++k) bind(post[k], s.dims[pre.size() + ellRank + k]);
        ellStore[i] = Shape::ofDims({s.dims.begin() + long(pre.size()), s.dims.begin() + long(pre.size() + ellRank)});
        ellShapes.push_back(&ellStore[i]);
    }
    r.ellipsis = broadcastShapes(ellShapes).dims;
    std::string outTerm = spec->output;
    if (!spec->explicitOutput) {
        outTerm.clear();
        bool anyEllipsis = false;
        for (const std::string& t : spec->inputs) anyEllipsis = anyEllipsis || t.find("...") != std::string::npos;
        if (anyEllipsis) outTerm = "...";
        for (const auto& [ch, count] : uses)
            if (count == 1) outTerm += ch;
    }
    r.out.rankKnown = true;
    for (size_t k = 0; k < outTerm.size(); ++k) {
        if (outTerm.compare(k, 3, "...") == 0) {
            r.out.dims.insert(r.out.dims.end(), r.ellipsis.begin(), r.ellipsis.end());
            k += 2;
            continue;
        }
        auto it = r.letters.find(outTerm[k]);
        if (it == r.letters.end()) return std::nullopt;
        r.out.dims.push_back(it->second);
    }
    return r;
}

void einsumRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    if (auto d = einsumDims(c.graph(), c.node())) c.setOutShape(0, d->out);
}

// One multiply-add per point of the full index space (all letters), per extra operand.
OpCost einsumCost(const Graph& g, const Node& n)
{
    auto d = einsumDims(g, n);
    if (!d) return costWithFlops(g, n, outElems(g, n));
    double space = 1;
    for (const auto& [ch, dim] : d->letters) space *= dim.isKnown() ? double(dim.value) : 1.0;
    for (const Dim& dim : d->ellipsis) space *= dim.isKnown() ? double(dim.value) : 1.0;
    const double operands = n.inputs.size() > 1 ? double(n.inputs.size() - 1) : 1.0;
    return costWithFlops(g, n, 2.0 * space * operands);
}

using L = TensorLayout;

std::vector<OpStrategy> matmulStrategies(const ShardContext& c)
{
    const int ra = c.inShape(0).rank(), rb = c.inShape(1).rank(), ro = c.outShape(0).rank();
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (ra < 2 || rb < 1 || ro < 1) return out;
    auto make = [&](const char* name, L a, L b, L o) { out.push_back(splitStrategy(c, name, {a, b}, o)); };
    const bool bIsMatrix = rb == 2;
    // Leading (batch) dims of A; B follows when it has them too.
    for (int d = 0; d < ra - 2; ++d) {
        const int od = d + (ro - ra);
        const int bd = d - (ra - rb);
        if (bIsMatrix) make("batch", L::split(d), L::replicated(), L::split(od));
        else if (bd >= 0) make("batch", L::split(d), L::split(bd), L::split(od));
    }
    if (rb == 1) return out;
    make(bIsMatrix && c.isWeight(1) ? "rows" : "m", L::split(ra - 2), L::replicated(), L::split(ro - 2));
    make("column", L::replicated(), L::split(rb - 1), L::split(ro - 1));
    make("row", L::split(ra - 1), L::split(rb - 2), L::partial());
    return out;
}

std::vector<OpStrategy> gemmStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (c.inShape(0).rank() != 2 || c.inShape(1).rank() != 2) return out;
    const bool ta = c.node.attrInt("transA", 0), tb = c.node.attrInt("transB", 0);
    const int aM = ta ? 1 : 0, aK = ta ? 0 : 1, bK = tb ? 1 : 0, bN = tb ? 0 : 1;
    const bool hasC = c.node.input(2) != kNoTensor;
    const int rc = hasC ? c.inShape(2).rank() : 0;
    auto make = [&](const char* name, L a, L b, L cc, L o) { out.push_back(splitStrategy(c, name, {a, b, cc}, o)); };
    // The bias broadcasts over rows: split with the output only where it has that dim.
    const L cRows = rc == 2 ? L::split(0) : L::replicated();
    const L cCols = rc >= 1 && c.inShape(2).dims.back().value > 1 ? L::split(rc - 1) : L::replicated();
    make("rows", L::split(aM), L::replicated(), cRows, L::split(0));
    make("column", L::replicated(), L::split(bN), cCols, L::split(1));
    // Row parallel: the products are partial sums; the bias joins the sum once (partial: whole on
    // one rank, zero on the others), so it is added exactly once when the sum is all-reduced.
    make("row", L::split(aK), L::split(bK), hasC ? L::partial() : L::replicated(), L::partial());
    return out;
}

} // namespace

void registerMatMulOps(OpRegistry& r)
{
    r.add({"MatMul", matmulRule, matmulCost, matmulStrategies});
    r.add({"Gemm", gemmRule, gemmCost, gemmStrategies});
    r.add({"Einsum", einsumRule, einsumCost,
           Sharding::replicated("no rule maps the equation's letters to layouts yet")});
}

} // namespace tapas
