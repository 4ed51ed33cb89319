#include "views/runs/run_texts.h"

#include <cmath>

namespace tapas {

QString RunTexts::kindName(const std::string& kind)
{
    if (kind == "train-plan") return tr("Plan training");
    if (kind == "gan") return tr("GAN training");
    return QString::fromStdString(kind);
}

QString RunTexts::stateName(const std::string& s)
{
    if (s == "starting") return tr("starting");
    if (s == "running") return tr("running");
    if (s == "numerics_ok") return tr("numerics OK");
    if (s == "numerics_mismatch") return tr("numerics mismatch");
    if (s == "checkpoint") return tr("running (checkpoint saved)");
    if (s == "finished") return tr("finished");
    if (s == "failed") return tr("failed");
    if (s == "stopped") return tr("stopped");
    if (s == "hung") return tr("hung");
    if (s == "unknown" || s.empty()) return tr("unknown");
    return QString::fromStdString(s);
}

QString RunTexts::levelName(const QString& level)
{
    if (level == QLatin1String("info")) return tr("info");
    if (level == QLatin1String("warn")) return tr("warning");
    if (level == QLatin1String("error")) return tr("error");
    if (level == QLatin1String("status")) return tr("status");
    return level;
}

QString RunTexts::seconds(double s)
{
    if (!std::isfinite(s)) return QStringLiteral("–");
    if (std::abs(s) < 1e-3) return tr("%1 µs").arg(s * 1e6, 0, 'f', 0);
    if (std::abs(s) < 1) return tr("%1 ms").arg(s * 1e3, 0, 'f', s < 0.1 ? 2 : 1);
    return tr("%1 s").arg(s, 0, 'f', 2);
}

} // namespace tapas
