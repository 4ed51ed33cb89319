#pragma once
// The ILP searcher's program before it goes to the solver: columns (bounds, integrality, and the
// cost terms a column's value adds to the plan's report) and linear rows. Kept free of the
// solver's API so the plan-wide terms (ilp_plan_terms.h) are plain code over plain vectors.
#include "core/cost/cost_model.h"

#include <vector>

namespace tapas {

struct IlpModel {
    // Times in rows and in the objective are in microseconds: the solver's absolute tolerances
    // would blur costs in seconds.
    static constexpr double kTimeScale = 1e6;
    struct Column {
        double lo = 0, hi = 1;
        bool integer = false;
        CostTerms terms;      // added to the report's total per unit of the column's value
        double extraTime = 0; // s per unit, outside any term (the exposed gradient sync)
    };
    struct Row {
        std::vector<int> cols;
        std::vector<double> coefs;
        char sense = 'L'; // 'L' <=, 'G' >=, 'E' =
        double rhs = 0;
    };
    std::vector<Column> columns;
    std::vector<Row> rows;
    CostTerms constant; // what every plan pays whatever the choices
    // The gradient sync is modelled by rows (addGradientSyncTerms): the columns' dpComm then
    // feeds those rows and is no longer part of their objective.
    bool syncByRows = false;

    int addColumn(double lo, double hi, bool integer, const CostTerms& terms = {}, double extraTime = 0)
    {
        columns.push_back({lo, hi, integer, terms, extraTime});
        return int(columns.size()) - 1;
    }
    void addRow(std::vector<int> cols, std::vector<double> coefs, char sense, double rhs)
    {
        rows.push_back({std::move(cols), std::move(coefs), sense, rhs});
    }
    // The column's part of the report's step time.
    double objective(int c) const
    {
        const Column& col = columns[size_t(c)];
        return col.terms.time() - (syncByRows ? col.terms.dpComm : 0) + col.extraTime;
    }
};

} // namespace tapas
