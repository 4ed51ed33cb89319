// tapas-studio: the desktop face of Tapas. `tapas-studio [model.onnx] [--dim name=value ...]`.
#include "app/studio/language_manager.h"
#include "app/studio/docks.h"
#include "app/studio/main_window.h"
#include "views/graph/graph_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QTableView>
#include <QTimer>

#include <cstdio>

#ifndef TAPAS_VERSION
#define TAPAS_VERSION "0.1.0"
#endif

namespace {

// "batch=8" -> {"batch", 8}; the CLI's `--dim` grammar.
bool parseDims(const QStringList& values, tapas::DimBindings* dims, QString* error)
{
    for (const QString& v : values) {
        const qsizetype eq = v.indexOf(QLatin1Char('='));
        bool ok = false;
        const qlonglong n = eq > 0 ? v.mid(eq + 1).toLongLong(&ok) : 0;
        if (eq <= 0 || !ok || n <= 0) {
            *error = QStringLiteral("--dim %1: expected name=value with a positive integer value, "
                                    "e.g. --dim batch=8").arg(v);
            return false;
        }
        (*dims)[v.left(eq).toStdString()] = n;
    }
    return true;
}

// --screenshot: once the first load has settled, grab the window into a PNG and quit.
void scheduleScreenshot(tapas::MainWindow* window, const QString& file)
{
    // A fixed size, whatever the screen: pictures for the README and for tests compare alike.
    window->resize(1280, 820);
    auto shoot = [window, file](int exitCode) {
        QTimer::singleShot(400, window, [window, file, exitCode] {
            const bool saved = window->grab().save(file);
            std::fprintf(saved ? stdout : stderr, "%s %s\n", saved ? "wrote" : "could not write",
                         qPrintable(QDir::toNativeSeparators(file)));
            QCoreApplication::exit(saved ? exitCode : 1);
        });
    };
    // The picture is the laid-out graph: after the load, wait for the background layout too.
    QObject::connect(window, &tapas::MainWindow::modelLoaded, window, [window, shoot] {
        tapas::GraphView* view = window->graphPanel()->view();
        if (!view->isBusy()) {
            shoot(0);
            return;
        }
        auto* once = new QObject(window);
        QObject::connect(view, &tapas::GraphView::busyChanged, once, [window, once, shoot](bool busy) {
            if (busy) return;
            once->deleteLater();
            // Pick the first repeated block as a user would: the view zooms to a readable scale
            // on it and the Inspector describes it, so the picture shows more than an overview.
            if (QTableView* blocks = window->docks()->blocksTable(); blocks->model()->rowCount() > 0)
                blocks->selectRow(0);
            shoot(0);
        });
    });
    QObject::connect(window, &tapas::MainWindow::loadFailed, window, [shoot] { shoot(1); });
    if (!window->isLoading()) shoot(0);
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Tapas"));
    QCoreApplication::setApplicationName(QStringLiteral("Tapas Studio"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TAPAS_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("tapas-studio"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tapas.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Tapas Studio: plan and run distributed training of large neural networks."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("ONNX model to open."),
                                 QStringLiteral("[model.onnx]"));
    const QCommandLineOption dimOption(QStringLiteral("dim"),
        QStringLiteral("Bind a symbolic dimension, e.g. --dim batch=8 (repeatable)."),
        QStringLiteral("name=value"));
    const QCommandLineOption langOption(QStringLiteral("lang"),
        QStringLiteral("User interface language: en or zh_CN (remembered)."), QStringLiteral("code"));
    const QCommandLineOption shotOption(QStringLiteral("screenshot"),
        QStringLiteral("Open the model, save a picture of the window to FILE and exit."),
        QStringLiteral("FILE"));
    parser.addOptions({dimOption, langOption, shotOption});
    parser.process(app);

    tapas::DimBindings dims;
    QString error;
    if (!parseDims(parser.values(dimOption), &dims, &error)) {
        std::fprintf(stderr, "tapas-studio: %s\n", qPrintable(error));
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
    window.setSessionDims(dims);
    window.show();

    if (!positional.isEmpty())
        window.openModel(QFileInfo(positional.first()).absoluteFilePath(), dims);
    else
        window.openStartupModel();
    if (parser.isSet(shotOption)) scheduleScreenshot(&window, parser.value(shotOption));
    return app.exec();
}
