// Minimal logging for the places allowed to log: C boundaries, destructors, and debug traces.
// Abseil 20220623 (Debian bookworm) has no absl/log, so this is a small stand-in writing to stderr.
#ifndef HIPMEM_BASE_LOG_H_
#define HIPMEM_BASE_LOG_H_

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hipmem {

enum class LogSeverity { kInfo, kWarning, kError, kFatal };

// Writes one line "hipmem <E|W|I> <file>:<line>] <message>" to stderr; kFatal then aborts.
void LogMessage(LogSeverity severity, const char* file, int line, absl::string_view message);

}  // namespace hipmem

#define HIPMEM_LOG(severity, ...) \
  ::hipmem::LogMessage(::hipmem::LogSeverity::severity, __FILE__, __LINE__, ::absl::StrCat(__VA_ARGS__))

// Checks one of our own invariants; never use it for user or kernel input (those are Status).
#define HIPMEM_CHECK(cond, ...)                                                   \
  do {                                                                            \
    if (!(cond)) HIPMEM_LOG(kFatal, "CHECK failed: " #cond " ", ##__VA_ARGS__); \
  } while (false)

#endif  // HIPMEM_BASE_LOG_H_
