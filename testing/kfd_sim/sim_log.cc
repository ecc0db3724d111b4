#include "testing/kfd_sim/sim_log.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/units.h"

namespace hipmem::kfd_sim {

absl::string_view SimLogLevelName(SimLogLevel level) {
  switch (level) {
    case SimLogLevel::kError: return "err";
    case SimLogLevel::kWarning: return "warn";
    case SimLogLevel::kInfo: return "info";
    case SimLogLevel::kDebug: return "debug";
  }
  return "?";
}

std::string FormatLogLine(const SimLogLine& line) {
  const auto us = static_cast<unsigned long long>(line.time.count());
  char stamp[32];
  std::snprintf(stamp, sizeof(stamp), "[%5llu.%06llu]", us / 1000000, us % 1000000);
  // Padded to the longest level name so the texts line up.
  std::string level(SimLogLevelName(line.level));
  level.resize(5, ' ');
  return absl::StrCat(stamp, " ", level, ": ", line.text);
}

std::string SizeText(Bytes size) {
  static constexpr struct {
    uint64_t bytes;
    const char* unit;
  } kUnits[] = {{uint64_t{1} << 40, "TiB"}, {uint64_t{1} << 30, "GiB"}, {uint64_t{1} << 20, "MiB"}, {1024, "KiB"}};
  if (size.is_zero()) return "0 B";
  for (const auto& u : kUnits) {
    if (size.raw() % u.bytes == 0) return absl::StrCat(size.raw() / u.bytes, " ", u.unit);
  }
  return absl::StrCat(size.raw(), " B");
}

SimLog::SimLog(size_t capacity)
    : SimLog(capacity, [start = std::chrono::steady_clock::now()] {
        return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
      }) {}

SimLog::SimLog(size_t capacity, Clock clock) : capacity_(capacity == 0 ? 1 : capacity), clock_(std::move(clock)) {}

void SimLog::AppendLocked(SimLogLevel level, std::string text) {
  if (lines_.size() == capacity_) lines_.pop_front();
  lines_.push_back(SimLogLine{.sequence = next_sequence_++, .time = clock_(), .level = level, .text = std::move(text)});
}

void SimLog::Write(SimLogLevel level, std::string text) {
  // The console copy is made before the line moves into the ring and printed after the lock is dropped.
  const std::string console = level <= SimLogLevel::kError ? text : std::string();
  {
    ScopedLock lock(&mu_);
    AppendLocked(level, std::move(text));
  }
  if (!console.empty()) HIPMEM_LOG(kError, console);
}

bool SimLog::WriteRatelimited(SimLogLevel level, std::string text) {
  const std::string console = level <= SimLogLevel::kError ? text : std::string();
  {
    ScopedLock lock(&mu_);
    const std::chrono::microseconds now = clock_();
    // ___ratelimit: a new window begins with the first call after the previous one ran out.
    if (!window_open_ || now - window_begin_ >= kRatelimitInterval) {
      if (window_missed_ > 0) {
        AppendLocked(SimLogLevel::kWarning,
                     absl::StrCat("kfd_sim: ", window_missed_, " lines suppressed by the ratelimit"));
      }
      window_open_ = true;
      window_begin_ = now;
      window_printed_ = 0;
      window_missed_ = 0;
    }
    if (window_printed_ >= kRatelimitBurst) {
      ++window_missed_;
      return false;
    }
    ++window_printed_;
    AppendLocked(level, std::move(text));
  }
  if (!console.empty()) HIPMEM_LOG(kError, console);
  return true;
}

std::vector<SimLogLine> SimLog::Lines() const {
  ScopedLock lock(&mu_);
  return std::vector<SimLogLine>(lines_.begin(), lines_.end());
}

std::string SimLog::Format() const {
  std::string out;
  for (const SimLogLine& line : Lines()) absl::StrAppend(&out, FormatLogLine(line), "\n");
  return out;
}

uint64_t SimLog::dropped() const {
  ScopedLock lock(&mu_);
  return next_sequence_ - lines_.size();
}

}  // namespace hipmem::kfd_sim
