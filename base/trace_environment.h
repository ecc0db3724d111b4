// The sinks a process's environment asks for, installed before main: HIPMEM_TRACE's file (base/trace_file_sink.h)
// and ROCm's log switches (base/log_sink.h). Both may be on at once; each then sees every record.
#ifndef HIPMEM_BASE_TRACE_ENVIRONMENT_H_
#define HIPMEM_BASE_TRACE_ENVIRONMENT_H_

#include "base/trace.h"

namespace hipmem {

// Forwards every record to two sinks, in order. Not owned; both must outlive it.
class TraceTee final : public TraceSink {
 public:
  TraceTee(TraceSink* first, TraceSink* second) : first_(first), second_(second) {}
  void Record(Layer layer, absl::string_view message) override;
  void SliceBegin(const TraceSliceBeginRecord& begin) override;
  void Slice(const TraceSliceRecord& slice) override;
  void Flow(const TraceFlowRecord& flow) override;
  void ThreadName(uint32_t thread, absl::string_view name) override;

 private:
  TraceSink* const first_;
  TraceSink* const second_;
};

// Installs what the environment asks for (nothing when it asks for nothing). The sinks live as long as the
// process: threads may trace while it exits. Returns whether a sink was installed. Called once, before main.
bool InstallTraceSinksFromEnvironment();

}  // namespace hipmem

#endif  // HIPMEM_BASE_TRACE_ENVIRONMENT_H_
