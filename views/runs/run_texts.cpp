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

RunTexts::Metric RunTexts::metric(const std::string& n)
{
    if (n == "loss") return {tr("Loss"), {}, 1};
    if (n == "step_time") return {tr("Step time"), tr("ms"), 1e3};
    if (n == "predicted_step_time") return {tr("Predicted step time"), tr("ms"), 1e3};
    if (n == "samples_per_s") return {tr("Throughput"), tr("samples/s"), 1};
    if (n == "images_per_s") return {tr("Throughput"), tr("images/s"), 1};
    if (n == "comm_share") return {tr("Communication share"), tr("%"), 100};
    if (n == "memory_bytes") return {tr("Memory"), tr("MB"), 1e-6};
    if (n == "g_loss") return {tr("Generator loss"), {}, 1};
    if (n == "d_loss") return {tr("Discriminator loss"), {}, 1};
    if (n == "d_real") return {tr("D(x), real samples"), {}, 1};
    if (n == "d_fake") return {tr("D(G(z)), generated samples"), {}, 1};
    if (n == "data_wait") return {tr("Data wait"), tr("ms"), 1e3};
    if (n == "queue_depth") return {tr("Queue depth"), {}, 1};
    if (n == "loader_threads") return {tr("Loader threads"), {}, 1};
    if (n == "prefetch_depth") return {tr("Prefetch depth"), {}, 1};
    if (n == "staleness") return {tr("Staleness"), tr("G updates"), 1};
    if (n == "modes_covered") return {tr("Modes covered"), {}, 1};
    if (n == "high_quality_share") return {tr("High-quality samples"), tr("%"), 100};
    if (n == "reverse_kl") return {tr("Reverse KL to the uniform mode histogram"), {}, 1};
    // Beside an EMA of G the headline figures are the average's; these judge G's own weights.
    if (n == "modes_covered_raw") return {tr("Modes covered, G's own weights"), {}, 1};
    if (n == "high_quality_share_raw") return {tr("High-quality samples, G's own weights"), tr("%"), 100};
    if (n == "reverse_kl_raw") return {tr("Reverse KL, G's own weights"), {}, 1};
    if (n == "classes_covered") return {tr("Classes covered"), {}, 1};
    if (n == "class_kl") return {tr("KL of the class histogram to uniform"), {}, 1};
    if (n == "frechet_distance") return {tr("Fréchet distance (classifier features)"), {}, 1};
    if (n == "frechet_floor") return {tr("Fréchet distance, real against real"), {}, 1};
    if (n == "lr_g") return {tr("Generator learning rate"), {}, 1};
    if (n == "lr_d") return {tr("Discriminator learning rate"), {}, 1};
    // Another worker's figure: its name with spaces, as a sentence.
    QString label = QString::fromStdString(n).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!label.isEmpty()) label[0] = label[0].toUpper();
    return {label, {}, 1};
}

} // namespace tapas
