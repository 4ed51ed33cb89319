// tapas-studio-bench: time from "open this file" to the first folded graph on screen, in the
// real main window (import, summary and fold on the worker thread, Graphviz layout on another,
// scene building and painting on the GUI thread), plus the longest GUI-thread stall meanwhile.
// Run: build/bin/tapas-studio-bench [--repeats N]   (offscreen unless a display is set)
#include "app/studio/main_window.h"
#include "core/zoo/zoo.h"
#include "tests/bench/bench_models.h"
#include "views/graph/graph_view.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace {

struct Case {
    QString label;
    QString path;
};

struct Result {
    bool ok = false;
    double firstPaintS = 0;
    double maxStallMs = 0;
    int items = 0;
};

Result measure(const QString& path)
{
    Result r;
    tapas::MainWindow window;
    window.resize(1400, 900);
    window.show();
    QCoreApplication::processEvents();

    QElapsedTimer clock;
    QElapsedTimer gap;
    double maxGap = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        maxGap = std::max(maxGap, double(gap.nsecsElapsed()) / 1e6);
        gap.restart();
    });

    QEventLoop loop;
    bool failed = false;
    QObject::connect(&window, &tapas::MainWindow::loadFailed, &loop, [&] { failed = true; loop.quit(); });
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    QMetaObject::Connection applied;

    clock.start();
    gap.start();
    ticker.start();
    timeout.start(120000);
    // The graph view exists once the window is built; its first layoutApplied is the first paint.
    tapas::GraphView* view = window.findChild<tapas::GraphView*>();
    if (!view) {
        std::fprintf(stderr, "tapas-studio-bench: the main window has no graph view\n");
        return r;
    }
    applied = QObject::connect(view, &tapas::GraphView::layoutApplied, &loop, [&] {
        view->viewport()->repaint(); // the paint itself belongs to "first paint"
        loop.quit();
    });
    window.openModel(path);
    loop.exec();
    ticker.stop();
    QObject::disconnect(applied);
    if (failed || !timeout.isActive()) return r;
    r.ok = true;
    r.firstPaintS = double(clock.nsecsElapsed()) / 1e9;
    r.maxStallMs = maxGap;
    r.items = int(view->scene() ? view->scene()->items().size() : 0);
    return r;
}

QString writeGpt(const QTemporaryDir& dir, int layers)
{
    tapas::ZooOptions o;
    o.layers = layers;
    const QString path = dir.filePath(QStringLiteral("gpt%1.onnx").arg(layers));
    const tapas::Status s = tapas::writeZooModel("gpt", o, path.toStdString());
    if (!s) std::fprintf(stderr, "tapas-studio-bench: %s\n", s.error.c_str());
    return s ? path : QString();
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // Keep the user's settings (recent files, window state) out of the measurement.
    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("tapas-bench"));

    int repeats = 3;
    std::string modelsOption;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--repeats") && i + 1 < args.size()) repeats = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--models") && i + 1 < args.size()) modelsOption = args[++i].toStdString();
        else {
            std::fprintf(stderr, "usage: tapas-studio-bench [--repeats N] [--models DIR]\n");
            return 2;
        }
    }
    QTemporaryDir dir;
    QList<Case> cases = {{QStringLiteral("zoo gpt 12 layers"), writeGpt(dir, 12)},
                         {QStringLiteral("zoo gpt 96 layers"), writeGpt(dir, 96)}};
    // A real model that cannot be found is a failed row, said with where it was looked for.
    int failures = 0;
    const tapas::Result<std::string> modelsDir =
        tapas::bench::findModelsDir(modelsOption, QCoreApplication::applicationFilePath().toStdString());
    if (!modelsDir) {
        std::fprintf(stderr, "tapas-studio-bench: %s\n", modelsDir.error().c_str());
        ++failures;
    }
    for (const char* real : {"bert_mini_4l.onnx", "resnet18.onnx"}) {
        if (!modelsDir) break;
        const QString p = QDir(QString::fromStdString(*modelsDir)).filePath(QLatin1String(real));
        if (QFileInfo::exists(p)) {
            cases.push_back({QStringLiteral("real %1").arg(QLatin1String(real)), p});
        } else {
            std::fprintf(stderr, "tapas-studio-bench: %s not found\n", qPrintable(p));
            ++failures;
        }
    }
    std::printf("Time to first folded paint in tapas-studio (best of %d, platform %s)\n", repeats,
                qPrintable(QGuiApplication::platformName()));
    std::printf("(open -> import + fold on a worker thread -> Graphviz layout -> scene drawn; stall = longest\n"
                " gap of a 10 ms GUI-thread timer meanwhile, worst over the runs)\n\n");
    std::printf("%-26s %12s %12s %12s\n", "model", "first paint", "max stall", "scene items");
    for (const Case& c : cases) {
        if (c.path.isEmpty()) { ++failures; continue; }
        Result best;
        double worstStall = 0;
        for (int i = 0; i < repeats; ++i) {
            const Result r = measure(c.path);
            if (!r.ok) { best.ok = false; break; }
            worstStall = std::max(worstStall, r.maxStallMs);
            if (!best.ok || r.firstPaintS < best.firstPaintS) best = r;
        }
        if (!best.ok) {
            std::printf("%-26s failed\n", qPrintable(c.label));
            ++failures;
            continue;
        }
        std::printf("%-26s %10.3f s %9.1f ms %12d\n", qPrintable(c.label), best.firstPaintS, worstStall, best.items);
    }
    return failures ? 1 : 0;
}
