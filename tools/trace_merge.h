// `hipmem trace`'s last step: the per-process trace files HIPMEM_TRACE=DIR/trace.%p.json left (one per process the
// command started under the preload) merged into one Chrome trace-event file, each process on its own pid, so
// Perfetto shows the whole command. A process that recorded nothing but its own and its threads' names (a shell, a
// grep the command ran) is left out. A file cut short (the process was killed) gives the events it holds whole.
#ifndef HIPMEM_TOOLS_TRACE_MERGE_H_
#define HIPMEM_TOOLS_TRACE_MERGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hipmem::tools {

struct TraceMergeSummary {
  int processes = 0;  // files that held events
  int events = 0;     // events written, names included
};

// Reads each of `inputs` (as TraceFileSink writes them: "[", one event per line, "]") and writes `output`.
absl::StatusOr<TraceMergeSummary> MergeTraceFiles(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace hipmem::tools

#endif  // HIPMEM_TOOLS_TRACE_MERGE_H_
