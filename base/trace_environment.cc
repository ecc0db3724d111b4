#include "base/trace_environment.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/log_sink.h"
#include "base/trace_file_sink.h"
#include "base/trace_shared_sink.h"

namespace hipmem {

void TraceTee::Record(Layer layer, absl::string_view message) {
  first_->Record(layer, message);
  second_->Record(layer, message);
}
void TraceTee::SliceBegin(const TraceSliceBeginRecord& begin) {
  first_->SliceBegin(begin);
  second_->SliceBegin(begin);
}
void TraceTee::Slice(const TraceSliceRecord& slice) {
  first_->Slice(slice);
  second_->Slice(slice);
}
void TraceTee::Flow(const TraceFlowRecord& flow) {
  first_->Flow(flow);
  second_->Flow(flow);
}
void TraceTee::ThreadName(uint32_t thread, absl::string_view name) {
  first_->ThreadName(thread, name);
  second_->ThreadName(thread, name);
}

namespace {

// The log sink the switches ask for, or nullptr. Leaked with its file, as the trace file's sink.
TraceSink* LogSinkFromEnvironment() {
  const LogSettings& settings = ProcessLogSettings();
  if (!settings.any()) return nullptr;
  std::FILE* out = stderr;
  if (!settings.file.empty()) {
    out = std::fopen(settings.file.c_str(), "ae");
    if (out == nullptr) {
      std::fprintf(stderr, "hipmem: cannot open AMD_LOG_LEVEL_FILE %s: %s; logging to stderr\n",
                   settings.file.c_str(), std::strerror(errno));
      out = stderr;
    } else {
      setvbuf(out, nullptr, _IOLBF, 0);  // each line whole in the file as it happens, as a log tailer expects
    }
  }
  return new LogSink(settings, out);
}

}  // namespace

bool InstallTraceSinksFromEnvironment() {
  TraceSink* file = ProcessTraceFileSink();
  TraceSink* log = LogSinkFromEnvironment();
  TraceSink* sink = file == nullptr ? log : log == nullptr ? file : new TraceTee(file, log);
  if (sink == nullptr) return false;
  SetTraceSink(sink);
  return true;
}

}  // namespace hipmem
