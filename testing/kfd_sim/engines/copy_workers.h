// Host threads a simulated GPU's engines spread large transfers over.
//
// A real copy engine moves a large transfer at the memory's bandwidth, far above one CPU thread's memcpy; the
// simulator stands for that by splitting a large copy into pieces that several host threads move at once. One
// CopyWorkers belongs to a simulated device (a process's view of one GPU, sim_internal.h ProcessDevice) and is
// shared by that device's SDMA engines. The engine thread that asks for a transfer works on it too and returns
// only when every piece has landed, so a packet still completes before the next one starts: splitting changes how
// fast a packet runs, never the order in which packets are seen to complete.
//
// The threads start with the first transfer that is split (a process that copies only small buffers never has
// them) and are joined by the destructor, so none outlives the device.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_COPY_WORKERS_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_COPY_WORKERS_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"

namespace hipmem::kfd_sim {

// Thread-safe: several engines may run transfers at once; each one's caller works on its own transfer, so a
// transfer finishes even while every worker is busy with another.
class CopyWorkers {
 public:
  // Up to `threads` workers besides the callers. The default, one fewer than the host's hardware threads, lets
  // one transfer use every core (its caller is the last one).
  explicit CopyWorkers(int threads = DefaultThreadCount());
  // Joins the workers. No transfer may be running.
  ~CopyWorkers();
  CopyWorkers(const CopyWorkers&) = delete;
  CopyWorkers& operator=(const CopyWorkers&) = delete;

  static int DefaultThreadCount();

  // How many workers there may be (besides the caller); 0 means every transfer runs on its caller alone.
  int max_threads() const { return max_threads_; }
  // How many workers have been started (0 until the first transfer with more than one piece).
  int started_threads() const;

  // Calls piece(i) for every i in [0, count), each once, on the calling thread and any idle workers, and returns
  // when every call has returned. What the caller did before the call happens-before every piece, and every piece
  // happens-before the return. Pieces are handed out in increasing order.
  void ParallelFor(uint64_t count, absl::FunctionRef<void(uint64_t)> piece);

 private:
  struct Job;

  void Loop();
  // Hands out the job's pieces until none is left.
  static void Work(Job& job);

  const int max_threads_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;                // a job was posted, or stop_
  std::vector<Job*> jobs_ ABSL_GUARDED_BY(mu_);    // posted jobs whose callers have not collected them yet
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_COPY_WORKERS_H_
