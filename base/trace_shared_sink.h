// One trace file per process, however many copies of hipmem's code the process holds.
//
// A process can hold several copies of base/: `hipmem run` and `hipmem trace` preload libhipmem_kfd.so, and the program
// may also link our libamdhip64.so; each shared library carries its own copy, with its own sink, and each installs
// its sinks from HIPMEM_TRACE before main. Two file sinks on one path would write two JSON arrays into one file, which
// no reader opens. So the copies agree on one owner of the file: every copy exports the C function
// `hipmem_trace_shared_sink_v1` (our libraries' version scripts list it), and the definition the dynamic linker finds
// first (dlsym(RTLD_DEFAULT), the process's global lookup order: the executable, the preloads, then the libraries
// they need) is the owner's. The owner opens the file the first time any copy asks for it, so the order in which the
// copies' constructors run does not matter; the other copies forward their records to it through its table of C
// functions, a layout that does not depend on the copies being built alike. A copy that finds no exported table (a
// static executable, a library loaded RTLD_LOCAL) owns its own file, as before.
#ifndef HIPMEM_BASE_TRACE_SHARED_SINK_H_
#define HIPMEM_BASE_TRACE_SHARED_SINK_H_

#include <cstddef>
#include <cstdint>

#include "base/trace.h"

extern "C" {

struct HipmemTraceArgV1 {
  const char* key;
  size_t key_length;
  const char* value;
  size_t value_length;
};

// The owner's entry points. Layers and categories are hipmem::Layer and hipmem::TraceCategory values, flow phases
// hipmem::TraceFlowPhase's; `thread` is the OS thread id (hipmem::TraceThreadId()), the same in every copy.
struct HipmemTraceSharedSinkV1 {
  uint32_t size;  // sizeof(HipmemTraceSharedSinkV1) of the owner's build: a later version appends members
  // False when the owner has no file to write (HIPMEM_TRACE unset or the file could not be opened).
  bool (*open)(void);
  void (*record)(uint32_t thread, int layer, const char* message, size_t message_length);
  void (*slice_begin)(uint32_t thread, int category, const char* name, size_t name_length, uint64_t ns, int depth);
  void (*slice)(uint32_t thread, int category, const char* name, size_t name_length, const HipmemTraceArgV1* args,
                size_t arg_count, uint64_t begin_ns, uint64_t end_ns, int depth);
  void (*flow)(uint32_t thread, int category, const char* name, size_t name_length, uint64_t id, int phase,
               uint64_t ns);
  void (*thread_name)(uint32_t thread, const char* name, size_t name_length);
};

// This copy's table (exported; the first definition in lookup order is the owner's).
const HipmemTraceSharedSinkV1* hipmem_trace_shared_sink_v1(void);

}  // extern "C"

namespace hipmem {

// The sink HIPMEM_TRACE asks for, seen from this copy: this copy's own file sink when this copy owns the process's
// trace file, else a sink forwarding to the owner's. nullptr when HIPMEM_TRACE is unset or the file cannot be opened.
// Leaked: threads may trace while the process exits.
TraceSink* ProcessTraceFileSink();

}  // namespace hipmem

#endif  // HIPMEM_BASE_TRACE_SHARED_SINK_H_
