#pragma once
// The PyTorch DDP yardstick of `tapas bench run`: the same GPT shape trained data-parallel by
// PyTorch itself (scripts/ddp_gpt_step.py, embedded in the binary) on the same number of ranks,
// so our data-parallel step is measured against what a PyTorch user would get, in the same run.
#include <QString>

#include <string>

namespace tapas::bench {

struct DdpShape {
    int layers = 2, hidden = 256, heads = 4, seq = 64, batch = 8, vocab = 512;
};

struct DdpFigures {
    bool ok = false;
    std::string error;    // why there is no figure (no python3-torch, the script failed, ...)
    double medianStepSeconds = 0;
    std::string torchVersion;
};

// Runs `mpirun -np ranks /usr/bin/python3 ddp_gpt_step.py ...` in `workDir`.
DdpFigures runDdpReference(const QString& workDir, const DdpShape& shape, int ranks, int steps, int warmup);

} // namespace tapas::bench
