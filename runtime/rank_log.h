#pragma once
// Each rank of a run writes its own stdout and stderr to runs/<id>/logs/rank-N.log (DESIGN.md run
// directory), so the launcher and the Runs dock can show the last lines of a rank that died,
// and nothing a rank printed is lost with mpirun's interleaved output.
#include <string>

namespace tapas::runtime {

// Redirects this process's stdout and stderr (file descriptors 1 and 2, so library output
// follows) to the rank's log, appending. Returns an error sentence, or empty on success.
std::string redirectOutputToRankLog(const std::string& runDir, int rank);

} // namespace tapas::runtime
