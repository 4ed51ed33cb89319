// Format "megatron": Megatron-LM's parallelism arguments for the plan, as a bash array to
// source into a launch script, or the reason the plan has no Megatron-LM equivalent. Megatron
// shards by fixed roles (core/search/megatron_roles.h: QKV and MLP-up column-parallel,
// attention-out and MLP-down row-parallel, the embedding vocabulary-parallel) and either runs
// every norm split over the sequence (--sequence-parallel) or none; a plan that departs from
// that cannot be written as its arguments.
#include "core/plan/export_common.h"
#include "core/search/megatron_roles.h"

namespace tapas {

namespace {

// nodeLabel() with the name made safe inside a bash comment.
std::string commentSafeNodeLabel(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    return "node '" + commentSafe(node.name.empty() ? "#" + std::to_string(n) : node.name) + "' (" + node.opType + ")";
}

const char* roleStrategy(MegatronRole r)
{
    switch (r) {
    case MegatronRole::Column: return "column";
    case MegatronRole::Row: return "row";
    case MegatronRole::VocabEmbedding: return "vocab";
    case MegatronRole::ReplicatedWeight: return "replicate";
    case MegatronRole::None: break;
    }
    return nullptr;
}

class MegatronExporter : public PlanExporter {
public:
    std::string name() const override { return "megatron"; }
    std::string description() const override { return "Megatron-LM parallelism arguments"; }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions&) const override
    {
        if (Status s = checkExportInput(in); !s) return Result<ExportFiles>::failure(s.error);
        const Graph& g = *in.graph;
        const ShardingPlan& p = *in.plan;
        const int tp = p.mesh.tp;
        std::vector<std::string> problems;
        int seqSplit = 0, seqWhole = 0;
        if (tp > 1) {
            const std::vector<MegatronRole> roles = megatronRoles(g);
            for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
                const char* want = roleStrategy(roles[size_t(n)]);
                const std::string& have = p.nodes[size_t(n)].name;
                if (want && have != want)
                    problems.push_back(commentSafeNodeLabel(g, n) + " runs '" + have + "' where Megatron-LM runs it '" + want + "'");
                if (isNormReduction(g, n)) (normSeqSplit(g, p, n) ? seqSplit : seqWhole) += 1;
            }
            if (seqSplit > 0 && seqWhole > 0)
                problems.push_back(std::to_string(seqSplit) + " normalisation reductions run split over the sequence and " +
                                   std::to_string(seqWhole) + " whole; Megatron-LM's --sequence-parallel splits all or none");
        }
        if (!problems.empty()) {
            std::string why = "the plan is not expressible in Megatron-LM's terms: " + problems.front();
            if (problems.size() > 1) why += "; and " + std::to_string(problems.size() - 1) + " more departure(s) from its recipe";
            return Result<ExportFiles>::failure(why);
        }
        std::string s = "#!/usr/bin/env bash\n";
        s += "# shellcheck disable=SC2034  # the variables are for the script that sources this file\n";
        s += exportHeader(in, name(), "# ");
        s += "#\n# Megatron-LM parallelism for this plan: world size " + std::to_string(p.mesh.size()) + " = tensor parallel " +
             std::to_string(tp) + " x data parallel " + std::to_string(p.mesh.dp) +
             " (Megatron-LM derives the data-parallel size from the world size).\n";
        s += "# Use: source megatron_args.sh, then pass \"${MEGATRON_PARALLEL_ARGS[@]}\" to pretrain_gpt.py under\n";
        s += "# torchrun --nproc-per-node ... with WORLD_SIZE=" + std::to_string(p.mesh.size()) + ".\n";
        s += "MEGATRON_WORLD_SIZE=" + std::to_string(p.mesh.size()) + "\n";
        s += "MEGATRON_DATA_PARALLEL_SIZE=" + std::to_string(p.mesh.dp) + "\n";
        s += "MEGATRON_PARALLEL_ARGS=(\n";
        s += "    --tensor-model-parallel-size " + std::to_string(tp) + "\n";
        s += "    --pipeline-model-parallel-size 1\n";
        if (seqSplit > 0) s += "    --sequence-parallel\n";
        s += ")\n";
        return ExportFiles{{"megatron_args.sh", s}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makeMegatronExporter() { return std::make_unique<MegatronExporter>(); }

} // namespace tapas
