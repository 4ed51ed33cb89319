#pragma once
// ParaGAN's asymmetric optimisation policy, the parts that are arithmetic: each side's learning
// rate schedule (warm-up, decay) and its own rule for scaling with the global batch, and the
// scaling manager that keeps a run stable when the number of ranks changes. Plain C++.
#include "runtime/gan/gan_options.h"

#include <string>

namespace tapas::runtime::gan {

// lr at G (or D) update `step` of `totalSteps`: base x batch scale x warm-up x decay.
double scheduledLr(const SidePolicy& p, double batchScale, int step, int totalSteps);
// (global / reference)^p with p = 1 (linear), 1/2 (sqrt) or 0 (none).
double batchScale(const std::string& rule, int globalBatch, int referenceBatch);

// What the scaling manager chose for this launch.
struct ScalingDecision {
    int ranks = 1;
    int localBatch = 0;
    int globalBatch = 0;        // ranks x localBatch (what actually trains)
    double scaleG = 1, scaleD = 1;
    std::string note;           // human sentence when it retuned something (else empty)
};

// `savedGlobalBatch` / `savedRanks` come from the checkpoint being resumed (0: fresh run).
// A fresh run takes --batch (local) or --global-batch; a resumed run on a different rank count
// keeps the checkpoint's global batch (local = global / ranks, rounded up to keep >= it), so the
// learning rates, which depend on the global batch only, stay the same.
Result<ScalingDecision> decideScaling(const GanOptions& o, int ranks, int savedGlobalBatch, int savedRanks);

} // namespace tapas::runtime::gan
