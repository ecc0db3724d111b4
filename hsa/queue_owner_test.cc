// Queues' owner of a queue, hsa::Queue, over the real runtime and simulator: the owner suite (STYLE.md section 8),
// read through what a client sees (the runtime still holds the queue, or does not).
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "hsa/queue.h"
#include "hsa/queues_fixture.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

class QueueOwnerTest : public QueuesFixture {
 protected:
  // Whether the runtime still knows `queue` (GetInfo answers INVALID_QUEUE once it is destroyed).
  bool Alive(const AmdQueue* queue) const { return queues_->GetInfo(queue).ok(); }
};

TEST_F(QueueOwnerTest, DestructorDestroysTheQueue) {
  const AmdQueue* amd = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(Queue queue, queues_->CreateOwned({.agent = gpu_, .size = 64}));
    amd = queue.get();
    ASSERT_NE(amd, nullptr);
    EXPECT_EQ(amd->size, 64u);
    EXPECT_TRUE(Alive(amd));
    EXPECT_EQ(queues_->queue_count(), 1u);
  }
  EXPECT_FALSE(Alive(amd));
  EXPECT_EQ(queues_->queue_count(), 0u);
}

TEST_F(QueueOwnerTest, MoveEmptiesTheSourceAndMoveAssignDestroysTheOld) {
  ASSERT_OK_AND_ASSIGN(Queue a, queues_->CreateOwned({.agent = gpu_, .size = 64}));
  ASSERT_OK_AND_ASSIGN(Queue b, queues_->CreateOwned({.agent = gpu_, .size = 64}));
  const AmdQueue* a_amd = a.get();
  const AmdQueue* b_amd = b.get();
  Queue moved = std::move(a);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_THAT(std::move(a).Destroy(), StatusIs(absl::StatusCode::kFailedPrecondition)) << "the source is empty";
  EXPECT_TRUE(Alive(a_amd));
  moved = std::move(b);
  EXPECT_FALSE(Alive(a_amd)) << "move-assign destroys what the target held";
  EXPECT_TRUE(Alive(b_amd));
  Queue& alias = moved;
  moved = std::move(alias);
  EXPECT_TRUE(Alive(b_amd)) << "self-move keeps the queue";
  EXPECT_THAT(std::move(moved).Destroy(), IsOk());
  EXPECT_FALSE(Alive(b_amd));
  EXPECT_EQ(queues_->queue_count(), 0u);
}

TEST_F(QueueOwnerTest, DestroyReportsAQueueDestroyedByAddressMeanwhile) {
  ASSERT_OK_AND_ASSIGN(Queue queue, queues_->CreateOwned({.agent = gpu_, .size = 64}));
  // What hsa_queue_destroy on the owner's queue does behind its back.
  ASSERT_THAT(queues_->Destroy(queue.get()), IsOk());
  EXPECT_THAT(std::move(queue).Destroy(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(queue.empty());
}

TEST_F(QueueOwnerTest, EachOwnerOfTheCooperativeQueueHoldsOneReference) {
  ASSERT_OK_AND_ASSIGN(Queue first, queues_->CreateOwned({.agent = gpu_, .size = 64, .kind = QueueKind::kCooperative}));
  const AmdQueue* amd = first.get();
  {
    ASSERT_OK_AND_ASSIGN(Queue second,
                         queues_->CreateOwned({.agent = gpu_, .size = 64, .kind = QueueKind::kCooperative}));
    ASSERT_EQ(second.get(), amd);
  }
  EXPECT_TRUE(Alive(amd)) << "the first owner's reference keeps the shared queue";
  EXPECT_THAT(std::move(first).Destroy(), IsOk());
  EXPECT_FALSE(Alive(amd));
}

TEST_F(QueueOwnerTest, FailedCreationLeavesNoQueue) {
  EXPECT_THAT(queues_->CreateOwned({.agent = gpu_, .size = 100}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(queues_->queue_count(), 0u);
}

}  // namespace
}  // namespace hipmem::hsa
