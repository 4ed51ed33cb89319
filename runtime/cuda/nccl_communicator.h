#pragma once
// The CUDA side of the runtime as plain C++ (built only with TAPAS_WITH_CUDA): device memory and
// device queries for callers that must not include cuda_runtime.h (comm-check), next to the NCCL
// communicator itself, which is created through makeNcclCommunicator (runtime/comm/communicator.h).
// The `world` given to makeNcclCommunicator must outlive the NCCL communicator and its splits
// (without ncclCommSplit, NCCL < 2.18, split() bootstraps the new id through world.split()).
#include <cstddef>
#include <string>

namespace tapas::runtime::cuda {

// Number of visible CUDA devices. Returns 0 and sets *why when there is none, e.g. "CUDA driver
// version is insufficient for CUDA runtime version" on a machine without a GPU.
int deviceCount(std::string* why);
// NCCL's run-time library version ("2.28.9") and the CUDA runtime's ("13.0").
std::string ncclVersion();
std::string cudaRuntimeVersion();
// Name of device `device` ("NVIDIA H200").
std::string deviceName(int device);

// `bytes` of memory on the current device; every failing CUDA call throws std::runtime_error.
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }
    void upload(const void* host, size_t bytes);  // host -> device, synchronous
    void download(void* host, size_t bytes) const; // device -> host, synchronous

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

} // namespace tapas::runtime::cuda
