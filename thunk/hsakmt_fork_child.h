// A forked child for tests of the hsaKmt C API, as kfdtest's forking tests run one: the child runs a body and
// leaves with exit() (not _exit), so static destructors and atexit handlers run as after kfdtest's child; the
// parent reaps it within a limit, killing it after. The child reports through its exit code (the number of the
// first step that went wrong, see HSAKMT_CHILD_STEP), never through gtest.
#ifndef HIPMEM_THUNK_HSAKMT_FORK_CHILD_H_
#define HIPMEM_THUNK_HSAKMT_FORK_CHILD_H_

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/base/config.h"

namespace hipmem_testing {

// ThreadSanitizer refuses to start threads in the child of a multi-threaded fork ("starting new threads after
// multi-threaded fork is not supported"), and a child that opens its own KFD starts engine threads; a parent with
// an open KFD always has some (its engines and the doorbell poller). Tests whose child opens a KFD skip under
// TSan, from the test body (GTEST_SKIP only leaves the function it is in).
#ifdef ABSL_HAVE_THREAD_SANITIZER
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// How long one step of a forked child may take before it counts as hung. Generous: a step is a few ioctls, but
// under a sanitizer on a loaded two-core machine opening a fresh simulated machine or exiting (the leak check
// runs then) has been seen to pass one second. A real hang still ends well inside WaitChild's limit.
inline constexpr unsigned kChildStepSeconds = 5;

// Forks; the child runs `body` and exit(0)s. Returns the child's pid (-1 when fork failed). For a parent that
// talks to its child before reaping it (WaitChild).
template <typename Body>
pid_t ForkChild(Body body) {
  const pid_t child = fork();
  if (child == 0) {
    body();
    alarm(kChildStepSeconds);
    std::exit(0);  // static destructors and atexit handlers run, as after kfdtest's child
  }
  return child;
}

// Reaps `child` within `limit` (killing it after) and returns its wait status, -1 for no child (fork failed) and
// -2 when the child hung and was killed.
inline int WaitChild(pid_t child, std::chrono::seconds limit = std::chrono::seconds(20)) {
  if (child < 0) return -1;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status;
}

// ForkChild, then WaitChild: the child's wait status.
template <typename Body>
int RunChild(Body body, std::chrono::seconds limit = std::chrono::seconds(20)) {
  return WaitChild(ForkChild(body), limit);
}

// Says what RunChild's status means, for a failure message.
inline std::string DescribeChild(int status) {
  if (status == -1) return "fork failed";
  if (status == -2) return "child hung and was killed";
  if (WIFEXITED(status)) return "child exited with " + std::to_string(WEXITSTATUS(status)) + " (first failed step)";
  if (WIFSIGNALED(status)) return "child killed by signal " + std::to_string(WTERMSIG(status)) + " (14: a step hung)";
  return "child status " + std::to_string(status);
}

}  // namespace hipmem_testing

// In a child: arms an alarm for the step (SIGALRM's default action ends the child), and exits with `n` when
// `ok` is false.
#define HSAKMT_CHILD_STEP(n, ok)                         \
  do {                                                   \
    alarm(::hipmem_testing::kChildStepSeconds);          \
    if (!(ok)) std::exit(n);                             \
  } while (0)

// As HSAKMT_CHILD_STEP, for a step that waits for the other process: 10 s.
#define HSAKMT_CHILD_SLOW_STEP(n, ok) \
  do {                                \
    alarm(10);                        \
    if (!(ok)) std::exit(n);          \
  } while (0)

#endif  // HIPMEM_THUNK_HSAKMT_FORK_CHILD_H_
