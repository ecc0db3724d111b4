#include "base/log_sink.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace hipmem {

namespace {

// A number as CLR's flags take it: decimal, or hex with 0x. Returns false for anything else.
bool ParseNumber(const char* text, uint64_t* value) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = std::strtoull(text, &end, 0);
  if (errno != 0 || end == text || *end != '\0') return false;
  *value = parsed;
  return true;
}

uint64_t NowUs() { return trace_internal::NowNs() / 1000; }

}  // namespace

LogSettings LogSettings::FromEnvironment() {
  LogSettings settings;
  uint64_t value = 0;
  if (ParseNumber(std::getenv("AMD_LOG_LEVEL"), &value)) settings.level = static_cast<int>(value > 16 ? 16 : value);
  if (ParseNumber(std::getenv("AMD_LOG_MASK"), &value)) settings.mask = static_cast<uint32_t>(value);
  if (ParseNumber(std::getenv("HIP_TRACE_API"), &value) && value != 0) {
    if (settings.level < kLogInfo) settings.level = kLogInfo;
    settings.mask |= kLogApi;
  }
  if (ParseNumber(std::getenv("HSAKMT_DEBUG_LEVEL"), &value)) {
    settings.hsakmt_level = static_cast<int>(value > 16 ? 16 : value);
  }
  if (const char* file = std::getenv("AMD_LOG_LEVEL_FILE"); file != nullptr) settings.file = file;
  return settings;
}

const LogSettings& ProcessLogSettings() {
  static const LogSettings* const settings = new LogSettings(LogSettings::FromEnvironment());
  return *settings;
}

uint32_t LogMaskOf(TraceCategory category) {
  switch (category) {
    case TraceCategory::kHipApi: return kLogApi;
    case TraceCategory::kClr: return kLogCmd | kLogCopy;
    case TraceCategory::kHsaApi: return kLogQueue;
    case TraceCategory::kHsakmt:
    case TraceCategory::kKfd: return kLogResource;
    case TraceCategory::kSdma: return kLogCopy2;
    case TraceCategory::kCompute: return kLogAql;
  }
  return 0;
}

bool LogSink::Wants(TraceCategory category, int level) const {
  return settings_.level >= level && (settings_.mask & LogMaskOf(category)) != 0;
}

void LogSink::Print(int level, TraceCategory category, absl::string_view text) {
  const std::string line =
      absl::StrCat(":", level, ":", CategoryName(category), std::string(8 - CategoryName(category).size(), ' '), ": ",
                   NowUs(), " us: ", getpid(), " : [tid:0x", absl::Hex(static_cast<uint64_t>(pthread_self())), "] ",
                   text, "\n");
  std::fwrite(line.data(), 1, line.size(), out_);  // one call per line: stdio's lock keeps lines whole
}

void LogSink::Record(Layer layer, absl::string_view message) {
  const TraceCategory category = CategoryOf(layer);
  if (layer == Layer::kKfd && settings_.hsakmt_level >= LogSettings::kHsakmtDebug) {
    const std::string line = absl::StrCat("[hsakmt] ", message, "\n");
    std::fwrite(line.data(), 1, line.size(), out_);
  }
  if (Wants(category, kLogDebug)) Print(kLogDebug, category, message);
}

void LogSink::SliceBegin(const TraceSliceBeginRecord& begin) {
  if (begin.category == TraceCategory::kHipApi && Wants(begin.category, kLogInfo)) {
    Print(kLogInfo, begin.category, begin.args.empty() ? std::string(begin.name) : absl::StrCat(begin.name, " ( ", begin.args, " )"));
  }
}

void LogSink::Slice(const TraceSliceRecord& slice) {
  if (slice.category == TraceCategory::kHipApi) {
    if (!Wants(slice.category, kLogInfo)) return;
    std::string text = absl::StrCat(slice.name, ": Returned");
    for (const auto& [key, value] : *slice.args) {
      if (key == "result") absl::StrAppend(&text, " ", value);
    }
    Print(kLogInfo, slice.category, text);
    return;
  }
  if (!Wants(slice.category, kLogDebug)) return;
  std::string text(slice.name);
  const char* separator = " (";
  for (const auto& [key, value] : *slice.args) {
    absl::StrAppend(&text, separator, key, "=", value);
    separator = ", ";
  }
  if (!slice.args->empty()) text += ")";
  absl::StrAppend(&text, " took ", (slice.end_ns - slice.begin_ns) / 1000, " us");
  Print(kLogDebug, slice.category, text);
}

}  // namespace hipmem
