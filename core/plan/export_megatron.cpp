// Format "megatron": the arguments of Megatron-LM's pretrain_gpt.py for the plan (model shape,
// batch sizes, vocabulary padding, parallel sizes) as bash arrays to source into a launch
// script, or the reason there is no Megatron-LM equivalent: a plan departing from its recipe, or
// a model its GPT script cannot train (core/plan/megatron_gpt.h). Megatron
// shards by fixed roles (core/search/megatron_roles.h: QKV and MLP-up column-parallel,
// attention-out and MLP-down row-parallel, the embedding vocabulary-parallel) and either runs
// every norm split over the sequence (--sequence-parallel) or none; a plan that departs from
// that cannot be written as its arguments.
#include "core/plan/export_common.h"
#include "core/plan/megatron_gpt.h"
#include "core/search/megatron_roles.h"

#include <optional>

namespace tapas {

namespace {

// nodeLabel() with the name made safe inside a bash comment.
std::string commentSafeNodeLabel(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    return "node '" + commentSafe(node.name.empty() ? "#" + std::to_string(n) : node.name) + "' (" + node.opType + ")";
}

class MegatronExporter : public PlanExporter {
public:
    std::string name() const override { return "megatron"; }
    std::string description() const override { return "Megatron-LM parallelism arguments"; }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions& o) const override
    {
        if (Status s = checkExportInput(in); !s) return Result<ExportFiles>::failure(s.error);
        const Graph& g = *in.graph;
        const ShardingPlan& p = *in.plan;
        const int tp = p.mesh.tp;
        std::optional<FoldedGraph> ownFold;
        if (!in.folded) {
            Result<FoldedGraph> f = foldGraph(g);
            if (!f) return Result<ExportFiles>::failure(f.error());
            ownFold = std::move(*f);
        }
        const Result<MegatronGpt> gpt = readMegatronGpt(g, in.folded ? *in.folded : *ownFold);
        if (!gpt) return Result<ExportFiles>::failure(gpt.error());
        const MegatronGpt& m = *gpt;
        std::vector<std::string> problems;
        int seqSplit = 0, seqWhole = 0;
        if (tp > 1) {
            const std::vector<MegatronRole> roles = megatronRoles(g);
            for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
                if (!takesMegatronRole(roles[size_t(n)], p.nodes[size_t(n)]))
                    problems.push_back(commentSafeNodeLabel(g, n) + " runs '" + p.nodes[size_t(n)].name + "' where Megatron-LM runs it '" +
                                       megatronRoleName(roles[size_t(n)]) + "'");
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
        if (m.heads % tp != 0)
            return Result<ExportFiles>::failure("Megatron-LM needs the tensor-parallel degree to divide the attention heads, and " +
                                                std::to_string(tp) + " does not divide " + std::to_string(m.heads));
        if (m.batch % p.mesh.dp != 0)
            return Result<ExportFiles>::failure("the batch of " + std::to_string(m.batch) + " does not split over " +
                                                std::to_string(p.mesh.dp) + " data-parallel replicas");
        // Pipeline stages (plan file version 2): Megatron-LM splits the layers evenly over the
        // pipeline ranks (and over virtual stages when interleaved), recomputes with one
        // granularity for all of them, and shards optimizer state with its distributed optimizer.
        const PipelineSchedule& pipe = p.pipeline;
        const int pp = std::max(1, p.mesh.pp);
        int64_t microBatch = m.batch / p.mesh.dp;
        if (pipe.staged() && pipe.microBatchSize > 0) microBatch = pipe.microBatchSize;
        Recompute recompute = Recompute::None;
        bool mixedRecompute = false;
        for (const PipelineStage& st : pipe.stages) {
            if (st.recompute != pipe.stages.front().recompute) mixedRecompute = true;
            if (int(st.recompute) > int(recompute)) recompute = st.recompute;
        }
        if (pp > 1 && m.layers % (int64_t(pp) * std::max(1, pipe.virtualStages)) != 0)
            return Result<ExportFiles>::failure("Megatron-LM splits the " + std::to_string(m.layers) +
                                                " layers evenly over pipeline size " + std::to_string(pp) + " x " +
                                                std::to_string(std::max(1, pipe.virtualStages)) +
                                                " virtual stages, and they do not divide them");
        // Megatron-LM pads the vocabulary to a multiple of --make-vocab-size-divisible-by x tp.
        // A plan that pads the word table itself gets the smallest divisor that pads it to the
        // plan's rows (1 for the next multiple of tp), so both train the same table; otherwise
        // Megatron-LM's default of 128.
        int64_t divisor = kMegatronVocabDivisor;
        int64_t padded = megatronPaddedVocab(m.vocab, tp);
        for (const TablePadding& t : p.padding) {
            if (t.rows != m.vocab || !isLookupTable(g, t.table)) continue;
            for (int64_t d = 1; d * tp <= t.paddedRows; ++d)
                if ((m.vocab + d * tp - 1) / (d * tp) * (d * tp) == t.paddedRows) {
                    divisor = d;
                    break;
                }
            padded = t.paddedRows;
        }
        const std::string world = std::to_string(p.mesh.size());
        auto arg = [](const std::string& flag, int64_t v) { return "    " + flag + " " + std::to_string(v) + "\n"; };
        std::string s = "#!/usr/bin/env bash\n";
        s += "# shellcheck disable=SC2034  # the variables are for the script that sources this file\n";
        s += exportHeader(in, name(), "# ");
        s += "#\n# Megatron-LM arguments for this plan (flag names as megatron/training/arguments.py defines them):\n";
        s += "# a GPT of " + std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) + ", " +
             std::to_string(m.heads) + " heads, sequence " + std::to_string(m.seq) + ", vocabulary " + std::to_string(m.vocab) +
             (divisor == kMegatronVocabDivisor ? " (Megatron-LM pads it to " : " (the plan pads it, and Megatron-LM with it, to ") +
             std::to_string(padded) + ", a multiple of " + std::to_string(divisor) + " x tp " + std::to_string(tp) + ");\n";
        s += "# world size " + world + " = tensor parallel " + std::to_string(tp) + " x pipeline " + std::to_string(pp) +
             " x data parallel " + std::to_string(p.mesh.dp) +
             " (Megatron-LM derives the data-parallel size from the world size), " + std::to_string(m.batch) +
             " samples a step = micro-batch " + std::to_string(microBatch) + " x " +
             std::to_string(m.batch / p.mesh.dp / std::max<int64_t>(microBatch, 1)) + " micro-batches x " +
             std::to_string(p.mesh.dp) + " replicas.\n";
        if (mixedRecompute)
            s += "# The plan recomputes differently per pipeline rank; Megatron-LM takes one granularity for all,\n"
                 "# so the most recomputing one (" + std::string(recomputeName(recompute)) + ") is written: it needs no more memory.\n";
        s += "# Mock data and the null tokenizer let it run without a dataset; for real data replace them\n";
        s += "# (--data-path, --tokenizer-type, ...). --lr is a starting value, not part of the plan.\n";
        if (m.maxPositions == 0)
            s += "# The model has no learned position table: positions are left out (--position-embedding-type none);\n"
                 "# rotary or other position encodings are not recognised from the graph.\n";
        s += "# Use:\n#   source megatron_args.sh\n";
        s += "#   torchrun --nproc-per-node <GPUs per node> --nnodes <nodes> pretrain_gpt.py \"${MEGATRON_ARGS[@]}\"\n";
        s += "MEGATRON_WORLD_SIZE=" + world + "\n";
        s += "MEGATRON_DATA_PARALLEL_SIZE=" + std::to_string(p.mesh.dp) + "\n";
        s += "MEGATRON_MODEL_ARGS=(\n";
        s += arg("--num-layers", m.layers);
        s += arg("--hidden-size", m.hidden);
        s += arg("--num-attention-heads", m.heads);
        if (m.ffn > 0) s += arg("--ffn-hidden-size", m.ffn);
        s += arg("--seq-length", m.seq);
        s += arg("--max-position-embeddings", m.maxPositions > 0 ? m.maxPositions : m.seq);
        if (m.maxPositions == 0) s += "    --position-embedding-type none\n";
        if (!m.tiedHead) s += "    --untie-embeddings-and-output-weights\n";
        s += "    --tokenizer-type NullTokenizer\n";
        s += arg("--vocab-size", m.vocab);
        s += arg("--make-vocab-size-divisible-by", divisor);
        s += ")\n";
        s += "MEGATRON_PARALLEL_ARGS=(\n";
        s += arg("--tensor-model-parallel-size", tp);
        s += arg("--pipeline-model-parallel-size", pp);
        if (pp > 1 && pipe.virtualStages > 1)
            s += arg("--num-layers-per-virtual-pipeline-stage", m.layers / (int64_t(pp) * pipe.virtualStages));
        if (recompute == Recompute::Selective) s += "    --recompute-granularity selective\n";
        if (recompute == Recompute::Full)
            s += "    --recompute-granularity full\n    --recompute-method uniform\n    --recompute-num-layers 1\n";
        if (pipe.distributedOptimizer) s += "    --use-distributed-optimizer\n";
        if (seqSplit > 0) s += "    --sequence-parallel\n";
        s += ")\n";
        s += "MEGATRON_TRAINING_ARGS=(\n";
        s += arg("--micro-batch-size", microBatch);
        s += arg("--global-batch-size", m.batch);
        s += arg("--train-iters", o.steps);
        s += "    --lr 1.0e-4\n";
        s += "    --fp16\n";
        s += "    --mock-data\n";
        s += ")\n";
        s += "MEGATRON_ARGS=(\"${MEGATRON_MODEL_ARGS[@]}\" \"${MEGATRON_PARALLEL_ARGS[@]}\" \"${MEGATRON_TRAINING_ARGS[@]}\")\n";
        return ExportFiles{{"megatron_args.sh", s}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makeMegatronExporter() { return std::make_unique<MegatronExporter>(); }

} // namespace tapas
