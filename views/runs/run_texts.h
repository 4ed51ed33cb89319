#pragma once
// The words the Runs dock shows for protocol values (run kinds, states, log levels), translated.
#include <QCoreApplication>
#include <QString>

#include <string>

namespace tapas {

class RunTexts {
    Q_DECLARE_TR_FUNCTIONS(tapas::RunTexts)
public:
    static QString kindName(const std::string& kind);   // "train-plan" -> "Plan training"
    static QString stateName(const std::string& state); // "numerics_ok" -> "numerics OK"
    static QString levelName(const QString& level);
    // "1.23 ms", "2.5 s": step times span microseconds to minutes.
    static QString seconds(double s);
};

} // namespace tapas
