// tapas-studio-bench: time from "open this file" to the first folded graph on screen, in the
// real main window (import, summary and fold on the worker thread, the layout on another, scene
// building and painting on the GUI thread), the longest GUI-thread stall meanwhile, the scene's
// items and the process's peak memory; then expanding and collapsing the largest block (twice:
// the second instance reuses its class's layout), and closing a window while it still loads.
// Run: build/bin/tapas-studio-bench [--repeats N] [--models DIR] [MODEL...]
//   MODEL: an .onnx file, or gpt:N for a zoo GPT of N layers. Without models: the built-in cases.
// (offscreen unless a display is set)
#include "app/studio/main_window.h"
#include "core/zoo/zoo.h"
#include "tests/bench/bench_models.h"
#include "core/layout/part_layout_cache.h"
#include "views/graph/graph_scene.h"
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
#include <ctime>
#include <fstream>
#include <malloc.h>
#include <string>

namespace {

struct Case {
    QString label;
    QString path;
};

struct Result {
    bool ok = false;
    double firstPaintS = 0;
    double maxStallMs = 0;
    double maxBusyMs = 0; // the GUI thread's own CPU within its longest-working gap
    int items = 0;
    int boxes = 0;
    double peakMb = 0;
    double expandMs = -1;      // the first instance of the largest class
    double expandAgainMs = -1; // another instance of it: its class's layout is reused
    double collapseMs = -1;
    double expandStallMs = 0;
    double expandBusyMs = 0;
    int expandedBoxes = 0;
    // Every box of the folded picture (up to kMaxSweep of them, evenly spread) expanded and
    // collapsed again, one at a time: the slowest of each, and the longest GUI stall meanwhile.
    int swept = 0;
    double worstExpandMs = -1;
    double worstCollapseMs = -1;
    double sweepStallMs = 0;
    double sweepBusyMs = 0;
    QString worstBox;
};

constexpr int kMaxSweep = 40;

// Resets the kernel's peak-resident counter (VmHWM) for this process, so that each model's
// peak is its own and not an earlier model's.
void resetPeakMemory()
{
    malloc_trim(0); // hand what earlier models freed back to the system first
    std::ofstream("/proc/self/clear_refs") << "5";
}

double peakMemoryMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

// The GUI thread's watchdog: a 10 ms timer on it records the longest gap between its ticks (the
// stall a user feels) and the most CPU the GUI thread itself used within one gap (its own work;
// on a loaded machine a gap can also be time the thread waited for a core).
class StallWatch {
public:
    StallWatch()
    {
        ticker_.setInterval(10);
        QObject::connect(&ticker_, &QTimer::timeout, [this] { tick(); });
    }
    void start()
    {
        maxGapMs = maxBusyMs = 0;
        gap_.start();
        cpuMs_ = threadCpuMs();
        ticker_.start();
    }
    void stop()
    {
        tick();
        ticker_.stop();
    }
    double maxGapMs = 0;
    double maxBusyMs = 0;

private:
    static double threadCpuMs()
    {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
    }
    void tick()
    {
        const double cpu = threadCpuMs();
        maxGapMs = std::max(maxGapMs, double(gap_.nsecsElapsed()) / 1e6);
        maxBusyMs = std::max(maxBusyMs, cpu - cpuMs_);
        gap_.restart();
        cpuMs_ = cpu;
    }
    QTimer ticker_;
    QElapsedTimer gap_;
    double cpuMs_ = 0;
};

// Runs the event loop until `view` applies a layout, or `ms` pass. Returns the time taken, or -1.
double waitForLayout(tapas::GraphView* view, int ms)
{
    QEventLoop loop;
    QElapsedTimer clock;
    clock.start();
    bool applied = false;
    auto c = QObject::connect(view, &tapas::GraphView::layoutApplied, &loop, [&] {
        applied = true;
        view->viewport()->repaint();
        loop.quit();
    });
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(c);
    return applied ? double(clock.nsecsElapsed()) / 1e6 : -1;
}

// The collapsed box whose block holds the most nodes, and another instance of its class.
std::pair<tapas::InstanceKey, tapas::InstanceKey> largestBlock(const tapas::GraphView& view)
{
    tapas::InstanceKey best, other;
    int most = -1;
    const auto& folded = view.folded();
    for (const tapas::VisualItem& v : view.presentation().items()) {
        if (v.kind != tapas::VisualItem::Kind::Block || !folded) continue;
        const tapas::BlockClass& c = folded->classes[size_t(v.classId)];
        if (c.nodesPerInstance > most) {
            most = c.nodesPerInstance;
            best = {v.classId, v.instance};
        }
    }
    // Another box of the same class: an instance, or a section of a long run.
    if (most >= 0)
        for (const tapas::VisualItem& v : view.presentation().items())
            if (v.kind == tapas::VisualItem::Kind::Block && v.classId == best.classId && v.instance != best.instance &&
                tapas::InstanceKey{v.classId, v.instance}.isSection() == best.isSection()) {
                other = {v.classId, v.instance};
                break;
            }
    return {best, other};
}

Result measure(const QString& path)
{
    Result r;
    resetPeakMemory();
    tapas::MainWindow window;
    window.resize(1400, 900);
    window.show();
    QCoreApplication::processEvents();

    QElapsedTimer clock;
    StallWatch watch;

    QEventLoop loop;
    bool failed = false;
    QObject::connect(&window, &tapas::MainWindow::loadFailed, &loop, [&] { failed = true; loop.quit(); });
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    QMetaObject::Connection applied;

    clock.start();
    watch.start();
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
    watch.stop();
    QObject::disconnect(applied);
    if (failed || !timeout.isActive()) return r;
    r.ok = true;
    r.firstPaintS = double(clock.nsecsElapsed()) / 1e9;
    r.maxStallMs = watch.maxGapMs;
    r.maxBusyMs = watch.maxBusyMs;
    r.items = int(view->scene() ? view->scene()->items().size() : 0);
    r.boxes = view->graphScene()->nodeItemCount() + view->graphScene()->blockItemCount();

    // Expand the largest block, then another instance of its class, then collapse both.
    const auto [first, second] = largestBlock(*view);
    if (first.classId >= 0) {
        watch.start();
        view->expand(first);
        r.expandMs = waitForLayout(view, 30000);
        if (second.classId >= 0) {
            view->expand(second);
            r.expandAgainMs = waitForLayout(view, 30000);
        }
        r.expandedBoxes = view->graphScene()->nodeItemCount() + view->graphScene()->blockItemCount();
        view->collapse(first);
        r.collapseMs = waitForLayout(view, 30000);
        if (second.classId >= 0) {
            view->collapse(second);
            waitForLayout(view, 30000);
        }
        watch.stop();
        r.expandStallMs = watch.maxGapMs;
        r.expandBusyMs = watch.maxBusyMs;
    }
    // Any block, not only the largest: each box of the opening picture in turn.
    std::vector<std::pair<tapas::InstanceKey, QString>> boxes;
    for (const tapas::VisualItem& v : view->presentation().items())
        if (v.kind == tapas::VisualItem::Kind::Block) boxes.push_back({{v.classId, v.instance}, v.title});
    const size_t step = std::max<size_t>(1, (boxes.size() + kMaxSweep - 1) / kMaxSweep);
    watch.start();
    for (size_t i = 0; i < boxes.size(); i += step) {
        view->expand(boxes[i].first);
        const double e = waitForLayout(view, 30000);
        view->collapse(boxes[i].first);
        const double c = waitForLayout(view, 30000);
        if (e < 0 || c < 0) {
            std::fprintf(stderr, "tapas-studio-bench: %s did not expand and collapse within 30 s\n", qPrintable(boxes[i].second));
            r.ok = false;
            break;
        }
        ++r.swept;
        if (e > r.worstExpandMs) {
            r.worstExpandMs = e;
            r.worstBox = boxes[i].second;
        }
        r.worstCollapseMs = std::max(r.worstCollapseMs, c);
    }
    watch.stop();
    r.sweepStallMs = watch.maxGapMs;
    r.sweepBusyMs = watch.maxBusyMs;
    r.peakMb = peakMemoryMb();
    return r;
}

// Opens the model in a fresh window and closes it `afterMs` later, while it still loads or lays
// out: the time the close takes is the time until every background job of the window has ended.
double closeWhileLoading(const QString& path, int afterMs)
{
    auto* window = new tapas::MainWindow;
    window->resize(1400, 900);
    window->show();
    window->openModel(path);
    QEventLoop loop;
    QTimer::singleShot(afterMs, &loop, &QEventLoop::quit);
    loop.exec();
    QElapsedTimer clock;
    clock.start();
    window->close();
    delete window; // waits for the window's worker threads
    return double(clock.nsecsElapsed()) / 1e6;
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
    QStringList models;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--repeats") && i + 1 < args.size()) repeats = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--models") && i + 1 < args.size()) modelsOption = args[++i].toStdString();
        else if (!args[i].startsWith(QLatin1String("--"))) models << args[i];
        else {
            std::fprintf(stderr, "usage: tapas-studio-bench [--repeats N] [--models DIR] [MODEL.onnx | gpt:LAYERS ...]\n");
            return 2;
        }
    }
    QTemporaryDir dir;
    QList<Case> cases;
    int failures = 0;
    for (const QString& m : models) {
        if (m.startsWith(QLatin1String("gpt:"))) {
            bool ok = false;
            const int layers = m.mid(4).toInt(&ok);
            if (!ok || layers < 1) {
                std::fprintf(stderr, "tapas-studio-bench: '%s' is not gpt:LAYERS with LAYERS >= 1\n", qPrintable(m));
                return 2;
            }
            cases.push_back({QStringLiteral("zoo gpt %1 layers").arg(layers), writeGpt(dir, layers)});
        } else if (QFileInfo::exists(m)) {
            cases.push_back({QFileInfo(m).completeBaseName(), m});
        } else {
            std::fprintf(stderr, "tapas-studio-bench: model file '%s' does not exist\n", qPrintable(m));
            return 2;
        }
    }
    if (models.isEmpty()) {
        cases = {{QStringLiteral("zoo gpt 12 layers"), writeGpt(dir, 12)},
                 {QStringLiteral("zoo gpt 96 layers"), writeGpt(dir, 96)}};
        // A real model that cannot be found is a failed row, said with where it was looked for.
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
    }
    std::printf("tapas-studio: first folded paint, expand/collapse and close (best of %d, platform %s)\n", repeats,
                qPrintable(QGuiApplication::platformName()));
    std::printf("first paint: open -> import + fold (worker) -> layout (worker) -> scene drawn; stall/busy: longest\n"
                "gap of a 10 ms GUI-thread timer meanwhile / the most CPU the GUI thread used within one gap (its own work;\n"
                "the rest of a gap is waiting for a core), worst run; boxes/items: drawn boxes / all scene items; peak: the\n"
                "process's peak resident memory for that model (VmHWM, reset before its first run); expand: the largest block\n"
                "(1st instance / 2nd, whose class layout is cached) to its picture on screen, with the GUI stall over\n"
                "the expands and collapse; any box: each box of the opening picture (at most %d, evenly spread) expanded\n"
                "and collapsed in turn, the slowest of each; close: closing a window 300 ms after opening the model,\n"
                "until every background job has ended\n\n", kMaxSweep);
    std::printf("%-24s %10s %15s %12s %8s %15s %9s %15s %9s\n", "model", "1st paint", "stall/busy", "boxes/items", "peak",
                "expand 1st/2nd", "collapse", "stall/busy", "close");
    for (const Case& c : cases) {
        if (c.path.isEmpty()) { ++failures; continue; }
        Result best;
        Result worst; // the longest stalls over the runs
        for (int i = 0; i < repeats; ++i) {
            const Result r = measure(c.path);
            if (!r.ok) { best.ok = false; break; }
            worst.maxStallMs = std::max(worst.maxStallMs, r.maxStallMs);
            worst.maxBusyMs = std::max(worst.maxBusyMs, r.maxBusyMs);
            worst.expandStallMs = std::max(worst.expandStallMs, r.expandStallMs);
            worst.expandBusyMs = std::max(worst.expandBusyMs, r.expandBusyMs);
            worst.sweepStallMs = std::max(worst.sweepStallMs, r.sweepStallMs);
            worst.sweepBusyMs = std::max(worst.sweepBusyMs, r.sweepBusyMs);
            // Peak memory of the first run: later runs would also count what malloc kept.
            const double peak = i == 0 ? r.peakMb : best.peakMb;
            if (!best.ok || r.firstPaintS < best.firstPaintS) best = r;
            best.peakMb = peak;
        }
        if (!best.ok) {
            std::printf("%-24s failed\n", qPrintable(c.label));
            ++failures;
            continue;
        }
        const double closeMs = closeWhileLoading(c.path, 300);
        std::printf("%-24s %8.3f s %5.0f/%-4.0f ms %5d/%-6d %5.0f MB %6.1f/%-5.1f ms %6.1f ms %5.0f/%-4.0f ms %6.1f ms\n",
                    qPrintable(c.label), best.firstPaintS, worst.maxStallMs, worst.maxBusyMs, best.boxes, best.items,
                    best.peakMb, best.expandMs, best.expandAgainMs, best.collapseMs, worst.expandStallMs,
                    worst.expandBusyMs, closeMs);
        std::printf("%-24s any box (%d): expand <= %.1f ms (%s), collapse <= %.1f ms, stall/busy %.0f/%.0f ms\n", "",
                    best.swept, best.worstExpandMs, qPrintable(best.worstBox), best.worstCollapseMs, worst.sweepStallMs,
                    worst.sweepBusyMs);
        std::fflush(stdout);
    }
    return failures ? 1 : 0;
}
