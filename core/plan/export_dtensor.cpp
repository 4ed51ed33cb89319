// Format "dtensor": a Python file with PyTorch's tensor-parallel plan for the model's modules
// (torch.distributed.tensor.parallel.parallelize_module over the "tp" dimension of a dp x tp
// device mesh). Module paths come from the ONNX name scopes torch.onnx.export writes
// ("/transformer/h.3/attn/c_attn/MatMul" -> "transformer.h.3.attn.c_attn"): a column-split
// weight product is ColwiseParallel, a row-split (partial output) one RowwiseParallel, a
// vocabulary-split embedding RowwiseParallel, a norm run split over the sequence
// SequenceParallel. The instances of a repeated block become one loop over the layer index.
#include "core/plan/export_common.h"

#include <map>

namespace tapas {

namespace {

struct Entry {
    std::string path;  // module path
    std::string style; // "ColwiseParallel()", ...; "" for a note only
    std::string note;  // why a module is left alone
};

bool isIdentifier(const std::string& s)
{
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

bool isNumber(const std::string& s) { return !s.empty() && s.size() < 9 && s.find_first_not_of("0123456789") == std::string::npos; }

std::vector<std::string> splitPath(const std::string& p)
{
    std::vector<std::string> parts;
    size_t at = 0;
    while (true) {
        const size_t dot = p.find('.', at);
        parts.push_back(p.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
        if (dot == std::string::npos) return parts;
        at = dot + 1;
    }
}

std::string lastComponent(const std::string& path)
{
    const size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

// "layers.0.linear1.weight" -> "layers.0.linear1" (a parameter named after its module), else "".
std::string moduleOfParameter(const std::string& name, const std::string& leaf)
{
    const std::string suffix = "." + leaf;
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return {};
    const std::string path = name.substr(0, name.size() - suffix.size());
    for (const std::string& part : splitPath(path))
        if (!isIdentifier(part)) return {};
    return path;
}

// The module a parameter belongs to, as this node's scope sees it: tied layers share the first
// layer's parameter names, so the scope (layers.3.self_attn) keeps the layer and the parameter
// adds the child the scope does not name (out_proj).
std::string modulePath(const std::string& scopePath, const std::string& paramModule)
{
    if (paramModule.empty()) return scopePath;
    if (scopePath.empty()) return paramModule;
    const std::string leaf = lastComponent(paramModule);
    return lastComponent(scopePath) == leaf ? scopePath : scopePath + "." + leaf;
}

// A parameter, or the parameter an Identity aliases (torch merges equal initializers that way).
TensorId parameterOf(const Graph& g, TensorId t)
{
    for (int hops = 0; t != kNoTensor && hops < 4; ++hops) {
        if (g.tensor(t).isParameter()) return t;
        const NodeId p = g.tensor(t).producer;
        if (p == kNoNode || g.node(p).opType != "Identity") return kNoTensor;
        t = g.node(p).input(0);
    }
    return kNoTensor;
}

// The 1-D parameter added to a product's output (torch writes Add(bias, MatMul_output)).
TensorId biasOf(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    if (node.opType == "Gemm") return parameterOf(g, node.input(2));
    if (node.outputs.empty()) return kNoTensor;
    for (NodeId c : g.tensor(node.outputs[0]).consumers) {
        const Node& a = g.node(c);
        if (a.opType != "Add") continue;
        for (TensorId t : a.inputs) {
            const TensorId b = t == kNoTensor || t == node.outputs[0] ? kNoTensor : parameterOf(g, t);
            if (b != kNoTensor && g.tensor(b).shape.rank() == 1) return b;
        }
    }
    return kNoTensor;
}

enum class ModuleKind { Linear, Embedding, Other };

struct Module {
    std::string path;
    ModuleKind kind = ModuleKind::Other;
    std::string what; // for Other: what the module is, for the note
};

// Which torch module a weight-bearing node was exported from. torch.onnx writes an nn.Linear as
// Gemm(transB=1) on its named weight, or as MatMul on an anonymous transposed copy with its bias
// named <module>.bias; a MatMul on a named [in, out] weight is transformers' Conv1D; a packed
// projection whose bias is <module>.in_proj_bias is nn.MultiheadAttention's own parameter.
Module moduleOf(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    const std::string scopePath = modulePathOfScope(node.scope);
    const TensorId w = linearWeight(g, n);
    const std::string& wname = g.tensor(w).name;
    if (node.opType == "Gather") return {modulePath(scopePath, moduleOfParameter(wname, "weight")), ModuleKind::Embedding, ""};
    const NodeId via = g.tensor(node.input(1)).producer;
    const bool throughTranspose = via != kNoNode && g.node(via).opType == "Transpose"; // a tied head reads the embedding transposed
    if (node.opType == "Gemm" && node.attrInt("transB", 0) == 1)
        return {modulePath(scopePath, moduleOfParameter(wname, "weight")), ModuleKind::Linear, ""};
    const std::string named = moduleOfParameter(wname, "weight");
    if (!named.empty() && !throughTranspose)
        return {modulePath(scopePath, named), ModuleKind::Other, "a Conv1D-style module (weight stored [in, out])"};
    const TensorId b = biasOf(g, n);
    if (b != kNoTensor) {
        const std::string& bname = g.tensor(b).name;
        const std::string linear = moduleOfParameter(bname, "bias");
        if (!linear.empty()) return {modulePath(scopePath, linear), ModuleKind::Linear, ""};
        const size_t dot = bname.rfind('.');
        if (dot != std::string::npos)
            return {modulePath(scopePath, bname.substr(0, dot)), ModuleKind::Other,
                    "a raw parameter '" + bname.substr(dot + 1) + "' of its module (nn.MultiheadAttention's packed in-projection)"};
    }
    return {scopePath, ModuleKind::Linear, ""};
}

// The style of one node's module, or "" with a note.
Entry entryOf(const Graph& g, const ShardingPlan& p, NodeId n)
{
    const Node& node = g.node(n);
    const std::string& s = p.nodes[size_t(n)].name;
    if (isNormReduction(g, n)) {
        Entry e{modulePathOfScope(node.scope), "", ""};
        if (normSeqSplit(g, p, n)) e.style = "SequenceParallel()";
        return e;
    }
    if (linearWeight(g, n) == kNoTensor || s == "replicate") return {modulePathOfScope(node.scope), "", ""};
    const Module m = moduleOf(g, n);
    Entry e{m.path, "", ""};
    if (m.kind == ModuleKind::Other) {
        e.note = "the plan splits it '" + s + "', but it is " + m.what +
                 ", and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated";
        return e;
    }
    if (node.opType == "Gather") {
        if (s == "vocab") e.style = "RowwiseParallel(input_layouts=Replicate())";
        else if (s == "hidden") e.style = "ColwiseParallel(input_layouts=Replicate(), output_layouts=Replicate())";
        else e.note = "looked up with strategy '" + s + "' (no parallelize_module style; left replicated)";
    } else if (s == "column") {
        e.style = "ColwiseParallel()";
    } else if (s == "row") {
        e.style = "RowwiseParallel()";
    } else {
        e.note = "split by strategy '" + s + "' (rows/batch: data-parallel work, no parallelize_module style)";
    }
    return e;
}

// A row-parallel Linear takes its input split over features from a column-parallel one; when a
// product upstream is left replicated (not expressible), the input arrives whole and the style
// must say so, or DTensor would take the whole tensor for one shard.
bool fedByUnexpressedProduct(const Graph& g, const ShardingPlan& p, NodeId n, const std::vector<Entry>& entries)
{
    std::vector<TensorId> stack{g.node(n).input(0)};
    std::vector<char> seen(g.tensors.size(), 0);
    while (!stack.empty()) {
        const TensorId t = stack.back();
        stack.pop_back();
        if (t == kNoTensor || seen[size_t(t)]) continue;
        seen[size_t(t)] = 1;
        const NodeId q = g.tensor(t).producer;
        if (q == kNoNode) continue;
        if (linearWeight(g, q) != kNoTensor && g.node(q).opType != "Gather") {
            if (p.nodes[size_t(q)].name == "column" && entries[size_t(q)].style.empty()) return true;
            continue;
        }
        for (TensorId i : g.node(q).inputs)
            if (i != kNoTensor && !g.tensor(i).isParameter() && dtypeIsFloating(g.tensor(i).dtype)) stack.push_back(i);
    }
    return false;
}

// The plan's padded tables (ShardingPlan::padding) and a function that pads them in the module:
// zero rows appended to the parameter, every module holding that same parameter (a tied head)
// given the padded one, an nn.Embedding's num_embeddings updated. The logits of the padded rows
// must be left out of the loss, as the worker does (logits[..., :rows]).
std::string padTablesPython(const Graph& g, const ShardingPlan& p)
{
    std::string py = "# The plan pads these tables (parameter -> (rows, padded rows)) so that they split over tp.\n";
    py += "PADDED_TABLES = {\n";
    for (const TablePadding& t : p.padding)
        py += "    " + pythonString(g.tensor(t.table).name) + ": (" + std::to_string(t.rows) + ", " + std::to_string(t.paddedRows) + "),\n";
    py += "}\n\n\n";
    py += "def pad_tables(model):\n";
    py += "    \"\"\"Appends zero rows to each padded table, keeping ties (a head sharing the table gets the\n";
    py += "    padded one too). No id reads the new rows; leave their logits out of the loss, e.g.\n";
    py += "    logits[..., :rows], so that they stay zero.\"\"\"\n";
    py += "    import torch\n\n";
    py += "    for name, (rows, padded) in PADDED_TABLES.items():\n";
    py += "        old = model.get_parameter(name)\n";
    py += "        if old.shape[0] != rows:\n";
    py += "            raise ValueError(f\"{name} has {old.shape[0]} rows; the plan pads {rows} to {padded}\")\n";
    py += "        with torch.no_grad():\n";
    py += "            new = torch.nn.Parameter(torch.cat([old, old.new_zeros(padded - rows, *old.shape[1:])]))\n";
    py += "        for module in model.modules():\n";
    py += "            for key, value in list(module._parameters.items()):\n";
    py += "                if value is old:\n";
    py += "                    setattr(module, key, new)\n";
    py += "                    if isinstance(module, torch.nn.Embedding):\n";
    py += "                        module.num_embeddings = padded\n";
    py += "    return model\n\n\n";
    return py;
}

class DtensorExporter : public PlanExporter {
public:
    std::string name() const override { return "dtensor"; }
    std::string description() const override { return "PyTorch DTensor parallelize_module plan (Python)"; }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions&) const override
    {
        if (Status s = checkExportInput(in); !s) return Result<ExportFiles>::failure(s.error);
        const Graph& g = *in.graph;
        const ShardingPlan& p = *in.plan;
        // One entry per module path, first node (in graph order) wins; node -> its entry.
        std::map<std::string, Entry> byPath;
        std::vector<std::string> order;
        std::vector<std::string> pathOfNode(g.nodes.size());
        int unscoped = 0;
        std::vector<Entry> entries;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) entries.push_back(entryOf(g, p, n));
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
            if (entries[size_t(n)].style == "RowwiseParallel()" && fedByUnexpressedProduct(g, p, n, entries))
                entries[size_t(n)].style = "RowwiseParallel(input_layouts=Replicate())";
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            Entry e = entries[size_t(n)];
            if (e.style.empty() && e.note.empty()) continue;
            if (e.path.empty()) {
                ++unscoped;
                continue;
            }
            pathOfNode[size_t(n)] = e.path;
            if (auto it = byPath.find(e.path); it != byPath.end()) {
                if (it->second.style.empty() && !e.style.empty()) it->second = std::move(e); // a style beats a note
                continue;
            }
            order.push_back(e.path);
            byPath.emplace(e.path, std::move(e));
        }
        if (unscoped > 0 && byPath.empty())
            return Result<ExportFiles>::failure("the model's nodes carry no name scopes, so no module paths can be "
                                                "derived for the " + std::to_string(unscoped) + " sharded modules");

        // Repeated blocks: a path of instance k that differs from instance 0's only in one
        // numeric component equal to base + k becomes `for i in range(...)` with an f-string.
        std::map<std::string, bool> inLoop;
        std::string loops;
        if (in.folded) {
            for (const BlockClass& c : in.folded->classes) {
                if (!c.repeated()) continue;
                std::vector<std::pair<std::string, std::string>> lines; // template, style
                int base = -1;
                bool ok = true;
                std::vector<std::string> members;
                for (size_t pos = 0; pos < c.instances.front().nodes.size() && ok; ++pos) {
                    const std::string& p0 = pathOfNode[size_t(c.instances.front().nodes[pos])];
                    if (p0.empty() || byPath.at(p0).style.empty()) continue;
                    const std::vector<std::string> parts0 = splitPath(p0);
                    int varying = -1;
                    for (size_t k = 0; k < c.instances.size() && ok; ++k) {
                        const NodeId nk = c.instances[k].nodes[pos];
                        const std::string& pk = pathOfNode[size_t(nk)];
                        const std::vector<std::string> parts = splitPath(pk);
                        if (pk.empty() || parts.size() != parts0.size() || byPath.at(pk).style != byPath.at(p0).style) {
                            ok = false;
                            break;
                        }
                        int diffs = 0;
                        for (size_t j = 0; j < parts.size(); ++j) {
                            if (k == 0) {
                                if (!isIdentifier(parts[j])) ok = false;
                                continue;
                            }
                            if (parts[j] == parts0[j]) continue;
                            ++diffs;
                            if (varying >= 0 && varying != int(j)) ok = false;
                            varying = int(j);
                            if (!isNumber(parts[j]) || !isNumber(parts0[j]) || std::stoi(parts[j]) != std::stoi(parts0[j]) + int(k))
                                ok = false;
                        }
                        if (k > 0 && diffs != 1) ok = false;
                    }
                    if (!ok || varying < 0) {
                        ok = false;
                        break;
                    }
                    const int b = std::stoi(parts0[size_t(varying)]);
                    if (base >= 0 && base != b) ok = false;
                    base = b;
                    std::string tmpl;
                    for (size_t j = 0; j < parts0.size(); ++j) tmpl += (j ? "." : "") + (int(j) == varying ? "{i}" : parts0[j]);
                    if (std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == tmpl; }) == lines.end())
                        lines.emplace_back(tmpl, byPath.at(p0).style);
                    for (const BlockInstance& inst : c.instances) members.push_back(pathOfNode[size_t(inst.nodes[pos])]);
                }
                if (!ok || lines.empty()) continue;
                for (const std::string& m : members) inLoop[m] = true;
                loops += "    for i in range(" + std::to_string(base) + ", " + std::to_string(base + int(c.instances.size())) +
                         "):  # " + std::to_string(c.instances.size()) + " instances of one block class\n";
                for (const auto& [tmpl, style] : lines) loops += "        plan[f\"" + tmpl + "\"] = " + style + "\n";
            }
        }

        std::string py = "\"\"\"PyTorch tensor-parallel plan (DTensor) for a Tapas sharding plan.\n\n";
        py += "Call parallelize(model) on every rank after torch.distributed is initialised (e.g. by\n";
        py += "torchrun) with the plan's " + std::to_string(p.mesh.size()) + " ranks: the model's modules are sharded over the\n";
        py += "\"tp\" dimension of a " + std::to_string(p.mesh.dp) + " x " + std::to_string(p.mesh.tp) +
              " device mesh; wrap the result for the \"dp\" dimension (e.g. FSDP or DDP).\n\"\"\"\n";
        py += exportHeader(in, name(), "# ");
        if (unscoped > 0)
            py += "# " + std::to_string(unscoped) + " sharded node(s) had no name scope and are not in the plan below.\n";
        // torch is imported where it is used, so the file loads (and its plan can be inspected)
        // wherever Python runs, and fails only when the plan is applied on a torch without DTensor.
        py += "\nDP_SIZE = " + std::to_string(p.mesh.dp) + "\nTP_SIZE = " + std::to_string(p.mesh.tp) + "\n\n\n";
        py += "def tensor_parallel_plan():\n";
        py += "    \"\"\"Module path -> parallel style, as the Tapas plan shards each module.\n\n";
        py += "    parallelize_module's styles apply to nn.Linear and nn.Embedding only; what the plan\n";
        py += "    splits that they cannot express is named in a comment and left replicated.\n    \"\"\"\n";
        py += "    from torch.distributed.tensor import Replicate  # noqa: F401\n";
        py += "    from torch.distributed.tensor.parallel import (  # noqa: F401\n        ColwiseParallel,\n        RowwiseParallel,\n"
              "        SequenceParallel,\n    )\n\n";
        py += "    plan = {}\n";
        py += loops;
        for (const std::string& path : order) {
            const Entry& e = byPath.at(path);
            if (inLoop.count(path)) continue;
            if (e.style.empty()) py += "    # " + commentSafe(path) + ": " + commentSafe(e.note) + "\n";
            else py += "    plan[" + pythonString(path) + "] = " + e.style + "\n";
        }
        py += "    return plan\n\n\n";
        if (!p.padding.empty()) py += padTablesPython(g, p);
        py += "def parallelize(model, device_type=\"cuda\"):\n";
        py += "    \"\"\"Shards `model` in place over the tp mesh dimension; returns (model, mesh).\"\"\"\n";
        py += "    from torch.distributed.device_mesh import init_device_mesh\n";
        py += "    from torch.distributed.tensor.parallel import parallelize_module\n\n";
        if (!p.padding.empty()) py += "    pad_tables(model)  # the plan splits the padded tables only\n";
        py += "    mesh = init_device_mesh(device_type, (DP_SIZE, TP_SIZE), mesh_dim_names=(\"dp\", \"tp\"))\n";
        py += "    parallelize_module(model, mesh[\"tp\"], tensor_parallel_plan())\n";
        py += "    return model, mesh\n";
        return ExportFiles{{"dtensor_plan.py", py}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makeDtensorExporter() { return std::make_unique<DtensorExporter>(); }

} // namespace tapas
