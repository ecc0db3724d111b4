// A second copy of base/trace in one process, as a shared library with its own (hidden) copy carries it: for
// trace_shared_sink_test. Exports only the two functions below and the shared-sink table.
#include "base/trace.h"

extern "C" __attribute__((visibility("default"))) bool hipmem_trace_copy_traced() { return hipmem::TraceEnabled(); }

extern "C" __attribute__((visibility("default"))) void hipmem_trace_copy_emit() {
  hipmem::SetTraceThreadName("named by the copy");
  hipmem::TraceSlice slice(hipmem::TraceCategory::kHsaApi, "slice from the copy");
  slice.Arg("copy", "second");
  hipmem::Trace(hipmem::Layer::kHsa, "line from the copy");
  hipmem::TraceFlowStart(hipmem::TraceCategory::kHsaApi, "flow from the copy", 42);
}
