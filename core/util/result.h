#pragma once
// Errors travel as values with a human sentence (see STYLE.md): a Result holds either a value
// or an error string that names the file, node, tensor or field at fault.
#include <optional>
#include <string>
#include <utility>

namespace tapas {

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}
    static Result failure(std::string error) { return Result(std::move(error), 0); }

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return error_; }

    T& value() & { return *value_; }
    const T& value() const& { return *value_; }
    T&& value() && { return std::move(*value_); }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }
    T& operator*() { return *value_; }
    const T& operator*() const { return *value_; }

private:
    Result(std::string error, int) : error_(std::move(error)) {}
    std::optional<T> value_;
    std::string error_;
};

// For operations that produce nothing but can fail.
struct [[nodiscard]] Status {
    std::string error;
    bool ok() const { return error.empty(); }
    explicit operator bool() const { return ok(); }
    static Status success() { return {}; }
    static Status failure(std::string e) { return {std::move(e)}; }
};

} // namespace tapas
