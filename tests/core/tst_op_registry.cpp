// The op registry (core/ops): every op of every family states its shape rule, its cost and its
// sharding (a rule, or why it has none), and the check that walks the registry reports each
// kind of gap when one is planted. The runtime's half (a torch kernel for every op, or why not)
// is tst_kernel_coverage.
#include "core/ops/op_registry.h"
#include "core/ops/shape_fill.h"
#include "op_test_graph.h"

#include <QtTest>

#include <algorithm>

using namespace tapas;
using namespace tapas::testing;

namespace {

void anyShape(ShapeContext&) {}
OpCost anyCost(const Graph&, const Node&) { return {}; }
std::vector<OpStrategy> anyStrategies(const ShardContext&) { return {}; }

bool mentions(const std::vector<std::string>& gaps, const std::string& what)
{
    return std::any_of(gaps.begin(), gaps.end(), [&](const std::string& g) { return g.find(what) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& gaps)
{
    std::string out;
    for (const std::string& g : gaps) out += "\n  " + g;
    return out;
}

// A registry with one complete op in family "planted", plus whatever `plant` adds.
std::vector<std::string> gapsWith(const std::function<void(OpRegistry&)>& plant)
{
    OpRegistry r;
    r.beginFamily("planted");
    r.add({"Complete", anyShape, anyCost, anyStrategies});
    plant(r);
    return checkOpRegistry(r);
}

} // namespace

class TstOpRegistry : public QObject {
    Q_OBJECT
private slots:
    void every_registered_op_has_shape_cost_and_sharding()
    {
        const std::vector<std::string> gaps = checkOpRegistry(OpRegistry::instance());
        QVERIFY2(gaps.empty(), ("gaps in the op registry:" + joined(gaps)).c_str());
    }

    void the_families_are_the_family_files()
    {
        const std::vector<std::string> expected{"matmul", "conv", "resize", "elementwise", "normalization",
                                                "reduce", "shape", "indexing", "generator", "control", "recurrent"};
        QCOMPARE(OpRegistry::instance().families(), expected);
        for (const std::string& family : expected) {
            int ops = 0;
            for (const std::string& op : OpRegistry::instance().opTypes())
                ops += OpRegistry::instance().find(op)->family == family ? 1 : 0;
            QVERIFY2(ops > 0, ("family " + family + " registers no op").c_str());
        }
    }

    void ops_find_their_rules_in_their_family()
    {
        const OpRegistry& r = OpRegistry::instance();
        // Spot checks of the moves: each op's sharding now sits with its shape rule.
        for (auto [op, family] : {std::pair{"MatMul", "matmul"}, {"Resize", "resize"}, {"Gather", "indexing"},
                                  {"Concat", "indexing"}, {"Slice", "indexing"}, {"BatchNormalization", "normalization"},
                                  {"Reshape", "shape"}, {"Expand", "shape"}, {"ReduceMean", "reduce"}}) {
            const OpDef* def = r.find(op);
            QVERIFY2(def, op);
            QCOMPARE(QString::fromStdString(def->family), QString(family));
            QVERIFY2(def->sharding.rule, (std::string(op) + " lost its sharding rule").c_str());
        }
        // Control flow and recurrences run replicated (their bodies and steps whole on every rank)
        // and say so.
        for (auto [op, family] : {std::pair{"If", "control"}, {"Loop", "control"}, {"Scan", "control"},
                                  {"LSTM", "recurrent"}, {"GRU", "recurrent"}, {"RNN", "recurrent"}}) {
            const OpDef* def = r.find(op);
            QVERIFY2(def, op);
            QCOMPARE(QString::fromStdString(def->family), QString(family));
            QVERIFY2(!def->sharding.rule && !def->sharding.replicatedBecause.empty(), op);
        }
        // Shape reads only metadata, so it takes its input in any layout; Size stays replicated.
        QVERIFY(r.find("Shape")->sharding.rule != nullptr);
        QVERIFY(r.find("Size")->sharding.rule == nullptr);
        QVERIFY(!r.find("Size")->sharding.replicatedBecause.empty());
    }

    void check_reports_an_op_without_a_cost()
    {
        const auto gaps = gapsWith([](OpRegistry& r) { r.add({"NoCost", anyShape, {}, anyStrategies}); });
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(mentions(gaps, "op NoCost (family planted): no cost"), joined(gaps).c_str());
    }

    void check_reports_an_op_without_a_shape_rule()
    {
        const auto gaps = gapsWith([](OpRegistry& r) { r.add({"NoShape", {}, anyCost, anyStrategies}); });
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(mentions(gaps, "op NoShape (family planted): no shape rule"), joined(gaps).c_str());
    }

    void check_reports_a_sharding_neither_given_nor_explained()
    {
        const auto gaps = gapsWith([](OpRegistry& r) { r.add({"NoSharding", anyShape, anyCost, Sharding{}}); });
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(mentions(gaps, "op NoSharding (family planted): no sharding rule and no reason"), joined(gaps).c_str());
    }

    void check_reports_a_rule_and_a_reason_together()
    {
        const auto gaps = gapsWith([](OpRegistry& r) {
            Sharding both = anyStrategies;
            both.replicatedBecause = "never split";
            r.add({"Both", anyShape, anyCost, both});
        });
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(mentions(gaps, "op Both (family planted): both a sharding rule and a reason"), joined(gaps).c_str());
    }

    void check_reports_an_op_outside_a_family_and_a_second_registration()
    {
        const auto gaps = gapsWith([](OpRegistry& r) {
            r.add({"Complete", anyShape, anyCost, anyStrategies});
            r.beginFamily({});
            r.add({"Stray", anyShape, anyCost, Sharding::replicated("test")});
        });
        QCOMPARE(gaps.size(), size_t(2));
        QVERIFY2(mentions(gaps, "op Stray (no family): registered outside a family file"), joined(gaps).c_str());
        QVERIFY2(mentions(gaps, "op Complete (again in family 'planted'): registered twice"), joined(gaps).c_str());
    }

    void a_complete_planted_registry_has_no_gaps()
    {
        QVERIFY(gapsWith([](OpRegistry& r) { r.add({"Replicated", anyShape, anyCost, Sharding::replicated("test")}); })
                    .empty());
    }

    // Every sharding rule runs on a plain two-input float node with a known shape and keeps
    // "replicate" first, whatever attributes its op usually has: a rule must not fail on a
    // node it did not expect (a hostile or unusual file).
    void every_sharding_rule_survives_a_plain_node()
    {
        const OpRegistry& r = OpRegistry::instance();
        for (const std::string& op : r.opTypes()) {
            if (!r.find(op)->sharding.rule) continue;
            TestGraph tg;
            const TensorId a = tg.input("a", Shape::of({4, 8, 16}));
            const TensorId b = tg.input("b", Shape::of({4, 8, 16}));
            const TensorId y = tg.op(op, {a, b});
            tg.g.tensor(y).dtype = DType::Float32;
            tg.g.tensor(y).shape = Shape::of({4, 8, 16});
            const std::vector<OpStrategy> s = nodeStrategies(tg.g, tg.g.tensor(y).producer, 2);
            QVERIFY2(!s.empty() && s.front().name == "replicate", op.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TstOpRegistry)
#include "tst_op_registry.moc"
