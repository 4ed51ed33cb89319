// MatMul and Gemm: split the rows (batch or m), the columns (n: "column parallel", the weight's
// out-features), or the contraction (k: "row parallel", output partial -> all-reduce).
#include "core/shard/op_sharding.h"
#include "core/shard/shard_families.h"

namespace tapas {

namespace {

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

void registerMatMulSharding(ShardRegistry& r)
{
    r.add("MatMul", matmulStrategies);
    r.add("Gemm", gemmStrategies);
}

} // namespace tapas
