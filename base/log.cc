#include "base/log.h"

#include <cstdio>
#include <cstdlib>

namespace hipmem {

void LogMessage(LogSeverity severity, const char* file, int line, absl::string_view message) {
  static constexpr char kLetters[] = {'I', 'W', 'E', 'F'};
  std::fprintf(stderr, "hipmem %c %s:%d] %.*s\n", kLetters[static_cast<int>(severity)], file, line,
               static_cast<int>(message.size()), message.data());
  if (severity == LogSeverity::kFatal) std::abort();
}

}  // namespace hipmem
