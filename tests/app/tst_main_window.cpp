// The real main window, driven offscreen: opening models in the background, the error dialog
// for bad files, responsiveness while loading, live language switching, drag and drop.
#include "app/studio/language_manager.h"
#include "app/studio/main_window.h"
#include "app/studio/model_document.h"
#include "app/studio/model_loader.h"
#include "app/studio/recent_files.h"
#include "views/log_model.h"
#include "views/log_view.h"
#include "views/model_summary_view.h"
#include "views/op_histogram_model.h"
#include "tests/app/studio_suite.h"
#include "tests/common/shared_models.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>
#include <QXmlStreamReader>
#include <QLabel>
#include <QtTest>

#include <memory>

using namespace tapas;

namespace {

QString model(const char* name) { return tapas::testing::sharedModel(name); }
constexpr int kLoadTimeoutMs = 120000;
const QString kStudio = QStringLiteral(TAPAS_BIN_DIR "/tapas-studio");

// "11,680,872 parameters" -> "11680872"
QString leadingDigits(const QString& s)
{
    QString out;
    for (QChar c : s) {
        if (c.isDigit()) out += c;
        else if (c == QLatin1Char('(')) break;
    }
    return out;
}

// Closes the first visible QMessageBox and remembers its text: modal dialogs must not hang a test.
class DialogCatcher : public QObject {
public:
    QString text;
    int seen = 0;
    explicit DialogCatcher(QObject* parent) : QObject(parent)
    {
        connect(&timer_, &QTimer::timeout, this, [this] {
            for (QWidget* w : QApplication::topLevelWidgets()) {
                auto* box = qobject_cast<QMessageBox*>(w);
                if (box && box->isVisible()) {
                    text = box->text();
                    ++seen;
                    box->close();
                }
            }
        });
        timer_.start(20);
    }

private:
    QTimer timer_;
};

} // namespace

class TstMainWindow : public QObject {
    Q_OBJECT
private:
    testing::SuiteSettings settings_{"tst_main_window"}; // first: outlives the window
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir tmp_;

    bool load(const QString& path, const DimBindings& dims = {})
    {
        return testing::openAndWait(*window_, path, kLoadTimeoutMs, dims);
    }
    // Runs tapas-studio offscreen with `args` (a --screenshot among them) and its own settings;
    // fails the case unless it exits 0.
    void runStudioScreenshot(const QStringList& args)
    {
        QVERIFY2(QFile::exists(kStudio), "build the tapas-studio target before this suite");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp_.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(kStudio, args);
        QVERIFY(p.waitForFinished(kLoadTimeoutMs));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
    int opCount(const QString& op) const
    {
        const OpHistogramModel* ops = window_->summaryView()->opHistogram();
        const int row = ops->rowOf(op);
        return row < 0 ? -1 : ops->index(row, OpHistogramModel::Count).data(OpHistogramModel::SortRole).toInt();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanupTestCase() { window_.reset(); }

    void first_start_opens_the_bundled_sample_model()
    {
        QVERIFY(RecentFiles().isEmpty());
        QVERIFY(QFile::exists(QStringLiteral(":/models/sample_gpt.onnx")));
        QSignalSpy loaded(window_.get(), &MainWindow::modelLoaded);
        window_->openStartupModel();
        QVERIFY(loaded.wait(kLoadTimeoutMs));
        QCOMPARE(window_->document()->displayName(), QStringLiteral("sample_gpt.onnx"));
        QCOMPARE(window_->windowTitle(), QStringLiteral("sample_gpt.onnx — Tapas Studio"));
        QVERIFY(window_->document()->summary().nodes > 0);
        QVERIFY(opCount(QStringLiteral("MatMul")) > 0);
        // A resource is not a file: it must not enter the recent files.
        QVERIFY(RecentFiles().isEmpty());
    }

    // Every dock open, a model loaded: the window still fits a 1366x768 laptop screen (less its
    // panel). The Runs dock's charts once forced it to at least 1071x944 and made it grow on
    // every model load; now they scroll inside the dock.
    void window_fits_a_small_screen_with_every_dock_open()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        QVERIFY(load(model("resnet18.onnx")));
        for (QDockWidget* d : window_->findChildren<QDockWidget*>()) d->show();
        QVERIFY(window_->findChild<QDockWidget*>(QStringLiteral("runsDock")));
        const QSize min = window_->minimumSizeHint();
        QVERIFY2(min.width() <= 1280 && min.height() <= 700,
                 qPrintable(QStringLiteral("minimum size %1x%2").arg(min.width()).arg(min.height())));
        const QSize before = window_->size();
        window_->resize(1280, 700);
        QTRY_COMPARE(window_->size(), QSize(1280, 700));
        window_->resize(before);
    }

    void opening_resnet18_shows_parameter_count_and_conv_histogram()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        QVERIFY(load(model("resnet18.onnx")));
        ModelSummaryView* view = window_->summaryView();
        // 11,680,872 float weight elements (shared/models/README.md).
        QCOMPARE(leadingDigits(view->figureValueLabel(ModelSummaryView::Figure::Parameters)->toolTip()), QStringLiteral("11680872"));
        QCOMPARE(view->figureText(ModelSummaryView::Figure::Nodes), QStringLiteral("65"));
        QCOMPARE(opCount(QStringLiteral("Conv")), 20);
        // The row as the table shows it (through the sorting proxy).
        QAbstractItemModel* shown = view->opTable()->model();
        bool found = false;
        for (int r = 0; r < shown->rowCount(); ++r) {
            if (shown->index(r, OpHistogramModel::OpType).data().toString() == QLatin1String("Conv")) {
                QCOMPARE(shown->index(r, OpHistogramModel::Count).data().toString(), QStringLiteral("20"));
                found = true;
            }
        }
        QVERIFY(found);
        QCOMPARE(window_->windowTitle(), QStringLiteral("resnet18.onnx — Tapas Studio"));
        QCOMPARE(window_->document()->displayName(), QStringLiteral("resnet18.onnx"));
        QVERIFY(!window_->isLoading());
    }

    void bad_file_shows_error_dialog_and_keeps_previous_model_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QByteArray garbage(4096, '\0');
        for (int i = 0; i < garbage.size(); ++i) garbage[i] = char((i * 7919 + 13) & 0xff);
        QTest::newRow("garbage") << garbage;
        QFile resnet(model("resnet18.onnx"));
        if (resnet.open(QIODevice::ReadOnly)) // without it the case skips: it opens resnet18 first
            QTest::newRow("truncated") << resnet.read(20000); // cut inside the first initializer
    }
    void bad_file_shows_error_dialog_and_keeps_previous_model()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        QFETCH(QByteArray, bytes);
        if (window_->document()->displayName() != QLatin1String("resnet18.onnx"))
            QVERIFY(load(model("resnet18.onnx")));
        const QString bad = tmp_.filePath(QStringLiteral("broken_%1.onnx").arg(QLatin1String(QTest::currentDataTag())));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();

        const int errorsBefore = window_->logView()->model()->count(LogSeverity::Error);
        DialogCatcher catcher(this);
        QSignalSpy failed(window_.get(), &MainWindow::loadFailed);
        QSignalSpy loaded(window_.get(), &MainWindow::modelLoaded);
        window_->openModel(bad);
        QVERIFY(failed.wait(kLoadTimeoutMs));
        QTRY_COMPARE(catcher.seen, 1);
        QVERIFY2(catcher.text.contains(QFileInfo(bad).fileName()), qPrintable(catcher.text));
        QCOMPARE(failed.first().first().toString(), catcher.text);
        QCOMPARE(loaded.count(), 0);
        QCOMPARE(window_->logView()->model()->count(LogSeverity::Error), errorsBefore + 1);
        // The previous model is still open and shown.
        QCOMPARE(window_->document()->displayName(), QStringLiteral("resnet18.onnx"));
        QCOMPARE(window_->windowTitle(), QStringLiteral("resnet18.onnx — Tapas Studio"));
        QCOMPARE(leadingDigits(window_->summaryView()->figureValueLabel(ModelSummaryView::Figure::Parameters)->toolTip()),
                 QStringLiteral("11680872"));
        QCOMPARE(opCount(QStringLiteral("Conv")), 20);
    }

    void gui_thread_keeps_processing_events_while_bert_loads()
    {
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        QElapsedTimer clock;
        qint64 last = 0;
        qint64 maxGap = 0;
        int ticks = 0;
        QTimer ticker;
        ticker.setTimerType(Qt::PreciseTimer);
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            maxGap = std::max(maxGap, now - last);
            last = now;
            ++ticks;
        });
        QSignalSpy progress(window_->loader(), &ModelLoader::progressChanged);
        QSignalSpy loaded(window_.get(), &MainWindow::modelLoaded);
        clock.start();
        ticker.start(10);
        window_->openModel(model("bert_mini_4l.onnx"));
        QVERIFY(window_->isLoading());
        QVERIFY(loaded.wait(kLoadTimeoutMs));
        ticker.stop();
        const qint64 loadMs = clock.elapsed();
        qInfo("bert_mini_4l loaded in %lld ms; %d ticks; longest GUI-thread gap %lld ms", loadMs, ticks, maxGap);
        QVERIFY2(maxGap < 100, qPrintable(QStringLiteral("GUI thread stalled for %1 ms").arg(maxGap)));
        QVERIFY(ticks > 0);
        QVERIFY(progress.count() >= 2);
        QCOMPARE(window_->summaryView()->figureText(ModelSummaryView::Figure::Nodes), QStringLiteral("523"));
        QCOMPARE(opCount(QStringLiteral("Softmax")), 4);
    }

    void cancelling_a_load_keeps_the_previous_model()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        TAPAS_NEEDS_SHARED_MODEL("mobilenet_v2.onnx");
        if (window_->document()->isEmpty()) QVERIFY(load(model("resnet18.onnx")));
        const QString before = window_->document()->displayName();
        QSignalSpy cancelled(window_->loader(), &ModelLoader::cancelled);
        QSignalSpy loaded(window_.get(), &MainWindow::modelLoaded);
        window_->openModel(model("mobilenet_v2.onnx"));
        window_->loader()->cancel();
        QVERIFY(cancelled.wait(kLoadTimeoutMs));
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!window_->isLoading());
        QCOMPARE(window_->document()->displayName(), before);
    }

    void dim_bindings_reach_the_importer()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        QVERIFY(load(model("resnet18.onnx"), DimBindings{{"batch", 8}}));
        const ModelSummary& s = window_->document()->summary();
        QCOMPARE(s.inputs.size(), size_t(1));
        QVERIFY2(QString::fromStdString(s.inputs[0].shape).startsWith(QLatin1String("[8,")), s.inputs[0].shape.c_str());
        QVERIFY(std::find(s.symbolicDims.begin(), s.symbolicDims.end(), "batch") == s.symbolicDims.end());
    }

    void dropping_an_onnx_file_opens_it()
    {
        TAPAS_NEEDS_SHARED_MODEL("mobilenet_v2.onnx");
        auto mime = std::make_unique<QMimeData>();
        mime->setUrls({QUrl::fromLocalFile(model("mobilenet_v2.onnx"))});
        const QPoint centre = window_->rect().center();
        QDragEnterEvent enter(centre, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &enter);
        QVERIFY(enter.isAccepted());

        QSignalSpy loaded(window_.get(), &MainWindow::modelLoaded);
        QDropEvent drop(QPointF(centre), Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &drop);
        QVERIFY(loaded.wait(kLoadTimeoutMs));
        QCOMPARE(window_->document()->displayName(), QStringLiteral("mobilenet_v2.onnx"));
        QCOMPARE(window_->summaryView()->figureText(ModelSummaryView::Figure::Nodes), QStringLiteral("209"));
    }

    void dragging_a_non_onnx_file_is_refused()
    {
        const QString notes = tmp_.filePath(QStringLiteral("README.md"));
        QFile file(notes);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a model\n");
        file.close();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(notes)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        enter.setAccepted(false);
        QApplication::sendEvent(window_.get(), &enter);
        QVERIFY(!enter.isAccepted());
    }

    void switching_language_retranslates_menus_live()
    {
        LanguageManager* lm = window_->languageManager();
        QAction* fileMenu = window_->menuBar()->actions().first();
        QCOMPARE(fileMenu->text(), QStringLiteral("&File"));
        QVERIFY(lm->setLanguage(QStringLiteral("zh_CN")));
        QTRY_COMPARE(fileMenu->text(), QStringLiteral("文件(&F)"));
        QTRY_COMPARE(window_->logDock()->windowTitle(), QStringLiteral("日志"));
        QCOMPARE(QSettings().value(QStringLiteral("ui/language")).toString(), QStringLiteral("zh_CN"));
        QVERIFY(window_->windowTitle().endsWith(QStringLiteral("Tapas Studio")));
        QVERIFY(lm->setLanguage(QStringLiteral("en")));
        QTRY_COMPARE(fileMenu->text(), QStringLiteral("&File"));
        QTRY_COMPARE(window_->logDock()->windowTitle(), QStringLiteral("Log"));
        QVERIFY(!lm->setLanguage(QStringLiteral("xx")));
        QCOMPARE(lm->current(), QStringLiteral("en"));
    }

    // The window shows counts through %n strings; English needs its own plural forms, or a user
    // reads "4 pipeline stage(s)". The translated .qm of the running language is what the user sees.
    void english_plurals_read_as_english()
    {
        LanguageManager* lm = window_->languageManager();
        QVERIFY(lm->setLanguage(QStringLiteral("en")));
        const char* ctx = "tapas::PlanPanel";
        const char* src = "%n pipeline stage(s) on pp %1";
        QCOMPARE(QCoreApplication::translate(ctx, src, nullptr, 1), QStringLiteral("1 pipeline stage on pp %1"));
        QCOMPARE(QCoreApplication::translate(ctx, src, nullptr, 4), QStringLiteral("4 pipeline stages on pp %1"));
        QCOMPARE(QCoreApplication::translate("tapas::PlanPanel", "%n micro-batch(es)", nullptr, 1),
                 QStringLiteral("1 micro-batch"));
        QCOMPARE(QCoreApplication::translate("tapas::PlanPanel", "%n micro-batch(es)", nullptr, 3),
                 QStringLiteral("3 micro-batches"));
    }

    // Every message of the translation sources: Chinese finished and not empty, every English
    // %n message with both forms and no "(s)" left in them. Fails when a string is added to the
    // code without updating the translations (the update_translations target, then translating).
    void translation_sources_are_complete()
    {
        for (const QString& lang : {QStringLiteral("zh_CN"), QStringLiteral("en")}) {
            QFile f(QStringLiteral(TAPAS_SOURCE_DIR "/translations/tapas_%1.ts").arg(lang));
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
            QXmlStreamReader xml(&f);
            QString source;
            bool numerus = false;
            QStringList problems;
            while (!xml.atEnd()) {
                xml.readNext();
                if (!xml.isStartElement()) continue;
                if (xml.name() == QLatin1String("message")) {
                    numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
                } else if (xml.name() == QLatin1String("source")) {
                    source = xml.readElementText();
                } else if (xml.name() == QLatin1String("translation")) {
                    const bool unfinished = xml.attributes().value(QLatin1String("type")) == QLatin1String("unfinished");
                    const bool obsolete = xml.attributes().value(QLatin1String("type")) == QLatin1String("vanished")
                        || xml.attributes().value(QLatin1String("type")) == QLatin1String("obsolete");
                    if (obsolete) continue;
                    if (lang == QLatin1String("en") && !numerus) continue; // English is the source text
                    QStringList forms;
                    if (numerus) {
                        while (xml.readNextStartElement())
                            if (xml.name() == QLatin1String("numerusform")) forms << xml.readElementText();
                    } else {
                        forms << xml.readElementText();
                    }
                    bool bad = unfinished || forms.isEmpty();
                    for (const QString& form : forms)
                        bad = bad || form.isEmpty() || (lang == QLatin1String("en") && form.contains(QLatin1String("(s)")));
                    if (bad) problems << source;
                }
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QVERIFY2(problems.isEmpty(),
                     qPrintable(QStringLiteral("%1: %2 message(s) untranslated, e.g. \"%3\"")
                                    .arg(f.fileName()).arg(problems.size()).arg(problems.value(0))));
        }
    }

    void recent_files_are_newest_first_capped_and_pruned()
    {
        RecentFiles recent;
        recent.clear();
        for (int i = 0; i < RecentFiles::kMaxEntries + 2; ++i) {
            const QString p = tmp_.filePath(QStringLiteral("m%1.onnx").arg(i));
            QFile f(p);
            QVERIFY(f.open(QIODevice::WriteOnly));
            recent.add(p);
        }
        QCOMPARE(recent.files().size(), RecentFiles::kMaxEntries);
        QVERIFY(recent.files().first().endsWith(QStringLiteral("m11.onnx")));
        QVERIFY(QFile::remove(tmp_.filePath(QStringLiteral("m11.onnx"))));
        QSignalSpy pruned(&recent, &RecentFiles::pruned);
        const QStringList missing = recent.pruneMissing();
        QCOMPARE(missing.size(), 1);
        QCOMPARE(pruned.count(), 1);
        QCOMPARE(recent.files().size(), RecentFiles::kMaxEntries - 1);
        QCOMPARE(RecentFiles().files(), recent.files()); // persisted in QSettings
    }

    void opened_models_enter_the_recent_files()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        QVERIFY(load(model("resnet18.onnx")));
        // The window records it in the event-loop turn after the model is shown (saving the list
        // is kept off the opening's own turn), so it is there once events have run.
        const QString path = QFileInfo(model("resnet18.onnx")).absoluteFilePath();
        QTRY_COMPARE_WITH_TIMEOUT(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), path, 5000);
    }

    void window_state_saves_the_log_dock()
    {
        QVERIFY(!window_->logDock()->objectName().isEmpty());
        // Shown here, not left to the cases before (they open shared models, which may be absent).
        window_->logDock()->show();
        QTRY_VERIFY(window_->logDock()->isVisible());
        const QByteArray state = window_->saveState();
        window_->logDock()->hide();
        QVERIFY(window_->restoreState(state));
        QVERIFY(window_->logDock()->isVisible());
    }

    void studio_binary_opens_a_model_and_writes_a_screenshot()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        const QString shot = tmp_.filePath(QStringLiteral("shot.png"));
        runStudioScreenshot({model("resnet18.onnx"), QStringLiteral("--dim"), QStringLiteral("batch=4"),
                             QStringLiteral("--screenshot"), shot});
        const QImage image(shot);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800 && image.height() >= 500);
    }

    // The Summary dock sits behind the Blocks tab and keeps its page hidden until its tab comes to
    // the front; a screenshot of it alone once showed an empty dock. Its cards and tables carry
    // text all over: dark pixels make a visible share of the picture, not just the title bar's.
    void screenshot_of_a_dock_behind_a_tab_shows_its_contents()
    {
        const QString shot = tmp_.filePath(QStringLiteral("summary.png"));
        runStudioScreenshot({QStringLiteral(TAPAS_SOURCE_DIR "/resources/models/sample_gpt.onnx"), QStringLiteral("--screenshot"), shot,
                             QStringLiteral("--screenshot-widget"), QStringLiteral("summaryDock")});
        const QImage image = QImage(shot).convertToFormat(QImage::Format_RGB32);
        QVERIFY(!image.isNull());
        qint64 dark = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if (qGray(image.pixel(x, y)) < 100) ++dark;
        const double share = double(dark) / (double(image.width()) * image.height());
        QVERIFY2(share > 0.01, qPrintable(QStringLiteral("dark pixels %1% of %2x%3: the dock looks empty")
                                              .arg(100 * share, 0, 'f', 3).arg(image.width()).arg(image.height())));
    }

    void studio_binary_rejects_a_malformed_dim()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        QVERIFY2(QFile::exists(kStudio), "build the tapas-studio target before this suite");
        p.start(kStudio, {QStringLiteral("--dim"), QStringLiteral("batch")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("--dim 'batch': expected name=value"), err.constData());
        // The CLI's grammar: a name bound twice to different values is refused, not rebound.
        p.start(kStudio, {QStringLiteral("--dim"), QStringLiteral("batch=4"), QStringLiteral("--dim"),
                          QStringLiteral(" batch = 8")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray twice = p.readAllStandardError();
        QVERIFY2(twice.contains("--dim ' batch = 8': 'batch' is already bound to 4"), twice.constData());
    }
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
