#include "core/onnx/onnx_convert.h"

#include <unordered_set>

namespace tapas::onnximport {

namespace {

using onnx::AttributeProto;

void typeFromProto(const onnx::TypeProto& tp, const std::set<std::string>& fileSymbols,
                   DType& dtype, Shape& shape)
{
    const onnx::TypeProto_Tensor* tt = nullptr;
    if (tp.has_tensor_type()) tt = &tp.tensor_type();
    if (!tt) return; // sequences, maps, optionals: no tensor dtype or shape to speak of
    if (tt->has_elem_type()) dtype = dtypeFromOnnx(tt->elem_type());
    if (!tt->has_shape()) return;
    Shape s;
    s.rankKnown = true;
    for (const auto& d : tt->shape().dim()) {
        if (d.has_dim_value() && d.dim_value() >= 0 && d.dim_value() <= kMaxPlausibleDim)
            s.dims.push_back(Dim::known(d.dim_value()));
        else if (d.has_dim_param() && fileSymbols.count(d.dim_param())) s.dims.push_back(Dim::symbolic(d.dim_param()));
        else s.dims.push_back(Dim::unknown());
    }
    // A product no real activation reaches means a corrupt file: keep the rank, not the dims.
    int64_t elements = 1;
    for (const Dim& d : s.dims) {
        if (!d.isKnown() || d.value == 0) continue;
        if (elements > kMaxPlausibleElements / d.value) {
            for (Dim& x : s.dims) x = Dim::unknown();
            break;
        }
        elements *= d.value;
    }
    shape = std::move(s);
}

Shape dimsShape(const google::protobuf::RepeatedField<int64_t>& dims)
{
    std::vector<Dim> out;
    for (int64_t d : dims) out.push_back(d >= 0 && d <= kMaxPlausibleDim ? Dim::known(d) : Dim::unknown());
    return Shape::ofDims(std::move(out));
}

Attribute::Kind kindOf(const AttributeProto& a)
{
    switch (a.type()) {
    case AttributeProto::FLOAT: return Attribute::Kind::Float;
    case AttributeProto::INT: return Attribute::Kind::Int;
    case AttributeProto::STRING: return Attribute::Kind::String;
    case AttributeProto::TENSOR: return Attribute::Kind::Tensor;
    case AttributeProto::GRAPH: case AttributeProto::GRAPHS: return Attribute::Kind::Graph;
    case AttributeProto::FLOATS: return Attribute::Kind::Floats;
    case AttributeProto::INTS: return Attribute::Kind::Ints;
    case AttributeProto::STRINGS: return Attribute::Kind::Strings;
    case AttributeProto::UNDEFINED: break; // IR version 1 files: infer from the field that is set
    default: return Attribute::Kind::Other;
    }
    if (a.has_f()) return Attribute::Kind::Float;
    if (a.has_i()) return Attribute::Kind::Int;
    if (a.has_s()) return Attribute::Kind::String;
    if (a.has_t()) return Attribute::Kind::Tensor;
    if (a.has_g() || a.graphs_size()) return Attribute::Kind::Graph;
    if (a.floats_size()) return Attribute::Kind::Floats;
    if (a.ints_size()) return Attribute::Kind::Ints;
    if (a.strings_size()) return Attribute::Kind::Strings;
    return Attribute::Kind::Other;
}

ConstValue tensorMeta(const onnx::TensorProto& t, int64_t* elements)
{
    if (std::optional<ConstValue> v = tensorValue(t)) {
        *elements = v->size();
        return std::move(*v);
    }
    ConstValue meta; // dtype and shape only: the values are large, external or unreadable
    meta.dtype = dtypeFromOnnx(t.data_type());
    meta.shape = tensorShape(t);
    *elements = std::max<int64_t>(tensorElements(t), 0);
    return meta;
}

// What a body needs to stand alone: the model's opsets and IR version.
struct BodyContext {
    const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>* opsets = nullptr;
    int64_t irVersion = 0;
};

// The names `g` reads without defining them (from the enclosing scopes), in order of first use,
// its nested bodies' included.
void outerReads(const onnx::GraphProto& g, std::vector<std::string>& out, std::unordered_set<std::string>& seen)
{
    std::unordered_set<std::string> defined;
    for (const auto& v : g.input()) defined.insert(v.name());
    for (const auto& t : g.initializer()) defined.insert(t.name());
    for (const auto& sp : g.sparse_initializer()) defined.insert(sp.values().name());
    auto use = [&](const std::string& name) {
        if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
    };
    for (const auto& node : g.node()) {
        for (const std::string& in : node.input()) use(in);
        for (const auto& a : node.attribute()) {
            std::vector<const onnx::GraphProto*> bodies;
            if (a.has_g()) bodies.push_back(&a.g());
            for (const auto& sub : a.graphs()) bodies.push_back(&sub);
            for (const onnx::GraphProto* body : bodies) {
                std::vector<std::string> inner;
                std::unordered_set<std::string> innerSeen;
                outerReads(*body, inner, innerSeen);
                for (const std::string& name : inner) use(name);
            }
        }
        for (const std::string& o : node.output()) defined.insert(o);
    }
    for (const auto& o : g.output()) use(o.name());
}

// A body as a model of its own (see onnx_subgraph.h): its graph and the file's opsets.
std::string serializeBody(const onnx::GraphProto& body, const BodyContext& ctx)
{
    onnx::ModelProto m;
    m.set_ir_version(ctx.irVersion);
    if (ctx.opsets) *m.mutable_opset_import() = *ctx.opsets;
    *m.mutable_graph() = body;
    return m.SerializeAsString();
}

Attribute convertAttribute(const AttributeProto& a, Node& node, int formalInputs, const BodyContext& ctx,
                           std::vector<std::string>& outerNames)
{
    Attribute out;
    out.name = a.name();
    out.kind = kindOf(a);
    switch (out.kind) {
    case Attribute::Kind::Float: out.f = a.f(); break;
    case Attribute::Kind::Int: out.i = a.i(); break;
    case Attribute::Kind::String: out.s = a.s(); break;
    case Attribute::Kind::Floats: out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case Attribute::Kind::Ints: out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case Attribute::Kind::Strings: out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case Attribute::Kind::Tensor: out.tensor = tensorMeta(a.t(), &out.tensorElements); break;
    case Attribute::Kind::Graph: {
        // Control-flow bodies are never inlined into the main graph: the planner sees one node.
        // Each is kept whole for the executor (onnx_subgraph.h says how), and what it reads
        // from outside becomes the node's implicit inputs.
        std::vector<const onnx::GraphProto*> bodies;
        if (a.has_g()) bodies.push_back(&a.g());
        for (const auto& g : a.graphs()) bodies.push_back(&g);
        out.i = formalInputs;
        for (const onnx::GraphProto* body : bodies) {
            out.graphNodes += countSubgraphNodes(*body);
            out.strings.push_back(serializeBody(*body, ctx));
            std::unordered_set<std::string> seen;
            outerReads(*body, outerNames, seen);
            node.subgraphs++;
        }
        node.subgraphNodes += out.graphNodes;
        break;
    }
    case Attribute::Kind::Other: break;
    }
    return out;
}

// A Constant node's output: dtype, shape and (small) value from whichever value_* attribute is set.
void describeConstant(const onnx::NodeProto& node, Tensor& t)
{
    t.kind = TensorKind::Constant;
    for (const auto& a : node.attribute()) {
        ConstValue v;
        if (a.name() == "value" && a.has_t()) {
            t.dtype = dtypeFromOnnx(a.t().data_type());
            t.shape = tensorShape(a.t());
            t.value = tensorValue(a.t()); // nullopt for large values: shape only
            return;
        }
        if (a.name() == "sparse_value" && a.has_sparse_tensor()) {
            t.dtype = dtypeFromOnnx(a.sparse_tensor().values().data_type());
            t.shape = dimsShape(a.sparse_tensor().dims());
            return;
        }
        if (a.name() == "value_float") {
            v.dtype = DType::Float32;
            v.shape = Shape::of({});
            v.floats = {a.f()};
        } else if (a.name() == "value_floats") {
            v.dtype = DType::Float32;
            v.shape = Shape::of({int64_t(a.floats_size())});
            if (a.floats_size() <= kMaxKeptConstElements) v.floats.assign(a.floats().begin(), a.floats().end());
        } else if (a.name() == "value_int") {
            v.dtype = DType::Int64;
            v.shape = Shape::of({});
            v.ints = {a.i()};
        } else if (a.name() == "value_ints") {
            v.dtype = DType::Int64;
            v.shape = Shape::of({int64_t(a.ints_size())});
            if (a.ints_size() <= kMaxKeptConstElements) v.ints.assign(a.ints().begin(), a.ints().end());
        } else if (a.name() == "value_string" || a.name() == "value_strings") {
            t.dtype = DType::String;
            t.shape = a.name() == "value_string" ? Shape::of({}) : Shape::of({int64_t(a.strings_size())});
            return;
        } else {
            continue;
        }
        t.dtype = v.dtype;
        t.shape = v.shape;
        if (v.size() == v.shape.numElementsOr(0)) t.value = std::move(v);
        return;
    }
}

// "unk__12": a name an earlier run of ONNX's inference invented and saved into value_info.
bool isInferredSymbol(const std::string& p)
{
    return p.size() > 5 && p.compare(0, 5, "unk__") == 0 &&
           p.find_first_not_of("0123456789", 5) == std::string::npos;
}

void scanSymbols(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos, std::set<std::string>& out)
{
    for (const auto& vi : infos) {
        if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
        for (const auto& d : vi.type().tensor_type().shape().dim())
            if (d.has_dim_param() && !d.dim_param().empty() && !isInferredSymbol(d.dim_param()))
                out.insert(d.dim_param());
    }
}

int bindInfos(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* infos, const DimBindings& dims,
              std::set<std::string>& matched)
{
    int bound = 0;
    for (auto& vi : *infos) {
        if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
        for (auto& d : *vi.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
            if (!d.has_dim_param()) continue;
            auto it = dims.find(d.dim_param());
            if (it == dims.end()) continue;
            matched.insert(it->first);
            d.set_dim_value(it->second); // dim_value and dim_param are a oneof: this drops the name
            ++bound;
        }
    }
    return bound;
}

// The nodes of `pg` into g (one to one, in order), then the types value_info and the outputs
// give. A node with bodies gets, after its own inputs, one implicit input per name its bodies
// read from outside themselves.
void convertNodes(const onnx::GraphProto& pg, Graph& g, const std::set<std::string>& fileSymbols, const BodyContext& ctx)
{
    g.nodes.reserve(size_t(pg.node_size()));
    for (const auto& pn : pg.node()) {
        Node n;
        n.name = pn.name();
        n.opType = pn.op_type();
        n.domain = pn.domain() == "ai.onnx" ? std::string() : pn.domain();
        n.scope = scopeFromNodeName(pn.name());
        std::vector<std::string> outerNames;
        for (const auto& a : pn.attribute())
            n.attrs.push_back(convertAttribute(a, n, pn.input_size(), ctx, outerNames));
        for (const std::string& in : pn.input()) n.inputs.push_back(in.empty() ? kNoTensor : g.tensorFor(in));
        std::unordered_set<std::string> seen;
        for (const std::string& name : outerNames)
            if (seen.insert(name).second) n.inputs.push_back(g.tensorFor(name)); // implicit inputs
        for (const std::string& out : pn.output()) {
            if (out.empty()) {
                n.outputs.push_back(kNoTensor);
                continue;
            }
            const TensorId id = g.tensorFor(out);
            if (n.opType == "Constant" && n.domain.empty() && g.tensor(id).kind == TensorKind::Activation)
                describeConstant(pn, g.tensor(id));
            n.outputs.push_back(id);
        }
        g.addNode(std::move(n));
    }

    // Types of activations and outputs: what the file and ONNX's inference wrote.
    auto applyInfo = [&](const onnx::ValueInfoProto& vi) {
        const TensorId id = g.findTensor(vi.name());
        if (id == kNoTensor) return;
        Tensor& t = g.tensor(id);
        if (t.kind != TensorKind::Activation) return; // stored tensors know their own dims
        DType dtype = t.dtype;
        Shape shape = t.shape;
        typeFromProto(vi.type(), fileSymbols, dtype, shape);
        if (dtype != DType::Undefined) t.dtype = dtype;
        if (shape.rankKnown) t.shape = std::move(shape);
    };
    for (const auto& vi : pg.value_info()) applyInfo(vi);
    for (const auto& vi : pg.output()) applyInfo(vi);
    for (const auto& vi : pg.output()) g.outputs.push_back(g.tensorFor(vi.name()));
}

// A run-time input (or a body's formal input) as a tensor.
void addInput(Graph& g, const onnx::ValueInfoProto& vi, const std::set<std::string>& symbols)
{
    Tensor t;
    t.name = vi.name();
    t.kind = TensorKind::Input;
    typeFromProto(vi.type(), symbols, t.dtype, t.shape);
    g.inputs.push_back(g.addTensor(std::move(t)));
}

// An initializer as a Weight tensor (dtype, dims, its value when small); null when the name is
// already taken.
Tensor* addInitializer(Graph& g, const onnx::TensorProto& init)
{
    if (g.findTensor(init.name()) != kNoTensor) return nullptr;
    Tensor t;
    t.name = init.name();
    t.kind = TensorKind::Weight;
    t.dtype = dtypeFromOnnx(init.data_type());
    t.shape = tensorShape(init);
    t.value = tensorValue(init);
    return &g.tensor(g.addTensor(std::move(t)));
}

} // namespace

int64_t countSubgraphNodes(const onnx::GraphProto& g)
{
    int64_t n = g.node_size();
    for (const auto& node : g.node()) {
        for (const auto& a : node.attribute()) {
            if (a.has_g()) n += countSubgraphNodes(a.g());
            for (const auto& sub : a.graphs()) n += countSubgraphNodes(sub);
        }
    }
    return n;
}

std::set<std::string> collectFileSymbols(const onnx::ModelProto& model)
{
    std::set<std::string> out;
    scanSymbols(model.graph().input(), out);
    scanSymbols(model.graph().output(), out);
    scanSymbols(model.graph().value_info(), out);
    return out;
}

std::set<std::string> bindProtoDims(onnx::ModelProto& model, const DimBindings& dims)
{
    std::set<std::string> matched;
    if (dims.empty()) return matched;
    onnx::GraphProto& g = *model.mutable_graph();
    bindInfos(g.mutable_input(), dims, matched);
    bindInfos(g.mutable_output(), dims, matched);
    bindInfos(g.mutable_value_info(), dims, matched);
    return matched;
}

std::vector<ClearedOutputDim> clearOutputOnlySymbols(onnx::ModelProto& model)
{
    std::set<std::string> inputSymbols;
    scanSymbols(model.graph().input(), inputSymbols);
    std::vector<ClearedOutputDim> cleared;
    for (auto& out : *model.mutable_graph()->mutable_output()) {
        if (!out.type().has_tensor_type() || !out.type().tensor_type().has_shape()) continue;
        auto* dims = out.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
        for (int i = 0; i < dims->size(); ++i) {
            auto& d = (*dims)[i];
            if (!d.has_dim_param() || inputSymbols.count(d.dim_param())) continue;
            cleared.push_back({out.name(), i, d.dim_param()});
            d.clear_dim_param();
        }
    }
    return cleared;
}

void restoreOutputSymbols(Graph& g, const std::vector<ClearedOutputDim>& cleared)
{
    for (const ClearedOutputDim& c : cleared) {
        const TensorId id = g.findTensor(c.output);
        if (id == kNoTensor) continue;
        Shape& s = g.tensor(id).shape;
        if (!s.rankKnown || c.index >= int(s.dims.size())) continue;
        Dim& d = s.dims[size_t(c.index)];
        if (!d.isKnown() && !d.isSymbolic()) d = Dim::symbolic(c.param);
    }
}

Graph convertModel(const onnx::ModelProto& model, const DropReport& drops,
                   const std::set<std::string>& fileSymbols)
{
    const onnx::GraphProto& pg = model.graph();
    Graph g;
    g.name = pg.name();
    g.irVersion = model.ir_version();
    g.producerName = model.producer_name();
    g.producerVersion = model.producer_version();
    for (const auto& op : model.opset_import())
        g.opsets.emplace_back(op.domain() == "ai.onnx" ? std::string() : op.domain(), op.version());

    std::unordered_set<std::string> initializerNames;
    for (const auto& t : pg.initializer()) initializerNames.insert(t.name());
    for (const auto& s : pg.sparse_initializer()) initializerNames.insert(s.values().name());

    // Run-time inputs: IR < 4 files list initializers as inputs too; those are weights.
    for (const auto& vi : pg.input()) {
        if (initializerNames.count(vi.name()) || g.findTensor(vi.name()) != kNoTensor) continue;
        addInput(g, vi, fileSymbols);
    }
    for (const auto& init : pg.initializer()) {
        Tensor* t = addInitializer(g, init);
        auto ext = drops.external.find(init.name());
        if (t && ext != drops.external.end()) {
            t->externalLocation = ext->second.location;
            t->externalPresent = ext->second.present;
        }
    }
    for (const auto& sparse : pg.sparse_initializer()) {
        if (g.findTensor(sparse.values().name()) != kNoTensor) continue;
        Tensor t;
        t.name = sparse.values().name();
        t.kind = TensorKind::Weight;
        t.dtype = dtypeFromOnnx(sparse.values().data_type());
        t.shape = dimsShape(sparse.dims());
        g.addTensor(std::move(t));
    }

    convertNodes(pg, g, fileSymbols, BodyContext{&model.opset_import(), model.ir_version()});
    return g;
}

Graph convertBody(const onnx::ModelProto& body)
{
    const onnx::GraphProto& pg = body.graph();
    Graph g;
    g.name = pg.name();
    g.irVersion = body.ir_version();
    for (const auto& op : body.opset_import())
        g.opsets.emplace_back(op.domain() == "ai.onnx" ? std::string() : op.domain(), op.version());
    const std::set<std::string> symbols = collectFileSymbols(body);
    for (const auto& vi : pg.input()) addInput(g, vi, symbols);
    for (const auto& init : pg.initializer()) addInitializer(g, init);
    convertNodes(pg, g, symbols, BodyContext{&body.opset_import(), body.ir_version()});
    return g;
}

} // namespace tapas::onnximport
