#include "app/studio/language_manager.h"

#include <QAction>
#include <QActionGroup>
#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QTranslator>

namespace tapas {

namespace {
const QString kKey = QStringLiteral("ui/language");
const QString kEnglish = QStringLiteral("en");
} // namespace

LanguageManager::LanguageManager(QObject* parent)
    : QObject(parent), current_(kEnglish), appTranslator_(new QTranslator(this)),
      qtTranslator_(new QTranslator(this))
{
}

QStringList LanguageManager::available()
{
    return {kEnglish, QStringLiteral("zh_CN")};
}

QString LanguageManager::nativeName(const QString& code)
{
    if (code == QLatin1String("zh_CN")) return QStringLiteral("简体中文");
    return QStringLiteral("English");
}

QString LanguageManager::preferred() const
{
    const QString saved = QSettings().value(kKey).toString();
    if (available().contains(saved)) return saved;
    const QLocale sys = QLocale::system();
    if (sys.language() == QLocale::Chinese && sys.script() != QLocale::TraditionalChineseScript)
        return QStringLiteral("zh_CN");
    return kEnglish;
}

bool LanguageManager::setLanguage(const QString& code)
{
    if (!available().contains(code)) return false;
    auto* fresh = new QTranslator(this);
    if (!fresh->load(QStringLiteral(":/i18n/tapas_%1.qm").arg(code))) {
        delete fresh;
        if (code != kEnglish) return false; // English is the source text: no .qm needed
        fresh = nullptr;
    }
    QCoreApplication::removeTranslator(appTranslator_);
    QCoreApplication::removeTranslator(qtTranslator_);
    delete appTranslator_;
    appTranslator_ = fresh ? fresh : new QTranslator(this);
    // Qt's own strings (standard buttons, file dialog) when the system ships them; optional.
    const bool haveQtStrings = code != kEnglish
        && qtTranslator_->load(QLocale(code), QStringLiteral("qtbase"), QStringLiteral("_"),
                               QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    if (haveQtStrings) QCoreApplication::installTranslator(qtTranslator_);
    if (fresh) QCoreApplication::installTranslator(appTranslator_);
    const bool changed = current_ != code;
    current_ = code;
    QSettings().setValue(kKey, code);
    syncMenu();
    if (changed) Q_EMIT languageChanged(code);
    return true;
}

void LanguageManager::populateMenu(QMenu* menu)
{
    group_ = new QActionGroup(this);
    group_->setExclusive(true);
    for (const QString& code : available()) {
        QAction* a = menu->addAction(nativeName(code));
        a->setCheckable(true);
        a->setData(code);
        group_->addAction(a);
        connect(a, &QAction::triggered, this, [this, code] { setLanguage(code); });
    }
    syncMenu();
}

void LanguageManager::syncMenu()
{
    if (!group_) return;
    for (QAction* a : group_->actions()) a->setChecked(a->data().toString() == current_);
}

} // namespace tapas
