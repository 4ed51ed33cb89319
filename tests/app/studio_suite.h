#pragma once
// What the studio's GUI suites do around their cases: settings of the suite's own, a main window
// on screen, and a model opened in it.
#include "app/studio/main_window.h"

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

namespace tapas::testing {

// QSettings of this suite's own: QStandardPaths' test mode, the organisation "TapasTest" and the
// application "<suite>-<pid>", so the same suite running at the same time in another build tree
// never reads or clears this one's window state. Empty from construction; the file is removed
// on destruction (a member of the test object goes before the application does).
class SuiteSettings {
public:
    explicit SuiteSettings(const char* suite)
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TapasTest"));
        QCoreApplication::setApplicationName(
            QStringLiteral("%1-%2").arg(QLatin1String(suite)).arg(QCoreApplication::applicationPid()));
        QSettings().clear();
    }
    ~SuiteSettings()
    {
        const QString file = QSettings().fileName();
        QSettings().clear();
        QFile::remove(file);
    }
    SuiteSettings(const SuiteSettings&) = delete;
    SuiteSettings& operator=(const SuiteSettings&) = delete;
};

// Resizes `w`, shows it and waits until the window system has exposed it.
inline bool showExposed(QWidget& w, QSize size)
{
    w.resize(size);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
}

// Opens `model` in `w` with its symbolic dimensions bound by `dims`; true once modelLoaded() came,
// within `timeoutMs`.
inline bool openAndWait(MainWindow& w, const QString& model, int timeoutMs, const DimBindings& dims = {})
{
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openModel(model, dims);
    return loaded.wait(timeoutMs);
}

} // namespace tapas::testing
