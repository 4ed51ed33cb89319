#pragma once
// torch::save into a file with every write checked. torch's own file writer throws when a write
// fails and then throws again from its destructor, which ends the rank in std::terminate (signal
// 6, the cause recorded nowhere); here torch writes through a callback that never fails, and the
// file's first error (ENOSPC, EIO, ...) comes back as a Status naming the file.
#include "core/util/result.h"
#include "runtime/protocol/durable_file.h"

#include <torch/serialize.h>

#include <string>

namespace tapas::runtime {

template <class Value>
[[nodiscard]] Status saveTorchChecked(const Value& value, const std::string& path)
{
    protocol::DurableFile file(path);
    try {
        torch::save(value, [&file](const void* data, size_t size) { return file.write(data, size); });
    } catch (const c10::Error& e) {
        (void)file.finish();
        return Status::failure("file '" + path + "': " + e.what_without_backtrace());
    } catch (const std::exception& e) {
        (void)file.finish();
        return Status::failure("file '" + path + "': " + e.what());
    }
    return file.finish();
}

} // namespace tapas::runtime
