#include "app/studio/costs_dock.h"

#include "app/studio/plan_session.h"

#include <QEvent>

namespace tapas {

CostsDock::CostsDock(PlanSession* session, QWidget* parent)
    : QDockWidget(parent), session_(session), view_(new CostsView(this))
{
    setObjectName(QStringLiteral("costsDock")); // saveState/restoreState key
    setWidget(view_);
    setAllowedAreas(Qt::AllDockWidgetAreas);
    connect(session_, &PlanSession::planChanged, this, &CostsDock::refresh);
    connect(session_, &PlanSession::resultsChanged, this, &CostsDock::refresh);
    retranslateUi();
    refresh();
}

void CostsDock::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QDockWidget::changeEvent(event);
}

void CostsDock::retranslateUi()
{
    setWindowTitle(tr("Costs"));
    showsNothing_ = false; // the empty charts' titles are translated too
    refresh(); // the current plan's label is translated here
}

void CostsDock::refresh()
{
    CostsData data;
    const PlanEditor* editor = session_->editor();
    const int current = session_->currentResult();
    const auto& results = session_->results();
    if (editor && current >= 0 && current < int(results.size())) {
        const CostReport& report = editor->report();
        const QString searcher = QString::fromStdString(results[size_t(current)].searcher);
        PlanCosts p;
        p.label = editor->overrides().empty() ? searcher : tr("%1 (edited)").arg(searcher);
        p.mesh = QString::fromStdString(editor->plan().mesh.toString());
        p.total = report.total;
        p.fits = report.fits;
        p.current = true;
        data.plans.push_back(p);
        data.perBlock = report.perBlock;
        data.folded = session_->folded();
        data.memoryLimit = session_->cluster().memoryBytes;
        data.pipeline = editor->plan().pipeline;
        data.pipelineRanks = editor->plan().mesh.pp;
    }
    for (int i = 0; i < int(results.size()); ++i) {
        if (i == current && editor) continue;
        const SearchResult& r = results[size_t(i)];
        data.plans.push_back({QString::fromStdString(r.searcher), QString::fromStdString(r.best.plan.mesh.toString()),
                              r.best.report.total, r.best.report.fits, false});
    }
    // Opening a model clears the results twice over (results, then plan): rebuilding the empty
    // charts each time cost the GUI thread 40-80 ms per open.
    if (data.plans.empty() && showsNothing_) return;
    showsNothing_ = data.plans.empty();
    view_->setData(std::move(data));
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_costs_dock.cpp"
