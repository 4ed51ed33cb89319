#pragma once
// Settings ▸ Language: installs the embedded translation (":/i18n/tapas_<lang>.qm") and Qt's
// own, remembers the choice in QSettings, and switches live: installing a translator sends
// QEvent::LanguageChange to every widget, which retranslates itself in changeEvent().
#include <QObject>
#include <QString>
#include <QStringList>

class QActionGroup;
class QMenu;
class QTranslator;

namespace tapas {

class LanguageManager : public QObject {
    Q_OBJECT
public:
    explicit LanguageManager(QObject* parent = nullptr);

    // "en", "zh_CN"
    static QStringList available();
    // The language's name in itself ("English", "简体中文"): a reader must find their own
    // language in the menu whatever language the menu is in now.
    static QString nativeName(const QString& code);

    QString current() const { return current_; }
    // The saved choice, else the system's language when we have it, else English.
    QString preferred() const;
    // Returns false (and keeps the current language) when no translation is embedded for it.
    bool setLanguage(const QString& code);
    void populateMenu(QMenu* menu);

Q_SIGNALS:
    void languageChanged(const QString& code);

private:
    void syncMenu();

    QString current_;
    QTranslator* appTranslator_;
    QTranslator* qtTranslator_;
    QActionGroup* group_ = nullptr;
};

} // namespace tapas
