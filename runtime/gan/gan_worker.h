#pragma once
// `tapas-worker gan`: checks the options and the data set before MPI starts (so bad input fails
// fast on every rank with one clear sentence), then sets up MPI, the rank logs, the metrics sink
// and the communicator and runs the trainer. Returns the process exit code.
namespace tapas::runtime::gan {

int runGanWorker(int argc, char** argv); // argv[1] == "gan"

} // namespace tapas::runtime::gan
