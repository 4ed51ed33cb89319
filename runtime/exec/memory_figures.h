#pragma once
// What this rank holds in memory, for the step metrics: the process's resident set (what the
// operating system sees, libtorch's own code and MPI's buffers included) and the bytes of
// tensor storage libtorch's CPU allocator has handed out (what the plan's predicted memory
// counts: weights, gradients, optimizer state, activations). libtorch 1.13 keeps no CPU
// allocator statistics, so the worker installs a counting allocator in front of the default.
namespace tapas::runtime {

double residentBytes();     // resident set now (/proc/self/statm)
double peakResidentBytes(); // the most resident so far (VmHWM)

// Puts the counting allocator in front of libtorch's CPU allocator. Idempotent; tensors
// allocated before the call are freed by their own allocator and never counted.
void countTensorMemory();
double tensorBytesNow();  // CPU tensor storage alive now, through the counting allocator
double tensorBytesPeak(); // the most alive at once since countTensorMemory() or the last reset
// Starts the peak again from what is alive now: the training steps' peak is then not the
// numerics check's, which holds the unsharded model beside this rank's shards.
void resetTensorBytesPeak();

} // namespace tapas::runtime
