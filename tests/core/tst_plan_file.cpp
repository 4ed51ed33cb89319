// Plan files: a searched plan survives save/load unchanged (class entries shared by instances,
// per-instance overrides kept), and files of another model, another schema version or corrupt
// ones are refused with the field named.
#include "core/plan/plan_file.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace tapas;

namespace {

Graph gpt(int64_t layers)
{
    return testing::zooGraphOf("gpt", {.layers = layers, .hidden = 2048, .heads = 16, .vocab = 1024, .seq = 256, .batch = 2});
}

struct Saved {
    SearchResult result;
    FoldedGraph folded;
    std::string json;
};

Saved searchAndSave(const Graph& g)
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = *loadClusterSpec("a100x8");
    r.mesh = {2, 4};
    Saved s{*findSearcher("tapas")->search(r), *foldGraph(g), {}};
    s.json = savePlanJson(g, &s.folded, s.result.best.plan, r.cluster, s.result.best.report, {"tapas", "test", s.result.searchSeconds});
    return s;
}

bool samePlans(const ShardingPlan& a, const ShardingPlan& b)
{
    if (a.nodes.size() != b.nodes.size() || a.reshards.size() != b.reshards.size() || !(a.mesh == b.mesh)) return false;
    for (size_t i = 0; i < a.nodes.size(); ++i)
        if (a.nodes[i].name != b.nodes[i].name || a.nodes[i].inputs != b.nodes[i].inputs ||
            a.nodes[i].outputs != b.nodes[i].outputs || a.nodes[i].computeFraction != b.nodes[i].computeFraction)
            return false;
    for (size_t i = 0; i < a.reshards.size(); ++i)
        if (a.reshards[i].tensor != b.reshards[i].tensor || a.reshards[i].forward != b.reshards[i].forward) return false;
    return true;
}

std::string edited(const std::string& text, const std::function<void(nlohmann::json&)>& edit)
{
    nlohmann::json j = nlohmann::json::parse(text);
    edit(j);
    return j.dump();
}

} // namespace

class TstPlanFile : public QObject {
    Q_OBJECT
private slots:
    void plan_round_trips_with_shared_class_entries()
    {
        const Graph g = gpt(4);
        const Saved s = searchAndSave(g);
        Result<PlanDocument> d = loadPlanJson(s.json, g, "rt.tapas.json");
        QVERIFY2(d.ok(), d.error().c_str());
        QVERIFY(samePlans(d->plan, s.result.best.plan));
        QVERIFY(d->sharedClasses >= 1); // the 4 layers are written once
        QCOMPARE(d->overrides, 0);
        QCOMPARE(d->provenance.searcher, std::string("tapas"));
        QCOMPARE(d->cluster.name, std::string("a100x8"));
        QCOMPARE(d->cost.time(), s.result.best.report.total.time());
        QCOMPARE(d->cost.memory(), s.result.best.report.total.memory());
        // Saving the loaded plan again gives the same document.
        const std::string again = savePlanJson(g, &s.folded, d->plan, d->cluster, s.result.best.report, d->provenance);
        QCOMPARE(nlohmann::json::parse(again), nlohmann::json::parse(s.json));
    }

    void per_instance_overrides_survive()
    {
        const Graph g = gpt(4);
        Saved s = searchAndSave(g);
        ShardingPlan changed = s.result.best.plan;
        NodeId victim = kNoNode; // a split node in the second instance of a repeated class
        for (const BlockClass& c : s.folded.classes)
            if (c.repeated())
                for (NodeId n : c.instances[1].nodes)
                    if (victim == kNoNode && s.result.best.plan.nodes[size_t(n)].name != "replicate") victim = n;
        QVERIFY(victim != kNoNode);
        changed.nodes[size_t(victim)] = nodeStrategies(g, victim, 4).front(); // replicate it
        placeCollectives(g, changed);
        QVERIFY(checkPlan(g, changed).ok());
        const std::string text = savePlanJson(g, &s.folded, changed, *loadClusterSpec("a100x8"), s.result.best.report, {});
        Result<PlanDocument> d = loadPlanJson(text, g, "ov.tapas.json");
        QVERIFY2(d.ok(), d.error().c_str());
        QVERIFY(samePlans(d->plan, changed));
        QCOMPARE(d->overrides, 1);
        QCOMPARE(d->plan.nodes[size_t(victim)].name, std::string("replicate"));
    }

    void plan_of_another_model_is_refused()
    {
        const Saved s = searchAndSave(gpt(4));
        const Graph other = gpt(6);
        Result<PlanDocument> d = loadPlanJson(s.json, other, "p.tapas.json");
        QVERIFY(!d.ok());
        QVERIFY2(d.error().find("field 'model.hash'") != std::string::npos && d.error().find("another model") != std::string::npos,
                 d.error().c_str());
    }

    void bad_files_name_the_field()
    {
        const Graph g = gpt(2);
        const Saved s = searchAndSave(g);
        struct Case { std::string text, needle; };
        const std::vector<Case> cases = {
            {s.json.substr(0, s.json.size() / 2), "not valid JSON"},
            {edited(s.json, [](auto& j) { j["version"] = 99; }), "field 'version' is 99"},
            {edited(s.json, [](auto& j) { j["schema"] = "other"; }), "field 'schema'"},
            {edited(s.json, [](auto& j) { j.erase("mesh"); }), "field 'mesh' is missing"},
            {edited(s.json, [](auto& j) { j["classes"][0]["nodes"][0]["outputs"][0] = "Q(7)"; }), "invalid layout"},
            {edited(s.json, [](auto& j) { j["classes"][0]["instances"][0][0] = 999999; }), "names a node the model does not have"},
            {edited(s.json, [](auto& j) { j["classes"].erase(0); }), "gives no strategy for node"},
            {edited(s.json, [](auto& j) { j["cluster"]["devices_per_node"] = -1; }), "field 'devices_per_node'"},
            {edited(s.json, [](auto& j) { j["classes"][0]["nodes"][0]["compute_fraction"] = 2; }), "compute_fraction"},
        };
        for (const Case& c : cases) {
            Result<PlanDocument> d = loadPlanJson(c.text, g, "bad.tapas.json");
            QVERIFY2(!d.ok(), c.needle.c_str());
            QVERIFY2(d.error().find(c.needle) != std::string::npos, d.error().c_str());
            QVERIFY2(d.error().find("bad.tapas.json") != std::string::npos, d.error().c_str());
        }
    }

    // A plan that pads a table (version 3) keeps its padding through the file; a plan that pads
    // nothing is still version 2; a file's padding is checked against the model, naming the tensor.
    void padded_table_round_trips_and_bad_padding_is_refused()
    {
        const Graph g = testing::zooGraphOf("gpt", {.layers = 1, .hidden = 512, .heads = 8, .vocab = 50257, .seq = 64, .batch = 8});
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        const SearchResult res = *findSearcher("tapas")->search(r);
        const TensorId wte = g.findTensor("transformer.wte.weight");
        QVERIFY(res.best.plan.padding == (std::vector<TablePadding>{{wte, 50257, 50264}}));
        const FoldedGraph folded = *foldGraph(g);
        const std::string text = savePlanJson(g, &folded, res.best.plan, r.cluster, res.best.report, {"tapas", "test", 0});
        const nlohmann::json j = nlohmann::json::parse(text);
        QCOMPARE(j["version"].get<int>(), 3);
        QCOMPARE(j["padding"][0]["tensor"].get<std::string>(), std::string("transformer.wte.weight"));
        QCOMPARE(j["padding"][0]["rows"].get<int64_t>(), int64_t(50257));
        QCOMPARE(j["padding"][0]["padded_rows"].get<int64_t>(), int64_t(50264));
        Result<PlanDocument> d = loadPlanJson(text, g, "pad.tapas.json");
        QVERIFY2(d.ok(), d.error().c_str());
        QVERIFY(d->plan.padding == res.best.plan.padding);
        QVERIFY(samePlans(d->plan, res.best.plan));
        // Without the padding (as a version 2 reader would see it) the vocabulary split is refused.
        Result<PlanDocument> stripped = loadPlanJson(edited(text, [](auto& x) { x.erase("padding"); }), g, "pad.tapas.json");
        QVERIFY(!stripped.ok());
        const Saved plain = searchAndSave(gpt(2)); // 1024 rows split 4 ways: nothing padded
        QCOMPARE(nlohmann::json::parse(plain.json)["version"].get<int>(), 2);
        QVERIFY(!nlohmann::json::parse(plain.json).contains("padding"));
        struct Case { std::string text, needle; };
        const std::vector<Case> cases = {
            {edited(text, [](auto& x) { x["padding"][0]["padded_rows"] = 50260; }), "must add rows to 50257 and end at a multiple of tp 8"},
            {edited(text, [](auto& x) { x["padding"][0]["rows"] = 50000; }), "is for 50000 rows, but the model's table has 50257"},
            {edited(text, [](auto& x) { x["padding"][0]["tensor"] = "nope"; }), "field 'padding[0].tensor' names 'nope'"},
            {edited(text, [](auto& x) { x["padding"][0]["padded_rows"] = -3; }), "field 'padding[0].padded_rows'"},
            {edited(text, [](auto& x) { x["padding"] = 7; }), "field 'padding' must be an array"},
        };
        for (const Case& c : cases) {
            Result<PlanDocument> bad = loadPlanJson(c.text, g, "bad.tapas.json");
            QVERIFY2(!bad.ok(), c.needle.c_str());
            QVERIFY2(bad.error().find(c.needle) != std::string::npos, bad.error().c_str());
        }
    }

    // Every number of a plan is read exactly: a 64-bit value is not wrapped through an int (tp =
    // 2^32 + 2 was read as 2 and the plan ran as mesh 1x2), floats must be finite.
    void numeric_fields_are_range_checked_exactly()
    {
        const Graph g = gpt(2);
        const Saved s = searchAndSave(g);
        // nlohmann cannot write 1e400, so the overflowing literal is spliced into the text.
        auto withLiteral = [&](const std::function<void(nlohmann::json&)>& mark, const std::string& literal) {
            std::string t = edited(s.json, mark);
            const std::string placeholder = "\"@LITERAL@\"";
            t.replace(t.find(placeholder), placeholder.size(), literal);
            return t;
        };
        struct Case { std::string text, needle; };
        const std::vector<Case> cases = {
            {edited(s.json, [](auto& j) { j["mesh"]["tp"] = (int64_t(1) << 32) + 2; }), "field 'mesh.tp' is 4294967298"},
            {edited(s.json, [](auto& j) { j["mesh"]["dp"] = (int64_t(1) << 32) + 1; }), "field 'mesh.dp' is 4294967297"},
            {edited(s.json, [](auto& j) { j["mesh"]["tp"] = 0; }), "field 'mesh.tp' is 0"},
            {edited(s.json, [](auto& j) { j["mesh"]["tp"] = -4; }), "field 'mesh.tp' is -4"},
            {edited(s.json, [](auto& j) { j["mesh"]["tp"] = 4.0; }), "field 'mesh.tp' is 4.0"},
            {edited(s.json, [](auto& j) { j["mesh"]["tp"] = "4"; }), "field 'mesh.tp' is \"4\""},
            {edited(s.json, [](auto& j) { j["mesh"] = {{"dp", 1 << 20}, {"tp", 1 << 20}}; }), "field 'mesh' is 1048576x1048576"},
            {edited(s.json, [](auto& j) { j["mesh"]["tp"] = uint64_t(18446744073709551615ull); }), "field 'mesh.tp' is 18446744073709551615"},
            {edited(s.json, [](auto& j) { j["classes"][0]["instances"][0][0] = -1; }), "names a node the model does not have"},
            {edited(s.json, [](auto& j) { j["classes"][0]["instances"][0][0] = uint64_t(1) << 63; }), "names a node the model does not have"},
            {edited(s.json, [](auto& j) { j["provenance"]["search_seconds"] = -1; }), "field 'provenance.search_seconds' is -1"},
            {edited(s.json, [](auto& j) { j["cost"]["tp_comm_s"] = -0.5; }), "field 'cost.tp_comm_s' is -0.5"},
            // A number beyond double's range is refused by the parser, never read as inf.
            {withLiteral([](auto& j) { j["cost"]["compute_s"] = "@LITERAL@"; }, "1e400"), "not valid JSON"},
            {withLiteral([](auto& j) { j["cluster"]["memory_bytes"] = "@LITERAL@"; }, "-1e400"), "not valid JSON"},
            {edited(s.json, [](auto& j) { j["classes"][0]["nodes"][0]["compute_fraction"] = 0; }),
             "compute_fraction' is 0, expected a number in (0, 1]"},
            {edited(s.json, [](auto& j) { j["cluster"]["nodes"] = (int64_t(1) << 32) + 1; }), "field 'nodes' must be a positive integer"},
        };
        for (const Case& c : cases) {
            Result<PlanDocument> d = loadPlanJson(c.text, g, "num.tapas.json");
            QVERIFY2(!d.ok(), c.needle.c_str());
            QVERIFY2(d.error().find(c.needle) != std::string::npos, d.error().c_str());
            QVERIFY2(d.error().find("num.tapas.json") != std::string::npos, d.error().c_str());
        }
        // An override pointing at instance -1 or a fractional position is refused, not read as a huge or rounded index.
        nlohmann::json j = nlohmann::json::parse(s.json);
        j["classes"][0]["overrides"] = nlohmann::json::array({j["classes"][0]["nodes"][0]});
        j["classes"][0]["overrides"][0]["instance"] = -1;
        j["classes"][0]["overrides"][0]["position"] = 0;
        Result<PlanDocument> neg = loadPlanJson(j.dump(), g, "ov.tapas.json");
        QVERIFY(!neg.ok());
        QVERIFY2(neg.error().find("overrides[0].instance' is -1") != std::string::npos, neg.error().c_str());
        j["classes"][0]["overrides"][0]["instance"] = 0;
        j["classes"][0]["overrides"][0]["position"] = 0.5;
        Result<PlanDocument> frac = loadPlanJson(j.dump(), g, "ov.tapas.json");
        QVERIFY(!frac.ok());
        QVERIFY2(frac.error().find("overrides[0].position' is 0.5") != std::string::npos, frac.error().c_str());
    }

    void file_save_and_load()
    {
        const Graph g = gpt(2);
        const Saved s = searchAndSave(g);
        const std::string path = QDir::temp().filePath("tst_plan_file.tapas.json").toStdString();
        QVERIFY(savePlanFile(path, s.json).ok());
        Result<PlanDocument> d = loadPlanFile(path, g);
        QVERIFY2(d.ok(), d.error().c_str());
        QVERIFY(samePlans(d->plan, s.result.best.plan));
        QVERIFY(!loadPlanFile("/nonexistent/x.tapas.json", g).ok());
        std::remove(path.c_str());
    }
};

QTEST_GUILESS_MAIN(TstPlanFile)
#include "tst_plan_file.moc"
