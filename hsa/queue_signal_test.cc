// A GPU queue owns its queue_inactive_signal (the CP's error and scratch-request channel): the signal lives exactly
// as long as the queue, on every path that ends one -- hsa_queue_destroy, a creation that fails after the signal
// was made, and the runtime's shutdown with queues left.
#include <cerrno>
#include <memory>

#include "gtest/gtest.h"
#include "hsa/queue.h"
#include "hsa/queues_fixture.h"
#include "hsa/runtime.h"
#include "hsa/signal_runtime.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/fault_injection.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;

class QueueSignalTest : public QueuesFixture {
 protected:
  bool Alive(uint64_t handle) const { return signals_->Find(SignalHandle(handle)).ok(); }
};

TEST_F(QueueSignalTest, TheInactiveSignalLivesAsLongAsTheQueue) {
  ASSERT_EQ(signals_->signal_count(), 0u);
  ASSERT_OK_AND_ASSIGN(AmdQueue * queue, queues_->Create({.agent = gpu_, .size = 64}));
  const uint64_t inactive = queue->queue_inactive_signal;
  EXPECT_TRUE(Alive(inactive));
  EXPECT_EQ(signals_->signal_count(), 1u);
  ASSERT_THAT(queues_->Destroy(queue), IsOk());
  EXPECT_FALSE(Alive(inactive));
  EXPECT_EQ(signals_->signal_count(), 0u);
}

// The cooperative queue's GWS is asked for after the queue and its signal exist; a KFD that refuses it leaves
// neither behind.
TEST_F(QueueSignalTest, ACreationThatFailsAfterTheSignalLeavesNoSignal) {
  {
    kfd_sim::ScopedFaultInjection busy(
        kfd_sim::FaultPlan{.fail_at = 1, .error = EBUSY, .only_ioctl_nr = kfd_uapi::kAllocQueueGws.nr});
    EXPECT_FALSE(queues_->Create({.agent = gpu_, .size = 64, .kind = QueueKind::kCooperative}).ok());
    ASSERT_EQ(busy.failed(), 1u);
  }
  EXPECT_EQ(signals_->signal_count(), 0u);
  EXPECT_EQ(queues_->queue_count(), 0u);
}

// The cooperative queue is one queue however many requests share it: one signal, gone with the last reference.
TEST_F(QueueSignalTest, ASharedCooperativeQueueHasOneSignalUntilItsLastReference) {
  ASSERT_OK_AND_ASSIGN(AmdQueue * first, queues_->Create({.agent = gpu_, .size = 64, .kind = QueueKind::kCooperative}));
  ASSERT_OK_AND_ASSIGN(AmdQueue * second, queues_->Create({.agent = gpu_, .size = 64, .kind = QueueKind::kCooperative}));
  ASSERT_EQ(first, second);
  EXPECT_EQ(signals_->signal_count(), 1u);
  ASSERT_THAT(queues_->Destroy(first), IsOk());
  EXPECT_EQ(signals_->signal_count(), 1u);
  ASSERT_THAT(queues_->Destroy(second), IsOk());
  EXPECT_EQ(signals_->signal_count(), 0u);
}

TEST_F(QueueSignalTest, ShutdownWithQueuesLeftDestroysTheirSignals) {
  ASSERT_OK_AND_ASSIGN(AmdQueue * queue, queues_->Create({.agent = gpu_, .size = 64}));
  const uint64_t inactive = queue->queue_inactive_signal;
  ASSERT_OK_AND_ASSIGN(AmdQueue * counted, queues_->AcquireCounted({.agent = gpu_}));
  (void)counted;  // its hardware queue is the runtime's own, torn down at shutdown too
  EXPECT_EQ(signals_->signal_count(), 2u);
  queues_.reset();
  EXPECT_FALSE(Alive(inactive));
  EXPECT_EQ(signals_->signal_count(), 0u);
}

}  // namespace
}  // namespace hipmem::hsa
