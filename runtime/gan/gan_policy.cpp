#include "runtime/gan/gan_policy.h"

#include <algorithm>
#include <cmath>

namespace tapas::runtime::gan {

double batchScale(const std::string& rule, int globalBatch, int referenceBatch)
{
    if (referenceBatch <= 0 || globalBatch <= 0) return 1.0;
    const double r = double(globalBatch) / double(referenceBatch);
    if (rule == "linear") return r;
    if (rule == "sqrt") return std::sqrt(r);
    return 1.0;
}

double scheduledLr(const SidePolicy& p, double scale, int step, int totalSteps)
{
    double lr = p.lr * scale;
    if (p.warmupSteps > 0 && step < p.warmupSteps) lr *= double(step + 1) / double(p.warmupSteps);
    // Decay runs from the end of warm-up to the last step, down to decayFloor of the peak.
    const int span = std::max(1, totalSteps - p.warmupSteps);
    const double t = std::clamp(double(step - p.warmupSteps) / span, 0.0, 1.0);
    const double f = p.decayFloor;
    if (p.decay == "linear") lr *= 1.0 - (1.0 - f) * t;
    else if (p.decay == "cosine") lr *= f + (1.0 - f) * 0.5 * (1.0 + std::cos(M_PI * t));
    return lr;
}

Result<ScalingDecision> decideScaling(const GanOptions& o, int ranks, int savedGlobalBatch, int savedRanks)
{
    ScalingDecision d;
    d.ranks = ranks;
    int wantGlobal = 0;
    if (savedGlobalBatch > 0) {
        wantGlobal = savedGlobalBatch;
    } else if (o.localBatch > 0) {
        wantGlobal = o.localBatch * ranks;
    } else {
        wantGlobal = o.globalBatch;
    }
    d.localBatch = (wantGlobal + ranks - 1) / ranks;
    if (d.localBatch < 1)
        return Result<ScalingDecision>::failure("batch: a global batch of " + std::to_string(wantGlobal) +
                                                " cannot be split over " + std::to_string(ranks) + " ranks");
    d.globalBatch = d.localBatch * ranks;
    d.scaleG = batchScale(o.g.scaling, d.globalBatch, o.referenceBatch);
    d.scaleD = batchScale(o.d.scaling, d.globalBatch, o.referenceBatch);
    if (savedGlobalBatch > 0 && savedRanks > 0 && savedRanks != ranks) {
        d.note = "scaling manager: resumed on " + std::to_string(ranks) + " ranks (checkpoint: " +
                 std::to_string(savedRanks) + "); local batch " + std::to_string(savedGlobalBatch / std::max(1, savedRanks)) +
                 " -> " + std::to_string(d.localBatch) + ", global batch " + std::to_string(savedGlobalBatch) +
                 (d.globalBatch == savedGlobalBatch ? " kept" : " -> " + std::to_string(d.globalBatch) + " (not divisible)") +
                 ", lr scale G x" + std::to_string(d.scaleG) + " D x" + std::to_string(d.scaleD);
    } else if (o.localBatch > 0 && o.globalBatch > 0 && o.localBatch * ranks != o.globalBatch) {
        d.note = "scaling manager: --batch " + std::to_string(o.localBatch) + " wins over --global-batch " +
                 std::to_string(o.globalBatch);
    }
    return d;
}

} // namespace tapas::runtime::gan
