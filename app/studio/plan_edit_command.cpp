#include "app/studio/plan_edit_command.h"

#include "app/studio/plan_session.h"

#include <algorithm>

namespace tapas {

PlanEditCommand::PlanEditCommand(PlanSession* session, PlanChange change, std::vector<NodeId> overriddenBefore,
                                 const QString& text)
    : session_(session), change_(std::move(change)), overriddenBefore_(std::move(overriddenBefore))
{
    std::sort(overriddenBefore_.begin(), overriddenBefore_.end());
    setText(text);
}

void PlanEditCommand::undo()
{
    PlanEditor* editor = session_->editor_.get();
    if (!editor) return;
    (void)editor->apply(change_.before);
    // Back to the strategies of before, and to the override marks of before: a node this edit
    // overrode for the first time is the searcher's choice again.
    std::vector<NodeId> fresh;
    for (const StrategyOverride& s : change_.before)
        if (!std::binary_search(overriddenBefore_.begin(), overriddenBefore_.end(), s.node)) fresh.push_back(s.node);
    if (!fresh.empty()) editor->forgetOverrides(fresh);
    applied_ = false;
    session_->notifyEdited();
}

void PlanEditCommand::redo()
{
    if (applied_) return; // QUndoStack::push calls redo(); the editor already made the change
    applyStrategies(change_.after);
    applied_ = true;
}

void PlanEditCommand::applyStrategies(const std::vector<StrategyOverride>& strategies)
{
    PlanEditor* editor = session_->editor_.get();
    if (!editor) return;
    // The strategies were valid when recorded on this very plan, so apply() cannot refuse them;
    // should it, the plan stays as it is and the views still show the truth.
    (void)editor->apply(strategies);
    session_->notifyEdited();
}

} // namespace tapas
