#include "testing/kfd_sim/engines/copy_workers.h"

#include <algorithm>
#include <atomic>

#include "absl/status/statusor.h"
#include "testing/kfd_sim/host/host_thread.h"

namespace hipmem::kfd_sim {

// One ParallelFor call: lives on its caller's stack until every worker that joined it has left.
struct CopyWorkers::Job {
  Job(uint64_t count, absl::FunctionRef<void(uint64_t)> piece) : count(count), piece(piece) {}

  const uint64_t count;
  const absl::FunctionRef<void(uint64_t)> piece;
  std::atomic<uint64_t> next{0};  // the next piece to hand out
  int helpers = 0;                // guarded by CopyWorkers::mu_: workers inside Work for this job
  std::condition_variable left;   // helpers dropped to 0

  bool exhausted() const { return next.load(std::memory_order_relaxed) >= count; }
};

int CopyWorkers::DefaultThreadCount() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - 1;
}

CopyWorkers::CopyWorkers(int threads) : max_threads_(std::max(threads, 0)) {}

CopyWorkers::~CopyWorkers() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    threads.swap(threads_);
  }
  work_cv_.notify_all();
  for (std::thread& t : threads) t.join();
}

int CopyWorkers::started_threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(threads_.size());
}

void CopyWorkers::Work(Job& job) {
  for (uint64_t i = job.next.fetch_add(1, std::memory_order_relaxed); i < job.count;
       i = job.next.fetch_add(1, std::memory_order_relaxed)) {
    job.piece(i);
  }
}

void CopyWorkers::ParallelFor(uint64_t count, absl::FunctionRef<void(uint64_t)> piece) {
  if (count <= 1 || max_threads_ == 0) {
    for (uint64_t i = 0; i < count; ++i) piece(i);
    return;
  }
  Job job(count, piece);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Started on first use: a process that never splits a transfer never has the threads. A worker the host refuses
    // is only a slower copy (the caller does its pieces), so the transfer goes on with those that started.
    while (static_cast<int>(threads_.size()) < max_threads_) {
      absl::StatusOr<std::thread> thread = StartHostThread([this] { Loop(); });
      if (!thread.ok()) break;
      threads_.push_back(*std::move(thread));
    }
    jobs_.push_back(&job);
  }
  // Waking more workers than there are pieces beyond the caller's own only costs them a trip through the lock.
  if (count - 1 >= static_cast<uint64_t>(max_threads_)) {
    work_cv_.notify_all();
  } else {
    for (uint64_t i = 0; i + 1 < count; ++i) work_cv_.notify_one();
  }
  Work(job);
  std::unique_lock<std::mutex> lock(mu_);
  // Collected: no worker joins the job from now on; wait for those inside it to finish their pieces.
  jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
  job.left.wait(lock, [&] { return job.helpers == 0; });
}

void CopyWorkers::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    Job* job = nullptr;
    work_cv_.wait(lock, [&] {
      if (stop_) return true;
      for (Job* posted : jobs_) {
        if (!posted->exhausted()) {
          job = posted;
          return true;
        }
      }
      return false;
    });
    if (job == nullptr) return;  // stop_
    ++job->helpers;
    lock.unlock();
    Work(*job);
    lock.lock();
    // Notified under the lock: the caller cannot see helpers reach 0, return and free the job before this is done.
    if (--job->helpers == 0) job->left.notify_one();
  }
}

}  // namespace hipmem::kfd_sim
