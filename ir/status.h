// Error values for user-facing failures (bad model files, unsupported features) and the
// Expected<T> that carries them. Compiler bugs are TC_CHECK asserts, never Errors
// (docs/STYLE.md habit 6).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace thunderc {

/// What kind of failure an Error is; each maps to one documented CLI exit code
/// (see cli/exit_codes.h). Ordered by how early in the pipeline they usually occur.
enum class ErrorKind {
  Usage,        ///< bad command line
  Io,           ///< a file could not be opened, read or written
  InvalidInput, ///< the model file or IR text is malformed
  Unsupported,  ///< well-formed, but uses a feature thunderc does not compile
};

/// A user-facing error: a kind plus a message that already names where it happened.
/// Context is prepended as it propagates: "model.pt2: models/model.json: node 'x': ...".
class Error {
public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  ErrorKind kind() const { return kind_; }
  const std::string &message() const { return message_; }

  /// Returns this error with "<context>: " prepended to the message.
  Error withContext(const std::string &context) const & {
    return Error(kind_, context + ": " + message_);
  }
  Error withContext(const std::string &context) && {
    message_ = context + ": " + message_;
    return std::move(*this);
  }

private:
  ErrorKind kind_;
  std::string message_;
};

inline Error invalidInput(std::string message) {
  return Error(ErrorKind::InvalidInput, std::move(message));
}
inline Error unsupported(std::string message) {
  return Error(ErrorKind::Unsupported, std::move(message));
}
inline Error ioError(std::string message) { return Error(ErrorKind::Io, std::move(message)); }

/// Either a value or an Error. Like std::expected (C++23), kept tiny.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : storage_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & { return std::get<0>(storage_); }
  const T &value() const & { return std::get<0>(storage_); }
  T &&value() && { return std::get<0>(std::move(storage_)); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const Error &error() const & { return std::get<1>(storage_); }
  Error &&error() && { return std::get<1>(std::move(storage_)); }

private:
  std::variant<T, Error> storage_;
};

/// Expected<void>: success or an Error.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}
  static Status success() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error &error() const & { return *error_; }
  Error &&error() && { return std::move(*error_); }

private:
  std::optional<Error> error_;
};

[[noreturn]] inline void checkFailed(const char *condition, const char *file, int line,
                                     const std::string &message) {
  std::fprintf(stderr, "internal compiler error: %s:%d: check '%s' failed: %s\n", file, line,
               condition, message.c_str());
  std::abort();
}

} // namespace thunderc

/// Asserts a compiler invariant; never use it on something the model file controls.
#define TC_CHECK(condition, message)                                                           \
  do {                                                                                         \
    if (!(condition))                                                                          \
      ::thunderc::checkFailed(#condition, __FILE__, __LINE__, (message));                      \
  } while (0)

#define TC_CONCAT_INNER(a, b) a##b
#define TC_CONCAT(a, b) TC_CONCAT_INNER(a, b)

/// Propagates a failed Status or Expected from the enclosing function.
#define TC_TRY(expression)                                                                     \
  do {                                                                                         \
    auto &&tc_try_result_ = (expression);                                                      \
    if (!tc_try_result_.ok())                                                                  \
      return std::move(tc_try_result_).error();                                                \
  } while (0)

/// Propagates a failed Status or Expected, prepending context to its message.
#define TC_TRY_CONTEXT(expression, context)                                                    \
  do {                                                                                         \
    auto &&tc_try_result_ = (expression);                                                      \
    if (!tc_try_result_.ok())                                                                  \
      return std::move(tc_try_result_).error().withContext(context);                           \
  } while (0)

/// `TC_ASSIGN_OR_RETURN(auto x, f());` binds the value or returns the error.
#define TC_ASSIGN_OR_RETURN(declaration, expression)                                           \
  TC_ASSIGN_OR_RETURN_IMPL(TC_CONCAT(tc_assign_, __LINE__), declaration, expression)
#define TC_ASSIGN_OR_RETURN_IMPL(temporary, declaration, expression)                           \
  auto temporary = (expression);                                                               \
  if (!temporary.ok())                                                                         \
    return std::move(temporary).error();                                                       \
  declaration = std::move(temporary).value()
