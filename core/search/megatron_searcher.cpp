// The Megatron-LM expert plan on the same cost model: weight products and the embedding get
// their Megatron roles; every other op takes the cheapest layout that follows from them.
#include "core/search/block_search.h"
#include "core/search/megatron_roles.h"
#include "core/search/searcher_factories.h"

namespace tapas {

namespace {

class MegatronSearcher : public Searcher {
public:
    std::string name() const override { return "megatron"; }
    std::string description() const override { return "Megatron-LM: column/row-parallel pairs, vocab-parallel embedding"; }
    Result<SearchResult> search(const SearchRequest& request) const override { return foldAndSearchBlocks(*this, request); }
    std::optional<DpConfig> blockConfig(const SearchRequest& request) const override
    {
        const std::vector<MegatronRole> roles = megatronRoles(*request.graph);
        DpConfig config;
        config.beam = request.beam;
        config.allow = [roles](NodeId n, const OpStrategy& s) {
            switch (roles[size_t(n)]) {
            case MegatronRole::Column: return s.name == "column";
            case MegatronRole::Row: return s.name == "row";
            case MegatronRole::VocabEmbedding: return s.name == "vocab";
            case MegatronRole::ReplicatedWeight: return s.name == "replicate";
            case MegatronRole::None: return true;
            }
            return true;
        };
        return config;
    }
};

} // namespace

std::unique_ptr<Searcher> makeMegatronSearcher() { return std::make_unique<MegatronSearcher>(); }

} // namespace tapas
