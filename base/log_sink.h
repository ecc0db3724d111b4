// ROCm's logging switches, printed through the trace: every layer's log line is a trace record (base/trace.h), and
// this sink is the one place that turns records into log text, so the switches a ROCm user knows behave as they
// expect whichever layer the line comes from.
//
//   AMD_LOG_LEVEL=N       CLR's level: 0 none, 1 error, 2 warning, 3 info, 4 debug. A record prints when its level
//                         is at most N and its mask bit is in AMD_LOG_MASK.
//   AMD_LOG_MASK=BITS     CLR's LogMask (decimal or 0x hex); 0x7FFFFFFF, CLR's default, when unset.
//   AMD_LOG_LEVEL_FILE=F  CLR's: the log goes to file F (appended) instead of stderr.
//   HIP_TRACE_API=1       The HCC-era HIP runtime's API trace. Current CLR has no such flag; a user who sets it wants
//                         every hip* call and its result, so it means AMD_LOG_LEVEL >= 3 with LOG_API in the mask.
//   HSAKMT_DEBUG_LEVEL=N  libhsakmt's level; at 7 (HSAKMT_DEBUG_LEVEL_DEBUG) every KFD ioctl prints decoded, as
//                         "[hsakmt] AMDKFD_IOC_NAME(args) = result -> answer".
//
// What prints at which level and under which LogMask bit (CLR's meanings, our records):
//   hip_api slices   3  LOG_API (0x1)       "hipMalloc ( 0x7ffd5f2c3a48, 4096 )" when the call starts (its arguments,
//                                           as CLR prints them), "hipMalloc: Returned hipSuccess" when it ends
//   clr              4  LOG_CMD (0x2), LOG_COPY (0x100)   blit decisions, commands, waits
//   hsa_api          4  LOG_QUEUE (0x10)    ROCr's steps: queues, signals, pools
//   hsakmt, kfd      4  LOG_RESOURCE (0x400)             thunk calls and ioctls (allocation is what they do)
//   compute          4  LOG_AQL (0x8)       AQL packets and kernel dispatches on the simulated CP
//   sdma             4  LOG_COPY2 (0x200)   SDMA packets
// A slice other than hip_api prints once, when it ends, with its arguments and duration. Lines look like CLR's:
// ":3:hip_api  : 1234567 us: 5617 : [tid:0x7f2a1c0b9740] hipMalloc", with the category where CLR prints a source
// file. Thread-safe.
#ifndef HIPMEM_BASE_LOG_SINK_H_
#define HIPMEM_BASE_LOG_SINK_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"
#include "base/trace.h"

namespace hipmem {

// CLR's LogLevel and the LogMask bits this sink uses.
enum LogLevel : int { kLogNone = 0, kLogError = 1, kLogWarning = 2, kLogInfo = 3, kLogDebug = 4 };
inline constexpr uint32_t kLogApi = 0x1;
inline constexpr uint32_t kLogCmd = 0x2;
inline constexpr uint32_t kLogAql = 0x8;
inline constexpr uint32_t kLogQueue = 0x10;
inline constexpr uint32_t kLogCopy = 0x100;
inline constexpr uint32_t kLogCopy2 = 0x200;
inline constexpr uint32_t kLogResource = 0x400;
inline constexpr uint32_t kLogDefaultMask = 0x7FFFFFFF;

struct LogSettings {
  int level = kLogNone;
  uint32_t mask = kLogDefaultMask;
  int hsakmt_level = 0;  // HSAKMT_DEBUG_LEVEL
  std::string file = {};  // AMD_LOG_LEVEL_FILE; empty: stderr

  // Whether anything can print.
  bool any() const { return level > kLogNone || hsakmt_level >= kHsakmtDebug; }
  // Read from the process's environment (the table above). An unparsable number counts as unset.
  static LogSettings FromEnvironment();

  static constexpr int kHsakmtDebug = 7;  // libhsakmt's HSAKMT_DEBUG_LEVEL_DEBUG
};

// The switches as the process started with them, read once.
const LogSettings& ProcessLogSettings();

class LogSink final : public TraceSink {
 public:
  // Writes to `out` (not owned; must outlive the sink).
  LogSink(LogSettings settings, std::FILE* out) : settings_(std::move(settings)), out_(out) {}

  void Record(Layer layer, absl::string_view message) override;
  void SliceBegin(const TraceSliceBeginRecord& begin) override;
  void Slice(const TraceSliceRecord& slice) override;

 private:
  // Whether a record of `category` prints at `level`, and the level it prints at.
  bool Wants(TraceCategory category, int level) const;
  void Print(int level, TraceCategory category, absl::string_view text);

  const LogSettings settings_;
  std::FILE* const out_;
};

// The LogMask bits a category's records print under.
uint32_t LogMaskOf(TraceCategory category);

}  // namespace hipmem

#endif  // HIPMEM_BASE_LOG_SINK_H_
