// Structure-aware libFuzzer target. Its input is not ONNX bytes but a program of edits to one of
// the small models of tests/core/onnx_test_models.h: set an attribute value, grow or shrink a
// list, change a graph-input dim, the opset, an op type or an element type, rewire an input,
// drop or copy a node. libFuzzer's byte mutations then become hostile attribute values, dims,
// opsets and wiring, which the byte fuzzer (fuzz_onnx_importer) rarely reaches through the
// protobuf encoding: strides=[0,0] was found this way. The importer must return a Graph or an
// error naming the file, and the summary of any Graph must compute.
#include "tests/fuzz/fuzz_import_check.h"
#include "tests/core/onnx_test_models.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace {

namespace models = tapas::testmodels;

class Program {
public:
    Program(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    bool done() const { return at_ >= size_; }
    uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    // An index below n (n > 0).
    int pick(int n) { return n > 0 ? int(byte() % unsigned(n)) : 0; }
    // A value that exercises edges more often than raw bytes would.
    int64_t value()
    {
        static constexpr std::array<int64_t, 14> edges = {0, 1, -1, 2, 3, -2, 4, 7, 64,
                                                          int64_t(1) << 31, int64_t(1) << 32, int64_t(1) << 62,
                                                          std::numeric_limits<int64_t>::max(),
                                                          std::numeric_limits<int64_t>::min()};
        const uint8_t k = byte();
        if (k < 200) return edges[k % edges.size()];
        int64_t v = 0;
        for (int i = 0; i < 8; ++i) v = int64_t(uint64_t(v) << 8 | byte());
        return v;
    }

private:
    const uint8_t* data_;
    size_t size_;
    size_t at_ = 0;
};

onnx::ModelProto baseModel(int which)
{
    switch (which) {
    case 0: return models::tinyMlp();
    case 1: return models::convPoolModel("MaxPool");
    case 2: return models::convPoolModel("AveragePool");
    case 3: return models::ifModel();
    case 4: return models::unknownOpModel();
    default: return models::unsortedModel();
    }
}

const char* const kOps[] = {"Conv", "MaxPool", "AveragePool", "ConvTranspose", "Reshape", "Transpose", "Gather",
                            "Concat", "Split", "Slice", "Pad", "Resize", "SpaceToDepth", "DepthToSpace", "Expand",
                            "Tile", "Flatten", "Squeeze", "Unsqueeze", "ReduceSum", "Softmax", "LRN", "Einsum",
                            "TopK", "Range", "OneHot", "MatMul", "Gemm", "LayerNormalization", "GlobalAveragePool"};
const char* const kAttrs[] = {"strides", "dilations", "kernel_shape", "pads", "group", "axis", "axes", "perm",
                              "blocksize", "size", "split", "output_padding", "output_shape", "k", "keepdims",
                              "transA", "transB", "ceil_mode", "auto_pad", "mode"};

// Every tensor name the graph mentions, for rewiring.
std::string someName(const onnx::GraphProto& g, Program& p)
{
    const int total = g.input_size() + g.initializer_size() + g.node_size() + 2;
    int k = p.pick(total);
    if (k < g.input_size()) return g.input(k).name();
    k -= g.input_size();
    if (k < g.initializer_size()) return g.initializer(k).name();
    k -= g.initializer_size();
    if (k < g.node_size()) return g.node(k).output_size() ? g.node(k).output(0) : std::string();
    return k == g.node_size() ? std::string() : std::string("fresh_") + char('a' + p.pick(4));
}

void edit(onnx::ModelProto& m, Program& p)
{
    onnx::GraphProto* g = m.mutable_graph();
    const int nodes = g->node_size();
    onnx::NodeProto* n = nodes ? g->mutable_node(p.pick(nodes)) : nullptr;
    switch (p.pick(11)) {
    case 0: // set a value of an existing attribute
        if (n && n->attribute_size()) {
            onnx::AttributeProto* a = n->mutable_attribute(p.pick(n->attribute_size()));
            if (a->ints_size()) a->set_ints(p.pick(a->ints_size()), p.value());
            else if (a->type() == onnx::AttributeProto::FLOAT) a->set_f(float(p.value()));
            else a->set_i(p.value());
        }
        break;
    case 1: // grow or shrink a list attribute
        if (n && n->attribute_size()) {
            onnx::AttributeProto* a = n->mutable_attribute(p.pick(n->attribute_size()));
            if (p.byte() & 1) a->add_ints(p.value());
            else if (a->ints_size()) a->mutable_ints()->RemoveLast();
        }
        break;
    case 2: // add an attribute
        if (n) {
            onnx::AttributeProto* a = n->add_attribute();
            a->set_name(kAttrs[p.pick(int(std::size(kAttrs)))]);
            if (p.byte() & 1) {
                a->set_type(onnx::AttributeProto::INT);
                a->set_i(p.value());
            } else {
                a->set_type(onnx::AttributeProto::INTS);
                for (int i = p.pick(7); i > 0; --i) a->add_ints(p.value());
            }
        }
        break;
    case 3: // a graph-input dim
        if (g->input_size()) {
            auto* shape = g->mutable_input(p.pick(g->input_size()))->mutable_type()->mutable_tensor_type()->mutable_shape();
            if (shape->dim_size()) {
                auto* d = shape->mutable_dim(p.pick(shape->dim_size()));
                if (p.byte() & 1) d->set_dim_value(p.value());
                else d->set_dim_param(std::string(1, char('a' + p.pick(3))));
            } else {
                shape->add_dim()->set_dim_value(p.value());
            }
        }
        break;
    case 4: // the opset
        if (m.opset_import_size()) m.mutable_opset_import(0)->set_version(p.value());
        break;
    case 5: // the op type
        if (n) n->set_op_type(kOps[p.pick(int(std::size(kOps)))]);
        break;
    case 6: // rewire one input
        if (n && n->input_size()) n->set_input(p.pick(n->input_size()), someName(*g, p));
        else if (n) n->add_input(someName(*g, p));
        break;
    case 7: // add an input
        if (n) n->add_input(someName(*g, p));
        break;
    case 8: // drop a node
        if (nodes) g->mutable_node()->DeleteSubrange(p.pick(nodes), 1);
        break;
    case 9: // copy a node (duplicate outputs)
        if (n) *g->add_node() = *n;
        break;
    default: // an element type
        if (g->input_size()) g->mutable_input(p.pick(g->input_size()))->mutable_type()->mutable_tensor_type()->set_elem_type(int32_t(p.pick(17)));
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    Program program(data, size);
    onnx::ModelProto m = baseModel(program.pick(6));
    for (int edits = 0; !program.done() && edits < 32; ++edits) edit(m, program);
    // To triage a crash: TAPAS_FUZZ_DUMP=1 fuzz_onnx_structure CRASH_FILE prints the edited model.
    if (std::getenv("TAPAS_FUZZ_DUMP")) std::fprintf(stderr, "%s\n", m.DebugString().c_str());
    tapas::ImportOptions options;
    options.dims = {{"batch", 2}};
    tapas::fuzz::importAndCheck(models::serialize(m), options);
    return 0;
}
