// HIPMEM_TRACE=FILE: the trace as a Chrome trace-event JSON file (the "JSON Array Format"), which Perfetto's UI and
// chrome://tracing open. Slices are complete events ("X") on their thread's track, lines are thread-scoped instants
// ("i"), flows are "s"/"t"/"f" events bound to their enclosing slices, and thread names are metadata ("M"). Events
// are appended as they finish (nesting is by time, as the format allows); the closing bracket is written at exit.
// A slice still open when the file closes is written then, ending at the close and marked "unfinished": a flow point
// it holds (an engine's completion arrow, raised before the engine's slice ends) stays inside a slice of its
// thread, so a file closed while engines run is still well formed.
// A forked child writes nothing into its parent's file. Thread-safe.
#ifndef HIPMEM_BASE_TRACE_FILE_SINK_H_
#define HIPMEM_BASE_TRACE_FILE_SINK_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/trace.h"

namespace hipmem {

class TraceFileSink final : public TraceSink {
 public:
  // Creates (truncates) `path` and writes the opening bracket and the process's and known threads' names.
  static absl::StatusOr<std::unique_ptr<TraceFileSink>> Open(const std::string& path);
  ~TraceFileSink() override;

  // Writes the closing bracket and closes the file; later records are dropped. Idempotent.
  void Close();

  void Record(Layer layer, absl::string_view message) override;
  void SliceBegin(const TraceSliceBeginRecord& begin) override;
  void Slice(const TraceSliceRecord& slice) override;
  void Flow(const TraceFlowRecord& flow) override;
  void ThreadName(uint32_t thread, absl::string_view name) override;

 private:
  TraceFileSink(std::FILE* file, int pid) : file_(file), pid_(pid) {}
  // Appends one event object (without separators) if the file is open and this is the process that opened it.
  void Append(const std::string& event) ABSL_LOCKS_EXCLUDED(mu_);
  void AppendLocked(const std::string& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The fields every event has: name, cat, ph, ts (microseconds), pid, tid.
  std::string Head(absl::string_view name, absl::string_view category, char phase, uint64_t ns,
                   uint32_t thread) const;

  // A slice begun under this sink and not ended yet; written by Close if it is still open then.
  struct OpenSlice {
    TraceCategory category;
    std::string name;
    std::string args;  // what it began with (TraceSliceBeginRecord::args)
    uint64_t begin_ns;
  };
  // The complete event of `slice`, ending at `end_ns`, with `args` (key, value) and, if `unfinished`, that mark.
  std::string SliceEvent(absl::string_view name, TraceCategory category, uint64_t begin_ns, uint64_t end_ns,
                         uint32_t thread, const std::vector<std::pair<std::string, std::string>>& args,
                         bool unfinished) const;

  absl::Mutex mu_;
  std::FILE* file_ ABSL_GUARDED_BY(mu_);
  bool first_ ABSL_GUARDED_BY(mu_) = true;
  // Keyed by (thread, depth): one open slice per nesting depth of a thread.
  absl::flat_hash_map<std::pair<uint32_t, int>, OpenSlice> open_ ABSL_GUARDED_BY(mu_);
  const int pid_;  // the process that opened the file; a forked child's records are dropped
};

// Appends `text` to `out` as a JSON string literal (quotes included).
void AppendJsonString(std::string& out, absl::string_view text);

// If HIPMEM_TRACE names a file ("%p" in it stands for the process id), opens it and returns its sink, which lives as long as the process and closes the file
// at exit; otherwise nullptr (an unopenable file is reported on stderr). Called once, before main
// (ProcessTraceFileSink, in the copy of this code that owns the process's trace file: trace_shared_sink.h).
TraceFileSink* OpenTraceFileSinkFromEnvironment();
// OpenTraceFileSinkFromEnvironment, installed alone. Returns whether it was.
bool InstallTraceFileSinkFromEnvironment();

}  // namespace hipmem

#endif  // HIPMEM_BASE_TRACE_FILE_SINK_H_
