#pragma once
// The Log dock's contents: the session log as a table that follows new entries.
#include "views/log_model.h"

#include <QWidget>

class QTreeView;
class QAction;

namespace tapas {

class LogView : public QWidget {
    Q_OBJECT
public:
    explicit LogView(QWidget* parent = nullptr);

    void info(const QString& message) { add(LogSeverity::Info, message); }
    void warning(const QString& message) { add(LogSeverity::Warning, message); }
    void error(const QString& message) { add(LogSeverity::Error, message); }
    void add(LogSeverity severity, const QString& message);

    LogModel* model() const { return model_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    LogModel* model_;
    QTreeView* view_;
    QAction* clearAction_;
    QAction* copyAction_;
};

} // namespace tapas
