// Cluster specs: presets load (from resources and compiled in, which must agree), meshes are the
// valid dp x tp factorisations, and malformed specs are refused with the field named.
#include "core/cluster/calibration_origin.h"
#include "core/cluster/cluster_spec.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace tapas;

namespace {

const std::string kPresetDir = std::string(TAPAS_SOURCE_DIR) + "/resources/clusters";

std::string readFile(const std::string& p)
{
    std::ifstream in(p);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string validSpec()
{
    return R"({"name":"t","nodes":2,"devices_per_node":4,"peak_flops":{"fp32":1e12,"fp16":2e12,"bf16":2e12},
        "memory_bytes":1e10,"intra_node":{"bandwidth":1e11,"latency":1e-6},
        "inter_node":{"bandwidth":1e10,"latency":1e-5},"efficiency":0.5})";
}

std::string withField(const std::string& path, const nlohmann::json& value, bool erase = false)
{
    nlohmann::json j = nlohmann::json::parse(validSpec());
    nlohmann::json* at = &j;
    std::string p = path;
    for (size_t dot; (dot = p.find('.')) != std::string::npos; p = p.substr(dot + 1)) at = &(*at)[p.substr(0, dot)];
    if (erase) at->erase(p);
    else (*at)[p] = value;
    return j.dump();
}

} // namespace

class TstClusterSpec : public QObject {
    Q_OBJECT
private slots:
    // `tapas bench run` says when a calibrated cluster names another CPU than this machine's,
    // and when it was measured otherwise; a GPU preset or a hand-written file says nothing.
    void a_calibration_names_the_machine_it_was_measured_on()
    {
        ClusterSpec c;
        c.name = "mine";
        c.device = "x86-64 core (MPI rank), AMD EPYC; measured by tapas cluster calibrate 2026-12-06T04:08:25Z: libtorch 1.13.0 fp32 mm";
        QCOMPARE(calibrationOriginNote(c, "AMD EPYC"), std::string()); // no op families: not a calibration
        c.opFamilies["matmul"] = {1e10, 0, 1e-5};
        const std::string same = calibrationOriginNote(c, "AMD EPYC");
        QVERIFY2(same.rfind("note: cluster 'mine' was measured by tapas cluster calibrate 2026-12-06T04:08:25Z on this CPU model", 0) == 0,
                 same.c_str());
        const std::string other = calibrationOriginNote(c, "Intel Xeon");
        QVERIFY2(other.rfind("warning: cluster 'mine' was calibrated on a AMD EPYC and this machine is a Intel Xeon", 0) == 0,
                 other.c_str());
        c.device = "a hand-written CPU";
        QCOMPARE(calibrationOriginNote(c, "Intel Xeon"), std::string());
        const Result<ClusterSpec> preset = loadClusterSpec("cpu-mpi");
        QVERIFY(preset.ok());
        QVERIFY(!calibrationOriginNote(*preset, "Some other CPU").empty());
    }

    void presets_load_by_name_from_directory_and_builtin()
    {
        for (const char* name : {"a100x8", "h100x16", "v100x32", "cpu-mpi"}) {
            Result<ClusterSpec> fromDir = loadClusterSpec(name, kPresetDir);
            QVERIFY2(fromDir.ok(), fromDir.error().c_str());
            Result<ClusterSpec> builtin = loadClusterSpec(name);
            QVERIFY2(builtin.ok(), builtin.error().c_str());
            QCOMPARE(builtin->name, std::string(name));
            QCOMPARE(builtin->deviceCount(), fromDir->deviceCount());
        }
        Result<ClusterSpec> h = loadClusterSpec("h100x16");
        QCOMPARE(h->nodes, 2);
        QCOMPARE(h->devicesPerNode, 8);
        QCOMPARE(h->interNode.bandwidth, 50e9);
        QCOMPARE(h->intraNode.bandwidth, 450e9);
        QCOMPARE(loadClusterSpec("v100x32")->deviceCount(), 32);
        QCOMPARE(loadClusterSpec("cpu-mpi")->deviceCount(), 2);
    }

    void builtin_presets_match_resource_files()
    {
        QCOMPARE(builtinClusterPresets().size(), size_t(5)); // a100x8, cpu-mpi, h100x16, selene-a100x1024, v100x32
        for (const auto& [name, text] : builtinClusterPresets()) {
            const std::string file = readFile(kPresetDir + "/" + name + ".json");
            QVERIFY2(!file.empty(), name.c_str());
            QVERIFY2(nlohmann::json::parse(file) == nlohmann::json::parse(text), name.c_str());
        }
    }

    void spec_round_trips_through_json()
    {
        ClusterSpec a = *loadClusterSpec("v100x32");
        Result<ClusterSpec> b = parseClusterSpec(clusterSpecToJson(a), "rt");
        QVERIFY2(b.ok(), b.error().c_str());
        QCOMPARE(b->peakFp16, a.peakFp16);
        QCOMPARE(b->memoryBytes, a.memoryBytes);
        QCOMPARE(b->interNode.latency, a.interNode.latency);
        // A calibrated spec keeps its per-family rates through the round trip.
        ClusterSpec c = *loadClusterSpec("cpu-mpi");
        c.opFamilies["matmul"] = {3e10, 0, 2e-5};
        c.opFamilies["optimizer"] = {0, 5e9, 1e-5};
        Result<ClusterSpec> d = parseClusterSpec(clusterSpecToJson(c), "rt");
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->opFamilies.size(), c.opFamilies.size());
        QCOMPARE(d->opFamilies.at("matmul").flopRate, 3e10);
        QCOMPARE(d->opFamilies.at("optimizer").byteRate, 5e9);
        QCOMPARE(d->opFamilies.at("optimizer").overhead, 1e-5);
        QVERIFY(loadClusterSpec("a100x8")->opFamilies.empty()); // GPU presets: peak x efficiency
        // ... and matmul's rate by product size.
        c.opFamilies["matmul"].bySize = {{1e5, 2e9}, {1e7, 8e9}, {1e9, 3e10}};
        d = parseClusterSpec(clusterSpecToJson(c), "rt");
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->opFamilies.at("matmul").bySize.size(), size_t(3));
        QCOMPARE(d->opFamilies.at("matmul").bySize[1].unitFlops, 1e7);
        QCOMPARE(d->opFamilies.at("matmul").bySize[2].flopRate, 3e10);
        // ... and a memory-bound family's rate by the bytes a node moves.
        c.opFamilies["elementwise"].byteBySize = {{1e4, 2e10}, {1e6, 1e10}, {1e7, 4e9}};
        d = parseClusterSpec(clusterSpecToJson(c), "rt");
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->opFamilies.at("elementwise").byteBySize.size(), size_t(3));
        QCOMPARE(d->opFamilies.at("elementwise").byteBySize[1].bytes, 1e6);
        QCOMPARE(d->opFamilies.at("elementwise").byteBySize[2].byteRate, 4e9);
        QVERIFY(d->opFamilies.at("matmul").byteBySize.empty());
    }

    // Bytes are interpolated the same way: log(bytes) between measured sizes, the nearest
    // measured size's rate outside them, the one byte rate without a table.
    void byte_rate_by_size_interpolates_in_log_bytes()
    {
        OpFamilyRate r{0, 4e9, 1e-5};
        QCOMPARE(r.byteRateAt(1e3), 4e9);
        r.byteBySize = {{1e4, 2e10}, {1e6, 1e10}, {1e7, 4e9}};
        QCOMPARE(r.byteRateAt(10), 2e10);
        QCOMPARE(r.byteRateAt(1e5), 1.5e10); // halfway in log between 1e4 and 1e6
        QCOMPARE(r.byteRateAt(1e6), 1e10);
        QCOMPARE(r.byteRateAt(1e9), 4e9);
    }

    // The rate by size is interpolated in log(size) between measured sizes and holds at the
    // nearest measured size outside them; without a table, the family's one rate.
    void flop_rate_by_size_interpolates_in_log_size()
    {
        OpFamilyRate r{3e10, 0, 2e-5};
        QCOMPARE(r.flopRateAt(1e3), 3e10);
        r.bySize = {{1e5, 2e9}, {1e7, 8e9}, {1e9, 3e10}};
        QCOMPARE(r.flopRateAt(1e3), 2e9);
        QCOMPARE(r.flopRateAt(1e5), 2e9);
        QCOMPARE(r.flopRateAt(1e6), 5e9); // halfway in log between 1e5 and 1e7
        QCOMPARE(r.flopRateAt(1e7), 8e9);
        QCOMPARE(r.flopRateAt(1e8), 1.9e10);
        QCOMPARE(r.flopRateAt(1e12), 3e10);
    }

    void malformed_specs_name_the_field()
    {
        struct Case { std::string text, needle; };
        const std::vector<Case> cases = {
            {"{not json", "not valid JSON"},
            {"[1,2]", "top level"},
            {withField("devices_per_node", 0), "field 'devices_per_node' must be a positive integer"},
            {withField("nodes", 1.5), "field 'nodes' must be a positive integer"},
            {withField("memory_bytes", nullptr, true), "field 'memory_bytes' is missing"},
            {withField("intra_node.bandwidth", -5), "field 'intra_node.bandwidth' must be positive"},
            {withField("inter_node.latency", -1), "field 'inter_node.latency' must not be negative"},
            {withField("peak_flops.bf16", "fast"), "field 'peak_flops.bf16' must be a number"},
            {withField("efficiency", 1.5), "field 'efficiency' must be in (0, 1]"},
            {withField("inter_node", 3), "field 'inter_node' must be an object"},
            {withField("op_families", 3), "field 'op_families' must be an object"},
            {withField("op_families.matmul", 1e9), "field 'op_families.matmul' must be an object"},
            {withField("op_families.matmul", {{"flop_rate", -1}, {"byte_rate", 0}, {"overhead_s", 1e-5}}),
             "field 'op_families.matmul.flop_rate' must not be negative"},
            {withField("op_families.conv", {{"flop_rate", 1e9}, {"overhead_s", 1e-5}}), "field 'op_families.conv.byte_rate' is missing"},
            {withField("op_families.shape", {{"flop_rate", 0}, {"byte_rate", 0}, {"overhead_s", 0}}),
             "field 'op_families.shape' has no rate and no overhead"},
            {withField("op_families.matmul", {{"flop_rate", 1e9}, {"byte_rate", 0}, {"overhead_s", 1e-5}, {"flop_rate_by_size", 2}}),
             "field 'op_families.matmul.flop_rate_by_size' must be an array"},
            {withField("op_families.matmul", {{"flop_rate", 1e9}, {"byte_rate", 0}, {"overhead_s", 1e-5},
                                              {"flop_rate_by_size", {{{"unit_flops", 1e6}}}}}),
             "field 'op_families.matmul.flop_rate_by_size[0].flop_rate' is missing"},
            {withField("op_families.matmul", {{"flop_rate", 1e9}, {"byte_rate", 0}, {"overhead_s", 1e-5},
                                              {"flop_rate_by_size", {{{"unit_flops", 1e6}, {"flop_rate", 1e9}},
                                                                     {{"unit_flops", 1e5}, {"flop_rate", 2e9}}}}}),
             "field 'op_families.matmul.flop_rate_by_size[1].unit_flops' must be larger than the entry before it"},
            {withField("op_families.elementwise", {{"flop_rate", 0}, {"byte_rate", 1e9}, {"overhead_s", 1e-5}, {"byte_rate_by_size", "x"}}),
             "field 'op_families.elementwise.byte_rate_by_size' must be an array"},
            {withField("op_families.elementwise", {{"flop_rate", 0}, {"byte_rate", 1e9}, {"overhead_s", 1e-5},
                                                   {"byte_rate_by_size", {{{"bytes", 1e6}}}}}),
             "field 'op_families.elementwise.byte_rate_by_size[0].byte_rate' is missing"},
            {withField("op_families.elementwise", {{"flop_rate", 0}, {"byte_rate", 1e9}, {"overhead_s", 1e-5},
                                                   {"byte_rate_by_size", {{{"bytes", 1e6}, {"byte_rate", 1e9}},
                                                                          {{"bytes", 1e6}, {"byte_rate", 2e9}}}}}),
             "field 'op_families.elementwise.byte_rate_by_size[1].bytes' must be larger than the entry before it"},
        };
        for (const Case& c : cases) {
            Result<ClusterSpec> r = parseClusterSpec(c.text, "x.json");
            QVERIFY2(!r.ok(), c.needle.c_str());
            QVERIFY2(r.error().find("cluster 'x.json'") != std::string::npos, r.error().c_str());
            QVERIFY2(r.error().find(c.needle) != std::string::npos, r.error().c_str());
        }
        QVERIFY(parseClusterSpec(validSpec(), "ok").ok());
    }

    // Counts are exact integers (no wrap through an int: 2^32 + 2 nodes was read as 2) and their
    // product stays countable; a float beyond double's range is refused, never read as inf.
    void numbers_are_exact_and_finite()
    {
        auto spliced = [](const std::string& path, const std::string& literal) {
            std::string t = withField(path, "@LITERAL@");
            const std::string placeholder = "\"@LITERAL@\"";
            return t.replace(t.find(placeholder), placeholder.size(), literal);
        };
        struct Case { std::string text, needle; };
        const std::vector<Case> cases = {
            {withField("nodes", (int64_t(1) << 32) + 2), "field 'nodes' must be a positive integer: it is 4294967298"},
            {withField("devices_per_node", uint64_t(1) << 63), "field 'devices_per_node' must be a positive integer: it is 9223372036854775808"},
            {withField("devices_per_node", 8.0), "field 'devices_per_node' must be a positive integer: it is 8.0"},
            {spliced("nodes", "1e400"), "not valid JSON"},
            {spliced("memory_bytes", "1e400"), "not valid JSON"},
            {spliced("peak_flops.fp16", "-1e400"), "not valid JSON"},
            {spliced("nodes", "4e9"), "field 'nodes' must be a positive integer: it is 4000000000.0"},
        };
        for (const Case& c : cases) {
            Result<ClusterSpec> r = parseClusterSpec(c.text, "x.json");
            QVERIFY2(!r.ok(), c.needle.c_str());
            QVERIFY2(r.error().find(c.needle) != std::string::npos, r.error().c_str());
        }
        nlohmann::json big = nlohmann::json::parse(validSpec());
        big["nodes"] = 65536;
        big["devices_per_node"] = 65536; // 2^32 devices: an int device count would wrap to 0
        Result<ClusterSpec> r = parseClusterSpec(big.dump(), "x.json");
        QVERIFY(!r.ok());
        QVERIFY2(r.error().find("65536 x 65536 = 4294967296 devices") != std::string::npos, r.error().c_str());
        QVERIFY(!parseMesh("65536x65536").ok());
        QVERIFY(!parseMesh("4294967298x1").ok());
    }

    void missing_file_and_unknown_preset_are_errors()
    {
        Result<ClusterSpec> f = loadClusterSpec("/nonexistent/c.json");
        QVERIFY(!f.ok());
        QVERIFY(f.error().find("/nonexistent/c.json") != std::string::npos);
        Result<ClusterSpec> p = loadClusterSpec("tpu9000");
        QVERIFY(!p.ok());
        QVERIFY(p.error().find("a100x8") != std::string::npos);
    }

    void meshes_are_factorisations_with_tp_inside_a_node()
    {
        ClusterSpec c = *loadClusterSpec("h100x16");
        std::vector<DeviceMesh> m = enumerateMeshes(c);
        QCOMPARE(m.size(), size_t(4)); // tp 1, 2, 4, 8
        QCOMPARE(m.back().tp, 8);
        QCOMPARE(m.back().dp, 2);
        QCOMPARE(enumerateMeshes(c, true).size(), size_t(5)); // + 1x16
        QVERIFY(!validateMesh(c, {1, 16}));
        QVERIFY(validateMesh(c, {1, 16}, true));
        Status bad = validateMesh(c, {3, 4});
        QVERIFY(!bad);
        QVERIFY2(bad.error.find("3x4") != std::string::npos && bad.error.find("16") != std::string::npos, bad.error.c_str());
    }

    void mesh_text_parses_and_rejects_garbage()
    {
        Result<DeviceMesh> m = parseMesh("2x4");
        QVERIFY(m.ok());
        QCOMPARE(m->dp, 2);
        QCOMPARE(m->tp, 4);
        QCOMPARE(m->toString(), std::string("2x4"));
        // Three degrees are dp x pp x tp (pipeline stages in the middle).
        m = parseMesh("2x4x1");
        QVERIFY(m.ok());
        QCOMPARE(m->dp, 2);
        QCOMPARE(m->pp, 4);
        QCOMPARE(m->tp, 1);
        for (const char* bad : {"", "x4", "2x", "2*4", "0x8", "-1x2", "2x4x1x1", "2x0x1", "ax4"}) QVERIFY2(!parseMesh(bad).ok(), bad);
    }

    void collective_links_follow_the_mesh_axis()
    {
        ClusterSpec c = *loadClusterSpec("h100x16");
        DeviceMesh m{2, 8};
        QCOMPARE(axisLink(c, m, MeshAxis::Tp).bandwidth, c.intraNode.bandwidth);
        QCOMPARE(axisLink(c, m, MeshAxis::Dp).bandwidth, c.interNode.bandwidth);
        ClusterSpec a = *loadClusterSpec("a100x8");
        QCOMPARE(axisLink(a, {2, 4}, MeshAxis::Dp).bandwidth, a.intraNode.bandwidth);
    }
};

QTEST_GUILESS_MAIN(TstClusterSpec)
#include "tst_cluster_spec.moc"
