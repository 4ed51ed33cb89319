// tapas-studio: the desktop face of Tapas. `tapas-studio [model.onnx] [--dim name=value ...]`.
#include "app/studio/language_manager.h"
#include "app/studio/docks.h"
#include "app/studio/main_window.h"
#include "app/studio/runs_controller.h"
#include "app/studio/plan_docks.h"
#include "app/studio/plan_session.h"
#include "core/ir/dim_bindings.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"
#include "views/graph/graph_panel.h"
#include "views/runs/runs_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QTreeView>
#include <QTimer>

#include <cstdio>

#ifndef TAPAS_VERSION
#define TAPAS_VERSION "0.1.0"
#endif

namespace {

// --open-run DIR...: the runs in the Runs dock, floated to a size where its charts read well.
bool openRuns(tapas::MainWindow* window, const QStringList& dirs)
{
    QStringList ids;
    for (const QString& dir : dirs) {
        const tapas::Status s = window->runsController()->follow(QFileInfo(dir).absoluteFilePath());
        if (!s) {
            std::fprintf(stderr, "tapas-studio: --open-run %s: %s\n", qPrintable(dir), s.error.c_str());
            return false;
        }
        ids << window->runsPanel()->currentRunId();
    }
    if (ids.size() > 1) window->runsPanel()->selectRuns(ids);
    QDockWidget* dock = window->runsDock();
    dock->setFloating(true);
    dock->resize(1560, 940);
    dock->show();
    dock->raise();
    return true;
}

// --search CLUSTER:MESH: plans the open model with TAPAS and the baselines on the GUI thread
// (for scripts and screenshots; the Search dialog runs the same searchers in the background);
// a mesh DPxPPxTP plans that many pipeline stages (the block searchers; dp plans without them),
// then selects the first MatMul of a repeated block so the Plan dock and graph show it.
bool searchOpenModel(tapas::MainWindow* window, const QString& spec)
{
    tapas::PlanSession* session = window->planSession();
    const qsizetype colon = spec.lastIndexOf(QLatin1Char(':'));
    if (!session->graph() || colon <= 0) {
        std::fprintf(stderr, "tapas-studio: --search %s: expected CLUSTER:MESH, e.g. a100x8:2x4\n", qPrintable(spec));
        return false;
    }
    tapas::Result<tapas::ClusterSpec> cluster = tapas::loadClusterSpec(spec.left(colon).toStdString());
    tapas::Result<tapas::DeviceMesh> mesh = tapas::parseMesh(spec.mid(colon + 1).toStdString());
    if (!cluster || !mesh) {
        std::fprintf(stderr, "tapas-studio: --search %s: %s\n", qPrintable(spec),
                     (!cluster ? cluster.error() : mesh.error()).c_str());
        return false;
    }
    tapas::SearchRequest request;
    request.graph = session->graph().get();
    request.cluster = *cluster;
    request.mesh = *mesh;
    tapas::PipelineOptions stages;
    if (mesh->pp > 1) {
        stages.tp = {mesh->tp};
        stages.pp = {mesh->pp};
        stages.tpAcrossNodes = true;
        request.pipeline = stages;
    }
    std::vector<tapas::SearchResult> results;
    for (const char* name : {"tapas", "megatron", "dp"}) {
        tapas::Result<tapas::SearchResult> r = tapas::searchWithStages(*tapas::findSearcher(name), request, {*mesh}, stages, false);
        if (r) results.push_back(std::move(r).value());
        else std::fprintf(stderr, "tapas-studio: %s: %s\n", name, r.error().c_str());
    }
    if (results.empty()) return false;
    session->setResults(*cluster, *mesh, tapas::CostOptions{}, std::move(results));
    const tapas::Graph& g = *session->graph();
    for (tapas::NodeId n = 0; n < tapas::NodeId(g.nodes.size()); ++n)
        if (g.node(n).opType == "MatMul" && session->folded() && session->folded()->classOf(n).repeated() &&
            g.node(n).input(1) != tapas::kNoTensor && tapas::isSourceWeight(g, g.node(n).input(1))) {
            session->selectNode(n);
            break;
        }
    return true;
}

// --screenshot: once the first load has settled, grab the window (or its child widget named
// `widget`, e.g. planDock) into a PNG and quit. With `search`, plan the model first.
void scheduleScreenshot(tapas::MainWindow* window, const QString& file, const QString& search, const QString& widget,
                        QSize size)
{
    // A fixed size, whatever the screen: pictures for the README and for tests compare alike.
    window->resize(size);
    auto shoot = [window, file, widget](int exitCode) {
        // A dock shares its area with the others: float it at a readable size before grabbing.
        // Raised first: a dock behind another's tab keeps its contents hidden until its tab comes
        // to the front (the Summary dock, docks.cpp), and floating it does not bring it there.
        if (auto* dock = widget.isEmpty() ? nullptr : window->findChild<QDockWidget*>(widget)) {
            dock->raise();
            dock->setFloating(true);
            dock->resize(1280, 720);
        }
        QTimer::singleShot(400, window, [window, file, widget, exitCode] {
            QWidget* target = widget.isEmpty() ? window : window->findChild<QWidget*>(widget);
            if (!target) std::fprintf(stderr, "tapas-studio: no widget named %s\n", qPrintable(widget));
            const bool saved = target && target->grab().save(file);
            std::fprintf(saved ? stdout : stderr, "%s %s\n", saved ? "wrote" : "could not write",
                         qPrintable(QDir::toNativeSeparators(file)));
            QCoreApplication::exit(saved ? exitCode : 1);
        });
    };
    // With a plan: search once the graph is laid out, then wait for the layout the selection
    // of a node inside a block starts.
    auto plan = [window, search, shoot] {
        if (search.isEmpty()) return false;
        if (!searchOpenModel(window, search)) {
            shoot(1);
            return true;
        }
        tapas::GraphView* view = window->graphPanel()->view();
        if (!view->isBusy()) {
            shoot(0);
            return true;
        }
        auto* once = new QObject(window);
        QObject::connect(view, &tapas::GraphView::busyChanged, once, [once, shoot](bool busy) {
            if (busy) return;
            once->deleteLater();
            shoot(0);
        });
        return true;
    };
    // The picture is the laid-out graph: after the load, wait for the background layout too.
    QObject::connect(window, &tapas::MainWindow::modelLoaded, window, [window, shoot, plan] {
        tapas::GraphView* view = window->graphPanel()->view();
        if (!view->isBusy()) {
            if (!plan()) shoot(0);
            return;
        }
        auto* once = new QObject(window);
        QObject::connect(view, &tapas::GraphView::busyChanged, once, [window, once, shoot, plan](bool busy) {
            if (busy) return;
            once->deleteLater();
            if (plan()) return;
            // Pick the first repeated block as a user would: the view zooms to a readable scale
            // on it and the Inspector describes it, so the picture shows more than an overview.
            if (QTreeView* blocks = window->docks()->blocksTable(); blocks->model()->rowCount() > 0)
                blocks->setCurrentIndex(blocks->model()->index(0, 0));
            shoot(0);
        });
    });
    QObject::connect(window, &tapas::MainWindow::loadFailed, window, [shoot] { shoot(1); });
    if (!window->isLoading()) shoot(0);
}

// The command line: one definition for the help printed without a display and for the window.
struct StudioOptions {
    QCommandLineOption dim{QStringLiteral("dim"),
        QStringLiteral("Bind a symbolic dimension, e.g. --dim batch=8 (repeatable)."),
        QStringLiteral("name=value")};
    QCommandLineOption lang{QStringLiteral("lang"),
        QStringLiteral("User interface language: en or zh_CN (remembered)."), QStringLiteral("code")};
    QCommandLineOption shot{QStringLiteral("screenshot"),
        QStringLiteral("Open the model, save a picture of the window to FILE and exit."),
        QStringLiteral("FILE")};
    QCommandLineOption search{QStringLiteral("search"),
        QStringLiteral("After opening, plan the model for a cluster preset and mesh, e.g. --search a100x8:2x4 (DPxPPxTP, e.g. a100x8:1x2x4, plans pipeline stages)."),
        QStringLiteral("CLUSTER:MESH")};
    QCommandLineOption shotWidget{QStringLiteral("screenshot-widget"),
        QStringLiteral("With --screenshot: grab only the widget of that object name (e.g. planDock)."),
        QStringLiteral("NAME")};
    QCommandLineOption shotSize{QStringLiteral("screenshot-size"),
        QStringLiteral("With --screenshot: the window's size, e.g. 1366x768 (default 1280x820)."),
        QStringLiteral("WxH")};
    QCommandLineOption openRun{QStringLiteral("open-run"),
        QStringLiteral("Open a run directory in the Runs dock, shown as a window of its own, and follow it "
                       "while it runs (repeatable: several runs are overlaid)."),
        QStringLiteral("DIR")};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription(QStringLiteral(
            "Tapas Studio: plan and run distributed training of large neural networks."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("ONNX model to open."),
                                     QStringLiteral("[model.onnx]"));
        parser.addOptions({dim, lang, shot, search, shotWidget, shotSize, openRun});
    }
};

void setApplicationInfo()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Tapas"));
    QCoreApplication::setApplicationName(QStringLiteral("Tapas Studio"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TAPAS_VERSION));
}

// --help and --version need no window: answered before QApplication, which aborts without a
// display, is created.
bool asksForInformation(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QLatin1String a(argv[i]);
        if (a == QLatin1String("--")) return false;
        if (a == QLatin1String("-h") || a == QLatin1String("--help") || a == QLatin1String("-?") ||
            a == QLatin1String("--help-all") || a == QLatin1String("-v") || a == QLatin1String("--version"))
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    const StudioOptions options;
    if (asksForInformation(argc, argv)) {
        QCoreApplication core(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        options.addTo(parser);
        parser.process(core); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    setApplicationInfo();
    QGuiApplication::setDesktopFileName(QStringLiteral("tapas-studio"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tapas.svg")));

    QCommandLineParser parser;
    options.addTo(parser);
    parser.process(app);
    const QCommandLineOption& dimOption = options.dim;
    const QCommandLineOption& langOption = options.lang;
    const QCommandLineOption& shotOption = options.shot;
    const QCommandLineOption& searchOption = options.search;
    const QCommandLineOption& shotWidgetOption = options.shotWidget;
    const QCommandLineOption& openRunOption = options.openRun;
    QSize shotSize(1280, 820);
    if (parser.isSet(options.shotSize)) {
        const QStringList wh = parser.value(options.shotSize).split(QLatin1Char('x'));
        const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        if (wh.size() != 2 || w < 320 || h < 240) {
            std::fprintf(stderr, "tapas-studio: --screenshot-size %s: expected WIDTHxHEIGHT, e.g. 1366x768\n",
                         qPrintable(parser.value(options.shotSize)));
            return 2;
        }
        shotSize = QSize(w, h);
    }

    std::vector<std::string> dimArgs;
    for (const QString& v : parser.values(dimOption)) dimArgs.push_back(v.toStdString());
    const tapas::Result<tapas::DimBindings> dims = tapas::parseDimBindings(dimArgs); // the CLI's grammar
    if (!dims) {
        std::fprintf(stderr, "tapas-studio: %s\n", dims.error().c_str());
        return 2;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        std::fprintf(stderr, "tapas-studio: one model at a time, got %d files\n", int(positional.size()));
        return 2;
    }

    tapas::MainWindow window;
    tapas::LanguageManager* language = window.languageManager();
    const QString lang = parser.isSet(langOption) ? parser.value(langOption) : language->preferred();
    if (!language->setLanguage(lang))
        std::fprintf(stderr, "tapas-studio: no translation for '%s', using English\n", qPrintable(lang));
    window.setSessionDims(*dims);
    window.show();
    if (parser.isSet(openRunOption) && !openRuns(&window, parser.values(openRunOption))) return 1;

    if (!positional.isEmpty())
        window.openModel(QFileInfo(positional.first()).absoluteFilePath(), *dims);
    else
        window.openStartupModel();
    if (parser.isSet(shotOption))
        scheduleScreenshot(&window, parser.value(shotOption), parser.value(searchOption), parser.value(shotWidgetOption),
                           shotSize);
    else if (parser.isSet(searchOption))
        QObject::connect(&window, &tapas::MainWindow::modelLoaded, &window,
                         [&window, spec = parser.value(searchOption)] { searchOpenModel(&window, spec); });
    return app.exec();
}
