// A process killed with SIGKILL cannot remove its simulated sysfs tree; the next machine made in the same
// temporary directory removes it, and leaves the trees of live processes alone (issue #24 §9).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// A child that makes a machine, tells its sysfs root through a pipe and waits to be killed.
struct Child {
  pid_t pid = -1;
  std::string root = {};
};

Child StartChildWithAMachine() {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    absl::StatusOr<std::shared_ptr<SimMachine>> machine = SimMachine::Create(kfd_sim::DefaultTopology());
    const std::string root = machine.ok() ? (*machine)->sysfs_root() : std::string();
    if (write(fds[1], root.c_str(), root.size() + 1) < 0) _exit(2);
    for (;;) pause();
  }
  close(fds[1]);
  Child child{.pid = pid};
  char buffer[4096] = {};
  size_t got = 0;
  while (got < sizeof(buffer) - 1) {
    const ssize_t n = read(fds[0], buffer + got, sizeof(buffer) - 1 - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
    if (std::memchr(buffer, '\0', got) != nullptr) break;
  }
  close(fds[0]);
  child.root = buffer;
  return child;
}

void Kill(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

TEST(SimSysfsReapTest, TheTreeOfAKilledProcessGoesWithTheNextMachineAndALiveOnesStays) {
  Child killed = StartChildWithAMachine();
  ASSERT_GT(killed.pid, 0);
  ASSERT_FALSE(killed.root.empty()) << "the child could not make a machine";
  Child alive = StartChildWithAMachine();
  ASSERT_GT(alive.pid, 0);
  ASSERT_FALSE(alive.root.empty());
  ASSERT_TRUE(Exists(killed.root + "/nodes"));

  Kill(killed.pid);
  EXPECT_TRUE(Exists(killed.root)) << "SIGKILL leaves the tree (nothing runs in the killed process)";

  absl::StatusOr<std::shared_ptr<SimMachine>> mine = SimMachine::Create(kfd_sim::DefaultTopology());
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_FALSE(Exists(killed.root)) << "a new machine removes the tree nobody holds";
  EXPECT_TRUE(Exists(alive.root + "/nodes")) << "the tree of a live process stays";
  EXPECT_TRUE(Exists((*mine)->sysfs_root() + "/nodes"));

  Kill(alive.pid);
  const std::string my_root = (*mine)->sysfs_root();
  mine->reset();
  EXPECT_FALSE(Exists(my_root)) << "a machine removes its own tree when it goes";
  // The second child's tree goes with the next machine too.
  absl::StatusOr<std::shared_ptr<SimMachine>> next = SimMachine::Create(kfd_sim::DefaultTopology());
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_FALSE(Exists(alive.root));
}

}  // namespace
}  // namespace hipmem::thunk
