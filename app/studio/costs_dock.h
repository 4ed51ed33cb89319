#pragma once
// The Costs dock: the CostsView fed from the PlanSession. The plan under edit (re-costed on every
// edit, undo and redo) is drawn beside the other plans of the last search, so an override's
// effect shows against Megatron, DP and ILP at once.
#include "views/costs/costs_view.h"

#include <QDockWidget>

namespace tapas {

class PlanSession;

class CostsDock : public QDockWidget {
    Q_OBJECT
public:
    CostsDock(PlanSession* session, QWidget* parent = nullptr);

    CostsView* view() const { return view_; }
    // Re-reads the session (connected to its planChanged and resultsChanged).
    void refresh();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    PlanSession* session_;
    CostsView* view_;
    bool showsNothing_ = false; // the view shows empty charts already
};

} // namespace tapas
