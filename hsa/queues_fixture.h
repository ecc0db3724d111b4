// The fixture the Queues tests over the real runtime share (queue_signal_test, queue_owner_test): a runtime on the
// simulator, its signal runtime and a Queues over both, made for each test, and the first GPU agent.
#ifndef HIPMEM_HSA_QUEUES_FIXTURE_H_
#define HIPMEM_HSA_QUEUES_FIXTURE_H_

#include <memory>

#include "gtest/gtest.h"
#include "hsa/queue.h"
#include "hsa/runtime.h"
#include "hsa/signal_runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {

class QueuesFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(runtime_, Runtime::Create());
    signals_ = SignalRuntime::Create(*runtime_);
    queues_ = std::make_unique<Queues>(*runtime_, *signals_);
    for (const Agent& agent : runtime_->agents()) {
      if (agent.type == DeviceType::kGpu) {
        gpu_ = agent.id;
        break;
      }
    }
    ASSERT_NE(gpu_.raw(), 0u) << "the simulated machine has a GPU";
  }

  // Destroyed bottom up: the queues before the signals they own, and both before the runtime.
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<SignalRuntime> signals_;
  std::unique_ptr<Queues> queues_;
  AgentId gpu_{0};
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_QUEUES_FIXTURE_H_
