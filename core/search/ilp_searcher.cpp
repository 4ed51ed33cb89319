// The exact optimum of the unfolded graph as an integer linear program, Alpa's auto-sharding
// formulation: one binary choice per node and strategy, an edge variable per (producer choice,
// consumer choice) pair that pays the resharding, and the memory limit as a constraint. The
// report's plan-wide terms (a shared weight's one cost, DDP's bucketed, overlapped gradient sync)
// are rows too (ilp_plan_terms.h), so a proven optimum is the optimum of the report's total.
// Solved by CBC (Debian's coinor-libcbc-dev) with a time limit reported when hit. Same cost model
// and strategies as the DP searchers, so their results compare exactly.
#include "core/search/block_search.h"
#include "core/search/ilp_plan_terms.h"
#include "core/search/searcher_factories.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

#if TAPAS_HAVE_CBC
#include <Cbc_C_Interface.h>
#endif

namespace tapas {

namespace {

#if TAPAS_HAVE_CBC
// The constant part of the report's step time (the solver's objective leaves it out).
double constantTime(const IlpModel& m)
{
    return m.constant.time() - (m.syncByRows ? m.constant.dpComm : 0);
}

std::string seconds(double s)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", s);
    return b;
}
#endif

class IlpSearcher : public Searcher {
public:
    std::string name() const override { return "ilp"; }
    std::string description() const override { return "exact ILP over the unfolded graph (Alpa formulation, CBC)"; }
    Result<SearchResult> search(const SearchRequest& request) const override
    {
        if (Status s = validateRequest(request); !s) return Result<SearchResult>::failure(s.error);
#if TAPAS_HAVE_CBC
        return solve(request);
#else
        return Result<SearchResult>::failure("ilp: this build has no MILP solver (install coinor-libcbc-dev and reconfigure)");
#endif
    }

#if TAPAS_HAVE_CBC
private:
    static Result<SearchResult> solve(const SearchRequest& request)
    {
        const auto start = std::chrono::steady_clock::now();
        const Graph& g = *request.graph;
        CostModel model(g, request.cluster, request.mesh, request.cost);
        DpConfig config;
        config.fixed = fixedStrategies(request);
        StrategyTable table(g, model, config);
        // The time limit covers the whole search, model building included, not just CBC's clock.
        const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
        const auto outOfTime = [&](const std::string& stage) {
            return Result<SearchResult>::failure("ilp: time limit of " + seconds(request.ilpTimeLimit) + " s hit while " +
                                                 stage + " (" + seconds(elapsed()) + " s spent); no plan");
        };
        const double limit = request.memoryLimit > 0 ? request.memoryLimit : request.cluster.memoryBytes;
        IlpModel program;
        std::vector<int> firstCol(g.nodes.size());
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            if ((n & 255) == 0 && (elapsed() > request.ilpTimeLimit || request.progress.cancelled())) {
                if (request.progress.cancelled()) return Result<SearchResult>::failure("ilp search cancelled");
                return outOfTime("building the model's choice variables");
            }
            firstCol[size_t(n)] = int(program.columns.size());
            std::vector<int> row;
            for (int s : table.allowed(n)) {
                CostTerms terms = table.cost(n, s);
                const OpStrategy& st = table.strategy(n, s);
                for (size_t o = 0; o < g.node(n).outputs.size(); ++o) { // a graph output left partial is reduced at the end
                    const TensorId t = g.node(n).outputs[o];
                    if (t != kNoTensor && st.outputs[o].kind == TensorLayout::P &&
                        std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end())
                        terms += model.reshardCost(t, st.outputs[o], TensorLayout::replicated());
                }
                row.push_back(program.addColumn(0, 1, true, terms));
            }
            program.addRow(row, std::vector<double>(row.size(), 1.0), 'E', 1);
        }
        // Edge variables: y >= x_pa + x_cb - 1 wherever that pair of choices reshards.
        for (NodeId c = 0; c < NodeId(g.nodes.size()); ++c) {
            if ((c & 255) == 0 && (elapsed() > request.ilpTimeLimit || request.progress.cancelled())) {
                if (request.progress.cancelled()) return Result<SearchResult>::failure("ilp search cancelled");
                return outOfTime("building the model's resharding variables");
            }
            const Node& node = g.node(c);
            for (size_t i = 0; i < node.inputs.size(); ++i) {
                const TensorId t = node.inputs[i];
                if (!tracksLayout(g, t)) continue;
                const NodeId p = g.tensor(t).producer;
                size_t o = 0;
                while (g.node(p).outputs[o] != t) ++o;
                const std::vector<int>& pa = table.allowed(p);
                const std::vector<int>& cb = table.allowed(c);
                for (size_t a = 0; a < pa.size(); ++a)
                    for (size_t b = 0; b < cb.size(); ++b) {
                        const TensorLayout from = table.strategy(p, pa[a]).outputs[o], to = table.strategy(c, cb[b]).inputs[i];
                        if (from == to) continue;
                        const CostTerms cost = model.reshardCost(t, from, to);
                        if (cost.time() <= 0) continue;
                        const int y = program.addColumn(0, 1, false, cost);
                        program.addRow({y, firstCol[size_t(p)] + int(a), firstCol[size_t(c)] + int(b)}, {1, -1, -1}, 'G', -1);
                    }
            }
        }
        // What the report adds over the nodes' sum, so that the objective is the report's total.
        if (elapsed() > request.ilpTimeLimit) return outOfTime("building the model's resharding variables");
        addSharedWeightTerms(program, model, table, firstCol);
        addGradientSyncTerms(program, model);
        if (elapsed() > request.ilpTimeLimit) return outOfTime("building the model's plan-wide terms");
        std::vector<int> memCols;
        std::vector<double> memCoefs;
        for (int col = 0; col < int(program.columns.size()); ++col)
            if (program.columns[size_t(col)].terms.memory() != 0) {
                memCols.push_back(col);
                memCoefs.push_back(program.columns[size_t(col)].terms.memory());
            }
        program.addRow(std::move(memCols), std::move(memCoefs), 'L', limit - program.constant.memory());
        // One bulk load, column-major (adding rows one at a time copies the matrix each time).
        const int cols = int(program.columns.size());
        std::vector<CoinBigIndex> colStart(size_t(cols) + 1, 0);
        for (const IlpModel::Row& row : program.rows)
            for (int c : row.cols) ++colStart[size_t(c) + 1];
        for (int c = 0; c < cols; ++c) colStart[size_t(c) + 1] += colStart[size_t(c)];
        std::vector<int> index(size_t(colStart.back()));
        std::vector<double> value(size_t(colStart.back()));
        std::vector<CoinBigIndex> fill(colStart.begin(), colStart.end() - 1);
        std::vector<double> rowLo, rowHi;
        constexpr double kInf = std::numeric_limits<double>::max();
        for (int r = 0; r < int(program.rows.size()); ++r) {
            const IlpModel::Row& row = program.rows[size_t(r)];
            for (size_t k = 0; k < row.cols.size(); ++k) {
                const CoinBigIndex at = fill[size_t(row.cols[k])]++;
                index[size_t(at)] = r;
                value[size_t(at)] = row.coefs[k];
            }
            rowLo.push_back(row.sense == 'L' ? -kInf : row.rhs);
            rowHi.push_back(row.sense == 'G' ? kInf : row.rhs);
        }
        std::vector<double> colLo, colHi, colObjective;
        for (int c = 0; c < cols; ++c) {
            colLo.push_back(program.columns[size_t(c)].lo);
            colHi.push_back(program.columns[size_t(c)].hi);
            colObjective.push_back(program.objective(c) * IlpModel::kTimeScale);
        }
        Cbc_Model* m = Cbc_newModel();
        Cbc_setLogLevel(m, 0);
        Cbc_loadProblem(m, cols, int(program.rows.size()), colStart.data(), index.data(), value.data(), colLo.data(), colHi.data(),
                        colObjective.data(), rowLo.data(), rowHi.data());
        for (int c = 0; c < cols; ++c)
            if (program.columns[size_t(c)].integer) Cbc_setInteger(m, c);
        const double remaining = request.ilpTimeLimit - elapsed();
        if (remaining <= 0) {
            Cbc_deleteModel(m);
            return outOfTime("building the model");
        }
        Cbc_setMaximumSeconds(m, remaining);
        Cbc_solve(m);
        const bool optimal = Cbc_isProvenOptimal(m);
        // CBC checks its clock between nodes and may run a little past it; the wall time decides.
        const bool timeLimit = Cbc_isSecondsLimitReached(m) || (!optimal && elapsed() >= request.ilpTimeLimit);
        const double* x = Cbc_numberSavedSolutions(m) > 0 || optimal ? Cbc_getColSolution(m) : nullptr;
        const double objective = x ? Cbc_getObjValue(m) / IlpModel::kTimeScale + constantTime(program) : 0;
        if (!x) {
            Cbc_deleteModel(m);
            if (timeLimit) return outOfTime("solving, before CBC found a plan");
            return Result<SearchResult>::failure("ilp: no plan fits the memory limit");
        }
        std::vector<int> choices(g.nodes.size(), 0);
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            const std::vector<int>& allowed = table.allowed(n);
            for (size_t s = 0; s < allowed.size(); ++s)
                if (x[firstCol[size_t(n)] + int(s)] > 0.5) choices[size_t(n)] = allowed[s];
        }
        Cbc_deleteModel(m);
        SearchResult r;
        r.searcher = "ilp";
        r.best = makeCandidate(table, choices, nullptr);
        r.feasible = r.best.report.total.memory() <= limit;
        r.optimal = optimal;
        r.solverObjective = objective;
        r.timeLimitHit = timeLimit;
        r.warnings = table.warnings();
        r.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return r;
    }
#endif
};

} // namespace

std::unique_ptr<Searcher> makeIlpSearcher() { return std::make_unique<IlpSearcher>(); }

} // namespace tapas
