// What every hip* C shell shares: recording its result as the thread's last error and HIP_INIT_API.
#ifndef HIPMEM_HIP_C_SHELL_H_
#define HIPMEM_HIP_C_SHELL_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/trace.h"
#include "hip/api_args.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/last_error.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace hipmem::hip {

// A hip* entry point's `hip_api` trace slice, named after the function, carrying the call's arguments ("args", as
// CLR's HIP_INIT_API prints them: api_args.h) and its result ("result": hipSuccess...) for the trace file and for
// AMD_LOG_LEVEL's "hipX ( args )" and "hipX: Returned hipY" lines. The result is the last one
// Return saw on this thread while the slice was the innermost, which is the entry's own `return Return(...)`.
class ApiSlice {
 public:
  // The thread's innermost entry is read only when traced: untraced, a thread_local access (a call in a shared
  // library) would cost more than the slice itself.
  // The arguments are formatted only when traced.
  template <typename... Args>
  explicit ApiSlice(const char* name, const Args&... args)
      : slice_(TraceCategory::kHipApi, name, [&] { return ApiArgsText(args...); }) {
    if (!slice_.active()) return;
    outer_ = current_;
    current_ = this;
  }
  ~ApiSlice() {
    if (!slice_.active()) return;
    if (has_result_) slice_.Arg("result", hipGetErrorName(result_));
    current_ = outer_;
  }
  ApiSlice(const ApiSlice&) = delete;
  ApiSlice& operator=(const ApiSlice&) = delete;

  // Called by Return while tracing: remembers `error` in the innermost traced entry on this thread.
  static void NoteResult(hipError_t error) {
    if (current_ == nullptr) return;
    current_->result_ = error;
    current_->has_result_ = true;
  }

 private:
  TraceSlice slice_;
  ApiSlice* outer_ = nullptr;  // set only when traced
  hipError_t result_ = hipSuccess;
  bool has_result_ = false;
  static inline thread_local ApiSlice* current_ = nullptr;
};

inline hipError_t Return(hipError_t error) {
  if (TraceEnabled()) ApiSlice::NoteResult(error);
  return RecordLastError(error);
}
// Every hip* call that waits for a device, copies or fills its memory or queues work there may meet the device's
// sticky GPU fault (a status clr::IsGpuMemoryFault marks, from whichever queue or wait saw it first): each answers
// hipErrorIllegalAddress, whatever path it took, and a kernel's trap hipErrorLaunchFailure (DeviceFaultAsHip).
inline hipError_t Return(const absl::Status& status) { return Return(ToHipError(DeviceFaultAsHip(status))); }

}  // namespace hipmem::hip

// A hip* entry point's `hip_api` trace slice (ApiSlice), named after the function, given the entry's parameters.
#define HIPMEM_API_SLICE(...) ::hipmem::hip::ApiSlice hipmem_api_slice_(__func__ __VA_OPT__(, ) __VA_ARGS__)

// In a hip* entry point: the runtime (HIPMEM_RUNTIME_OR_RETURN) and the entry's trace slice. Helpers the entry points
// share use HIPMEM_RUNTIME_OR_RETURN alone; an entry that binds no runtime itself opens its slice with
// HIPMEM_API_SLICE().
#define HIPMEM_INIT_OR_RETURN(runtime, ...) \
  HIPMEM_API_SLICE(__VA_ARGS__);            \
  HIPMEM_RUNTIME_OR_RETURN(runtime)

// HIP_INIT_API: the runtime, made on first use; a failed initialisation is every call's answer.
#define HIPMEM_RUNTIME_OR_RETURN(runtime)                                                 \
  absl::StatusOr<::hipmem::hip::Runtime*> runtime##_or = ::hipmem::hip::Runtime::Get();  \
  if (!runtime##_or.ok()) return ::hipmem::hip::Return(runtime##_or.status());           \
  ::hipmem::hip::Runtime& runtime = **runtime##_or

#endif  // HIPMEM_HIP_C_SHELL_H_
