// Writes the fuzz seed corpus: small valid models that reach every importer stage (weights,
// subgraphs, unknown ops, unsorted nodes, external data, shape arithmetic) plus truncations.
#include "../core/onnx_test_models.h"

#include <cstdio>
#include <fstream>
#include <string>

namespace models = tapas::testmodels;

namespace {

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, then Slice with constant bounds: the
// chains exporters write for attention heads, which data propagation and our shape pass fold.
onnx::ModelProto shapeChainModel()
{
    onnx::ModelProto m = models::makeModel();
    auto* g = m.mutable_graph();
    models::addInput(g, "X", {"batch", "seq", 12});
    models::addInt64Initializer(g, "zero", {0});
    models::addInt64Initializer(g, "heads", {-1, 3, 4});
    models::addInt64Initializer(g, "starts", {0});
    models::addInt64Initializer(g, "ends", {2});
    models::addInt64Initializer(g, "axes", {3});
    models::addNode(g, "Shape", {"X"}, {"s"}, "/attn/Shape");
    auto* gather = models::addNode(g, "Gather", {"s", "zero"}, {"b"}, "/attn/Gather");
    auto* axis = gather->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    models::addNode(g, "Concat", {"b", "heads"}, {"target"}, "/attn/Concat")->add_attribute()->CopyFrom(*axis);
    models::addNode(g, "Reshape", {"X", "target"}, {"r"}, "/attn/Reshape");
    models::addNode(g, "Slice", {"r", "starts", "ends", "axes"}, {"Y"}, "/attn/Slice");
    models::addOutput(g, "Y", {"batch", "seq", 3, 2});
    return m;
}

bool write(const std::string& dir, const std::string& name, const std::string& bytes)
{
    std::ofstream f(dir + "/" + name, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    return bool(f);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    const std::pair<const char*, onnx::ModelProto> seeds[] = {
        {"mlp", models::tinyMlp()},
        {"if", models::ifModel()},
        {"unknown_op", models::unknownOpModel()},
        {"cycle", models::cycleModel()},
        {"unsorted", models::unsortedModel()},
        {"external", models::externalDataModel("weights.bin")},
        {"shape_chain", shapeChainModel()},
        {"unknown_into_shape", models::unknownOpIntoShapeModel()},
    };
    bool ok = true;
    for (const auto& [name, model] : seeds) {
        const std::string bytes = models::serialize(model);
        ok = write(dir, std::string(name) + ".onnx", bytes) && ok;
        ok = write(dir, std::string(name) + "_half.onnx", bytes.substr(0, bytes.size() / 2)) && ok;
    }
    return ok ? 0 : 1;
}
