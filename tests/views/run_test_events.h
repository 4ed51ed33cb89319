#pragma once
// Synthetic metrics events of a plan-training run and of a GAN run, as the workers write them
// (docs/metrics-protocol.md), for the Runs dock's view tests: no MPI, no worker.
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"

#include <cmath>
#include <string>
#include <vector>

namespace tapas::runtest {

inline protocol::RunSpec planSpec(const std::string& id = "20261202-120000-train-plan-aaaa", int steps = 100)
{
    protocol::RunSpec s;
    s.id = id;
    s.kind = "train-plan";
    s.planPath = "/tmp/p.tapas.json";
    s.modelPath = "/tmp/m.onnx";
    s.ranks = 2;
    s.steps = steps;
    s.created = "2026-12-02T12:00:00Z";
    return s;
}

inline protocol::RunSpec ganSpec(const std::string& id = "20261202-130000-gan-bbbb", int steps = 100)
{
    protocol::RunSpec s;
    s.id = id;
    s.kind = "gan";
    s.ranks = 2;
    s.steps = steps;
    s.checkpointEvery = 20;
    s.created = "2026-12-02T13:00:00Z";
    s.options = {{"data", "ring8"}, {"model", "mlp"}, {"async", ""}, {"staleness", "2"}};
    return s;
}

inline protocol::MetricsEvent rankStats(int64_t step, std::vector<protocol::RankStat> ranks)
{
    protocol::MetricsEvent e;
    e.type = protocol::EventType::RankStats;
    e.step = step;
    e.time = 1764676800.0 + double(step);
    e.ranks = std::move(ranks);
    return e;
}

// `steps` steps of a 2-rank plan run: loss falling, rank 1 slower than rank 0.
inline std::vector<protocol::MetricsEvent> planEvents(int steps, bool finish = true)
{
    std::vector<protocol::MetricsEvent> ev;
    auto status = protocol::MetricsEvent::statusEvent("starting", "mpirun -np 2");
    status.time = 1764676800.0;
    ev.push_back(status);
    ev.push_back(protocol::MetricsEvent::statusEvent("numerics_ok", ""));
    ev.back().fields = {{"max_abs_error", "1e-7"}};
    ev.push_back(protocol::MetricsEvent::logEvent("info", 0, "plan has 4 collectives per step"));
    for (int s = 0; s < steps; ++s) {
        auto e = protocol::MetricsEvent::stepEvent(s, {{"loss", 5.0 * std::exp(-s / 30.0)},
                                                       {"step_time", 0.020},
                                                       {"compute_time", 0.015},
                                                       {"comm_time", 0.005},
                                                       {"predicted_step_time", 0.018},
                                                       {"samples_per_s", 400.0}});
        e.time = 1764676800.0 + s;
        ev.push_back(e);
        ev.push_back(rankStats(s, {{0, "nodeA", {{"step_time", 0.019}, {"compute_time", 0.015}, {"comm_time", 0.004}, {"memory_bytes", 2.0e8}}},
                                   {1, "nodeB", {{"step_time", 0.021}, {"compute_time", 0.015}, {"comm_time", 0.006}, {"memory_bytes", 2.5e8}}}}));
    }
    ev.push_back(protocol::MetricsEvent::logEvent("warn", 1, "rank 1 is slow"));
    if (finish) ev.push_back(protocol::MetricsEvent::statusEvent("finished", "done"));
    return ev;
}

// `steps` steps of a GAN run with sample grids every `sampleEvery` steps at samples/step_N.png.
inline std::vector<protocol::MetricsEvent> ganEvents(int steps, int sampleEvery = 25, bool finish = true)
{
    std::vector<protocol::MetricsEvent> ev;
    ev.push_back(protocol::MetricsEvent::statusEvent("running", ""));
    for (int s = 0; s < steps; ++s) {
        const double noise = (s % 2 ? 0.3 : -0.3);
        ev.push_back(protocol::MetricsEvent::stepEvent(
            s, {{"g_loss", 1.0 + noise}, {"d_loss", 0.7 - noise}, {"d_real", 0.6}, {"d_fake", 0.4},
                {"images_per_s", 5000}, {"step_time", 0.01}, {"data_wait", 0.002}, {"queue_depth", 3},
                {"loader_threads", 2}, {"prefetch_depth", 4}, {"staleness", s % 3}, {"lr_g", 2e-4}, {"lr_d", 2e-4}}));
        ev.push_back(rankStats(s, {{0, "localhost", {{"step_time", 0.010}, {"data_wait", 0.002}}},
                                   {1, "localhost", {{"step_time", 0.011}, {"data_wait", 0.003}}}}));
        if (s % sampleEvery == 0) {
            ev.push_back(protocol::MetricsEvent::metricEvent(s, {{"modes_covered", std::min(8, 2 + s / 10)},
                                                                  {"high_quality_share", 0.5}}));
            char name[64];
            std::snprintf(name, sizeof name, "samples/step_%06d.png", s);
            ev.push_back(protocol::MetricsEvent::sampleEvent(s, name));
        }
    }
    if (finish) ev.push_back(protocol::MetricsEvent::statusEvent("stopped", "stopped by the user"));
    return ev;
}

} // namespace tapas::runtest
