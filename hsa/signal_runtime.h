// The signals of one HSA runtime, by handle: what hsa_signal_create hands out, signal groups, and the
// asynchronous handler thread.
//
// Plays the signal half of ROCr's core::Runtime (runtime.cpp: the shared signal pool, the event pool, the
// async events thread) together with the checks of its hsa_signal_* / hsa_amd_signal_* entry points
// (hsa.cpp, hsa_ext_amd.cpp). ROCr trusts a handle (it is the address of the amd_signal_t and is
// dereferenced); here every handle is looked up in a registry first, so a freed or foreign handle is an
// error rather than a crash. The hsa_* C shells (hsa_signal_c_api.cc) are thin layers over this class.
// Thread-safe.
#ifndef HIPMEM_HSA_SIGNAL_RUNTIME_H_
#define HIPMEM_HSA_SIGNAL_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/strong_id.h"
#include "hsa/async_signal_handler.h"
#include "hsa/runtime.h"
#include "hsa/signal.h"

namespace hipmem::hsa {

// hsa_signal_group_t.handle.
using SignalGroupId = StrongId<struct SignalGroupIdTag, uint64_t>;

// hsa_amd_signal_attribute_t bits.
struct SignalAttributes {
  bool gpu_only = false;  // HSA_AMD_SIGNAL_AMD_GPU_ONLY: only GPUs wait on it, so no event
  bool ipc = false;       // HSA_AMD_SIGNAL_IPC: shareable with other processes
};

class SignalRuntime;

// One signal of a SignalRuntime (SignalRuntime::CreateOwned), owned: the destructor destroys it as hsa_signal_destroy
// does and logs a failure; Destroy() && reports it instead. Move-only; a move empties the source. For the runtime's
// clients that hold signals of their own (a stream's completion signals, a queue's error signal), so that no path
// destroys them by hand. The SignalRuntime must outlive it.
class [[nodiscard]] RegisteredSignal {
 public:
  RegisteredSignal(RegisteredSignal&& other) noexcept;
  RegisteredSignal& operator=(RegisteredSignal&& other) noexcept;
  RegisteredSignal(const RegisteredSignal&) = delete;
  RegisteredSignal& operator=(const RegisteredSignal&) = delete;
  ~RegisteredSignal();

  bool empty() const { return runtime_ == nullptr; }
  SignalHandle handle() const { return ref_->handle(); }
  // Must not be called when empty.
  const SignalRef& ref() const { return *ref_; }

  // Destroys the signal now: DestroySignal's errors; kFailedPrecondition when empty (moved from, destroyed).
  absl::Status Destroy() &&;

 private:
  friend class SignalRuntime;
  RegisteredSignal(SignalRuntime* runtime, SignalRef ref) : runtime_(runtime), ref_(std::move(ref)) {}

  SignalRuntime* runtime_;  // Not owned; must outlive this. Null once empty.
  std::optional<SignalRef> ref_;
};

class SignalRuntime {
 public:
  // Signals of `runtime`'s KFD process, which must outlive this. Interrupt signals unless the environment
  // says HSA_ENABLE_INTERRUPT=0 (ROCr's flag). Nothing is allocated yet.
  static std::unique_ptr<SignalRuntime> Create(Runtime& runtime);

  // hsa_shut_down: stops the handler thread (pending handlers are not called), then destroys the signals
  // and groups the application left (logging how many), as ROCr's runtime teardown frees its signal pool.
  ~SignalRuntime();
  SignalRuntime(const SignalRuntime&) = delete;
  SignalRuntime& operator=(const SignalRuntime&) = delete;

  // hsa_amd_signal_create (hsa_signal_create: no attributes). The signal is an interrupt one unless it is
  // GPU-only, interrupts are off, or consumers are named and none is a CPU agent (ROCr's rule); consumers
  // are not otherwise checked, as upstream. Errors: kInvalidArgument for duplicate consumers;
  // kUnimplemented (NOT_SUPPORTED) for IPC, since the simulated KFD has no other process to share with;
  // SignalAllocator::Allocate's.
  absl::StatusOr<SignalHandle> CreateSignal(SignalValue initial, std::span<const AgentId> consumers,
                                            SignalAttributes attributes = {});

  // As CreateSignal, owned by the caller instead of by its handle alone.
  absl::StatusOr<RegisteredSignal> CreateOwned(SignalValue initial, std::span<const AgentId> consumers,
                                               SignalAttributes attributes = {});

  // hsa_signal_destroy. Errors: kInvalidArgument for handle 0 (INVALID_ARGUMENT, as ROCr) and
  // InvalidSignalError for a handle that names no live signal (destroyed already, foreign, or made by
  // another SignalRuntime).
  absl::Status DestroySignal(SignalHandle handle);

  // The live signal behind `handle`. Errors as DestroySignal's.
  absl::StatusOr<SignalRef> Find(SignalHandle handle) const;

  // Signals created and not yet destroyed.
  size_t signal_count() const;

  // hsa_signal_group_create. Errors: kInvalidArgument for no signals; InvalidSignalError for a dead one;
  // InvalidAgentError for an unknown consumer (ROCr checks those here).
  absl::StatusOr<SignalGroupId> CreateGroup(std::span<const SignalHandle> signals, std::span<const AgentId> consumers);
  // hsa_signal_group_destroy. Errors: INVALID_SIGNAL_GROUP (kInvalidArgument) for an unknown group.
  absl::Status DestroyGroup(SignalGroupId group);
  // The group's signals, in creation order (some may have been destroyed since). Errors as DestroyGroup's.
  absl::StatusOr<std::vector<SignalHandle>> GroupSignals(SignalGroupId group) const;

  // hsa_amd_signal_async_handler: starts the handler thread on first use. Errors: Find's;
  // InvalidSignalError for a signal without interrupts while interrupts are on (ROCr's rule);
  // AsyncSignalHandler::Register's.
  absl::Status SetAsyncHandler(SignalHandle handle, SignalCondition condition, SignalValue compare,
                               AsyncSignalHandler::Handler handler);
  // hsa_amd_async_function. Errors: AsyncSignalHandler::Run's.
  absl::Status RunAsync(std::function<void()> function);

  SignalAllocator& allocator() { return *allocator_; }

 private:
  SignalRuntime(Runtime& runtime, bool interrupts);

  // CreateSignal's work: makes the signal, registers it by handle and returns a reference to it.
  absl::StatusOr<SignalRef> Register(SignalValue initial, std::span<const AgentId> consumers,
                                     SignalAttributes attributes);

  absl::StatusOr<AsyncSignalHandler*> Handler();

  Runtime& runtime_;
  // Declared first: destroyed last, after everything that holds its signals. Behind a pointer so that this
  // header, which clr includes, does not name the thunk (signal_allocator.h does).
  std::unique_ptr<SignalAllocator> allocator_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Signal> signals_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, std::vector<SignalHandle>> groups_ ABSL_GUARDED_BY(mu_);
  uint64_t next_group_ ABSL_GUARDED_BY(mu_) = 1;

  absl::Mutex handler_mu_;
  bool handler_stopped_ ABSL_GUARDED_BY(handler_mu_) = false;
  // Declared last: stopped first.
  std::unique_ptr<AsyncSignalHandler> handler_ ABSL_GUARDED_BY(handler_mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SIGNAL_RUNTIME_H_
