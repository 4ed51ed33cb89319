#pragma once
// The torch-free half of GAN checkpoints: checkpoints/step-N/meta.txt (what resume needs besides
// the tensors: step, batch, ranks, data position, layout, what was trained) and the
// checkpoints/latest pointer, written last so a half-written checkpoint is never resumed.
#include "core/util/result.h"

#include <cstdint>
#include <string>

namespace tapas::runtime::gan {

struct CheckpointMeta {
    int step = 0;                 // G updates done
    int globalBatch = 0, ranks = 0;
    int64_t dataPosition = 0;     // index of the next batch each rank's pipeline hands out
    int64_t gVersion = 0;
    bool channelsLast = false, padChannels = false;
    std::string model, data;
    unsigned long long seed = 0;
};

std::string checkpointName(int step); // "step-000100"
Status writeCheckpointMeta(const std::string& dir, const CheckpointMeta& m);
Result<CheckpointMeta> readCheckpointMeta(const std::string& dir);
// Points checkpoints/latest at `name` (atomic rename).
Status markLatestCheckpoint(const std::string& runDir, const std::string& name);
// The directory checkpoints/latest names; a sentence naming the run dir when there is none.
Result<std::string> latestCheckpointDir(const std::string& runDir);

} // namespace tapas::runtime::gan
