// The Megatron-LM expert plan on the same cost model, as Megatron-LM trains the model (vocabulary
// padded, tp dividing the heads): weight products and the embedding get
// their Megatron roles; every other op takes the cheapest layout that follows from them.
#include "core/search/attention_heads.h"
#include "core/search/block_search.h"
#include "core/search/megatron_roles.h"
#include "core/search/searcher_factories.h"

namespace tapas {

namespace {

class MegatronSearcher : public Searcher {
public:
    std::string name() const override { return "megatron"; }
    std::string description() const override { return "Megatron-LM: column/row-parallel pairs, vocab-parallel embedding"; }
    Result<SearchResult> search(const SearchRequest& request) const override
    {
        if (Status s = validateRequest(request); !s) return Result<SearchResult>::failure(s.error);
        // Megatron-LM gives each rank num_attention_heads / tp whole heads (attention.py divides
        // them and asserts), so a degree that does not divide the heads is no Megatron-LM run.
        const int tp = request.mesh.tp;
        if (const std::optional<AttentionHeads> h = tp > 1 ? attentionHeads(*request.graph) : std::nullopt;
            h && h->heads % tp != 0)
            return Result<SearchResult>::failure("Megatron-LM needs the tensor-parallel degree to divide the attention heads, and " +
                                                 std::to_string(tp) + " does not divide the " + std::to_string(h->heads) +
                                                 " heads of " + nodeLabel(*request.graph, h->reshape));
        // Megatron-LM's padded vocabulary: the plan is costed on the model as it would train it.
        const Graph padded = megatronPaddedGraph(*request.graph, tp);
        SearchRequest onPadded = request;
        onPadded.graph = &padded;
        return foldAndSearchBlocks(*this, onPadded);
    }
    // The block search's rules: the roles of the graph it is given (the padded one from search()).
    std::optional<DpConfig> blockConfig(const SearchRequest& request) const override
    {
        const std::vector<MegatronRole> roles = megatronRoles(*request.graph);
        DpConfig config;
        config.beam = request.beam;
        config.allow = [roles](NodeId n, const OpStrategy& s) { return takesMegatronRole(roles[size_t(n)], s); };
        return config;
    }
};

} // namespace

std::unique_ptr<Searcher> makeMegatronSearcher() { return std::make_unique<MegatronSearcher>(); }

} // namespace tapas
