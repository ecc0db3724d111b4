// SignalRuntime's owner of a signal, RegisteredSignal, over the real runtime and simulator: the owner suite
// (STYLE.md section 8), read through what the C API sees (the handle is found, or is not).
#include "hsa/signal_runtime.h"

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

class RegisteredSignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(runtime_, Runtime::Create());
    signals_ = SignalRuntime::Create(*runtime_);
  }
  bool Alive(SignalHandle handle) const { return signals_->Find(handle).ok(); }

  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<SignalRuntime> signals_;
};

TEST_F(RegisteredSignalTest, DestructorDestroysTheSignal) {
  SignalHandle handle(0);
  {
    ASSERT_OK_AND_ASSIGN(RegisteredSignal signal, signals_->CreateOwned(7, {}));
    handle = signal.handle();
    EXPECT_TRUE(Alive(handle));
    EXPECT_EQ(signal.ref().Load(MemoryOrder::kAcquire), 7);
    EXPECT_EQ(signals_->signal_count(), 1u);
  }
  EXPECT_FALSE(Alive(handle));
  EXPECT_EQ(signals_->signal_count(), 0u);
}

TEST_F(RegisteredSignalTest, MoveEmptiesTheSourceAndMoveAssignDestroysTheOld) {
  ASSERT_OK_AND_ASSIGN(RegisteredSignal a, signals_->CreateOwned(1, {}));
  ASSERT_OK_AND_ASSIGN(RegisteredSignal b, signals_->CreateOwned(2, {}));
  const SignalHandle a_handle = a.handle();
  const SignalHandle b_handle = b.handle();
  RegisteredSignal moved = std::move(a);
  EXPECT_TRUE(a.empty());
  EXPECT_THAT(std::move(a).Destroy(), StatusIs(absl::StatusCode::kFailedPrecondition)) << "the source is empty";
  EXPECT_TRUE(Alive(a_handle));
  moved = std::move(b);
  EXPECT_FALSE(Alive(a_handle)) << "move-assign destroys what the target held";
  EXPECT_TRUE(Alive(b_handle));
  RegisteredSignal& alias = moved;
  moved = std::move(alias);
  EXPECT_TRUE(Alive(b_handle)) << "self-move keeps the signal";
  EXPECT_THAT(std::move(moved).Destroy(), IsOk());
  EXPECT_FALSE(Alive(b_handle));
}

TEST_F(RegisteredSignalTest, DestroyReportsASignalDestroyedByHandleMeanwhile) {
  ASSERT_OK_AND_ASSIGN(RegisteredSignal signal, signals_->CreateOwned(1, {}));
  // What hsa_signal_destroy on the owner's handle does behind its back.
  ASSERT_THAT(signals_->DestroySignal(signal.handle()), IsOk());
  EXPECT_THAT(std::move(signal).Destroy(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(signal.empty());
}

TEST_F(RegisteredSignalTest, FailedCreationRegistersNothing) {
  SignalAttributes ipc;
  ipc.ipc = true;
  EXPECT_THAT(signals_->CreateOwned(1, {}, ipc), StatusIs(absl::StatusCode::kUnimplemented));
  EXPECT_EQ(signals_->signal_count(), 0u);
}

}  // namespace
}  // namespace hipmem::hsa
