// The two kinds of HSA signal. Apart from signal_allocator.h (which names the thunk) so that signal.h and the
// headers clients include can name a kind without seeing the KFD.
#ifndef HIPMEM_HSA_SIGNAL_KIND_H_
#define HIPMEM_HSA_SIGNAL_KIND_H_

namespace hipmem::hsa {

// Whether a signal gets a KFD event (ROCr's InterruptSignal) or is memory only (its DefaultSignal, a
// busy-wait signal: a GPU completing it raises no interrupt, so a host waiter polls).
enum class SignalKind { kInterrupt, kDefault };

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SIGNAL_KIND_H_
