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

    // A metric as people read it: "step_time" is "Step time" in ms (the values times 1000).
    struct Metric {
        QString label;
        QString unit;     // empty: a plain number
        double scale = 1; // recorded value × scale = value in `unit`
        QString labelWithUnit() const { return unit.isEmpty() ? label : QStringLiteral("%1 (%2)").arg(label, unit); }
    };
    static Metric metric(const std::string& name);
};

} // namespace tapas
