// The simulator's kernel log: a bounded ring of timestamped lines that `dmesg` would show on a real machine.
//
// Plays the kernel's printk ring buffer as amdkfd and amdgpu fill it: the simulator writes a line where the
// driver would print (a process opening and closing /dev/kfd, queues created, updated and destroyed, GPU VM
// faults, an engine halting on a queue error, failed ioctls) and tests and `hipmem dmesg` read it back.
// Like the kernel's buffer it keeps the newest lines and drops the oldest; like printk_ratelimited it can
// thin out a flood from one call site so that the flood does not push everything else out of the ring.
#ifndef HIPMEM_TESTING_KFD_SIM_SIM_LOG_H_
#define HIPMEM_TESTING_KFD_SIM_SIM_LOG_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"

namespace hipmem::kfd_sim {

// The printk levels the simulator writes at, with the kernel's numbers (KERN_ERR .. KERN_DEBUG).
enum class SimLogLevel : uint8_t {
  kError = 3,    // a GPU VM fault, a queue halted on a bad packet: what amdgpu reports with dev_err
  kWarning = 4,  // the simulator dropped something the kernel would WARN about
  kInfo = 6,     // process and queue lifecycle (pr_debug in the kernel; here shown by default)
  kDebug = 7,    // a failed ioctl, as kfd_ioctl's pr_debug "ret" line
};

// "err", "warn", "info", "debug": the names `dmesg --decode` prints.
absl::string_view SimLogLevelName(SimLogLevel level);

// One line of the log.
struct SimLogLine {
  uint64_t sequence;               // 0, 1, 2, ... in write order over the log's whole life
  std::chrono::microseconds time;  // since the log (the simulator) was created; monotonic
  SimLogLevel level;
  std::string text;  // one line, no trailing newline
};

// Formats a line as dmesg does, plus its level: "[    1.234567] info : kfd_sim: ...". The seconds field is
// at least five characters wide.
std::string FormatLogLine(const SimLogLine& line);

// Renders a byte count for a log line or report: "2 MiB", "4 KiB", "192 GiB", "1536 B"; a count that is
// not a whole number of the larger unit is shown in the next smaller one ("1536 KiB", never "1.5 MiB").
std::string SizeText(Bytes size);

// The ring. Thread-safe. Its mutex is a leaf: Write() may be called with any other simulator lock held
// (world, process, shared resources, event table, an engine's own state) and takes nothing under it, so it
// holds the lock only to append one moved string. Error lines are also echoed to stderr, outside the lock,
// as a quiet kernel console prints only KERN_ERR and worse.
class SimLog {
 public:
  static constexpr size_t kDefaultCapacity = 1024;
  // The kernel's DEFAULT_RATELIMIT_INTERVAL and DEFAULT_RATELIMIT_BURST: 10 lines per 5 s window.
  static constexpr std::chrono::microseconds kRatelimitInterval = std::chrono::seconds(5);
  static constexpr uint32_t kRatelimitBurst = 10;

  // The time since the log began; must be monotonic and thread-safe. Tests pass a fake one.
  using Clock = std::function<std::chrono::microseconds()>;

  // A log that keeps the newest `capacity` (>= 1) lines, timed from now by the steady clock.
  explicit SimLog(size_t capacity = kDefaultCapacity);
  SimLog(size_t capacity, Clock clock);
  SimLog(const SimLog&) = delete;
  SimLog& operator=(const SimLog&) = delete;

  // Appends a line, dropping the oldest when the ring is full.
  void Write(SimLogLevel level, std::string text);

  // Appends a line unless this window of the log's one ratelimit is used up (kRatelimitBurst lines in
  // kRatelimitInterval, shared by every caller of WriteRatelimited). The first line allowed after a window
  // that suppressed some is preceded by "kfd_sim: <n> lines suppressed by the ratelimit", as the kernel's
  // "callbacks suppressed" line. Returns whether the line was written.
  bool WriteRatelimited(SimLogLevel level, std::string text);

  // Returns the lines in the ring, oldest first.
  std::vector<SimLogLine> Lines() const;

  // Returns every line in the ring formatted by FormatLogLine, each ending in '\n'.
  std::string Format() const;

  // Lines pushed out of the ring so far.
  uint64_t dropped() const;

 private:
  void AppendLocked(SimLogLevel level, std::string text) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t capacity_;
  const Clock clock_;

  mutable absl::Mutex mu_;
  std::deque<SimLogLine> lines_ ABSL_GUARDED_BY(mu_);
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  // The ratelimit window: when it began, lines written in it and lines it suppressed.
  std::chrono::microseconds window_begin_ ABSL_GUARDED_BY(mu_){0};
  bool window_open_ ABSL_GUARDED_BY(mu_) = false;
  uint32_t window_printed_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t window_missed_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_SIM_LOG_H_
