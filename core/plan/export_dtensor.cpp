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

// The style of one node's module, or "" with a note.
Entry entryOf(const Graph& g, const ShardingPlan& p, NodeId n)
{
    const Node& node = g.node(n);
    Entry e{modulePathOfScope(node.scope), "", ""};
    const std::string& s = p.nodes[size_t(n)].name;
    if (isNormReduction(g, n)) {
        if (normSeqSplit(g, p, n)) e.style = "SequenceParallel()";
        return e;
    }
    if (linearWeight(g, n) == kNoTensor || s == "replicate") return e;
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
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            Entry e = entryOf(g, p, n);
            if (e.style.empty() && e.note.empty()) continue;
            if (e.path.empty()) {
                ++unscoped;
                continue;
            }
            pathOfNode[size_t(n)] = e.path;
            if (byPath.count(e.path)) continue;
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
        py += "\nfrom torch.distributed.device_mesh import init_device_mesh\n";
        py += "from torch.distributed.tensor import Replicate\n";
        py += "from torch.distributed.tensor.parallel import (\n    ColwiseParallel,\n    RowwiseParallel,\n"
              "    SequenceParallel,\n    parallelize_module,\n)\n\n";
        py += "DP_SIZE = " + std::to_string(p.mesh.dp) + "\nTP_SIZE = " + std::to_string(p.mesh.tp) + "\n\n\n";
        py += "def tensor_parallel_plan():\n";
        py += "    \"\"\"Module path -> parallel style, as the Tapas plan shards each module.\"\"\"\n";
        py += "    plan = {}\n";
        py += loops;
        for (const std::string& path : order) {
            const Entry& e = byPath.at(path);
            if (inLoop.count(path)) continue;
            if (e.style.empty()) py += "    # " + commentSafe(path) + ": " + commentSafe(e.note) + "\n";
            else py += "    plan[" + pythonString(path) + "] = " + e.style + "\n";
        }
        py += "    return plan\n\n\n";
        py += "def parallelize(model, device_type=\"cuda\"):\n";
        py += "    \"\"\"Shards `model` in place over the tp mesh dimension; returns (model, mesh).\"\"\"\n";
        py += "    mesh = init_device_mesh(device_type, (DP_SIZE, TP_SIZE), mesh_dim_names=(\"dp\", \"tp\"))\n";
        py += "    parallelize_module(model, mesh[\"tp\"], tensor_parallel_plan())\n";
        py += "    return model, mesh\n";
        return ExportFiles{{"dtensor_plan.py", py}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makeDtensorExporter() { return std::make_unique<DtensorExporter>(); }

} // namespace tapas
