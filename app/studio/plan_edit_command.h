#pragma once
// One user edit of the plan on PlanSession's QUndoStack: it holds the PlanChange the editor
// reported, so undo re-applies the strategies the nodes had before and redo the ones they got.
// The edit is already applied when the command is pushed, so its first redo() does nothing.
#include "core/plan/plan_editor.h"

#include <QUndoCommand>

namespace tapas {

class PlanSession;

class PlanEditCommand : public QUndoCommand {
public:
    // `overriddenBefore`: the nodes the user had overridden before this edit, so undo can drop
    // the override marks the edit added.
    PlanEditCommand(PlanSession* session, PlanChange change, std::vector<NodeId> overriddenBefore,
                    const QString& text);

    void undo() override;
    void redo() override;

    const PlanChange& change() const { return change_; }

private:
    void applyStrategies(const std::vector<StrategyOverride>& strategies);

    PlanSession* session_;
    PlanChange change_;
    std::vector<NodeId> overriddenBefore_; // sorted
    bool applied_ = true; // pushed after the editor applied it
};

} // namespace tapas
