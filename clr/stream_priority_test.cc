// A stream's priority reaches the hardware: the KFD queue behind its AQL queue runs at the kernel priority ROCr
// maps the HSA level to (LOW -> 0, NORMAL -> 7, HIGH -> 15), as the simulated KFD recorded it.
#include <cstdint>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "clr/context.h"
#include "clr/stream.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;

// (process, queue id) -> kernel priority of every compute AQL queue the simulated machine holds.
std::vector<std::pair<std::pair<uint64_t, uint32_t>, uint32_t>> AqlQueues() {
  absl::StatusOr<std::shared_ptr<thunk::SimMachine>> machine = thunk::SimMachine::Default();
  EXPECT_THAT(machine, IsOk());
  std::vector<std::pair<std::pair<uint64_t, uint32_t>, uint32_t>> out;
  if (!machine.ok()) return out;
  for (const kfd_sim::SimProcess& process : (*machine)->simulator().Snapshot().processes) {
    for (const kfd_sim::SimQueue& queue : process.queues) {
      if (queue.type == kfd_uapi::QueueType::kComputeAql) out.push_back({{process.id, queue.id}, queue.priority});
    }
  }
  return out;
}

// The kernel priority of the one compute queue `create` added to the machine; -1 when it added none or several.
template <typename Create>
int NewQueuePriority(Create create) {
  std::set<std::pair<uint64_t, uint32_t>> before;
  for (const auto& [key, priority] : AqlQueues()) before.insert(key);
  create();
  int found = -1;
  int added = 0;
  for (const auto& [key, priority] : AqlQueues()) {
    if (before.count(key) == 0) {
      ++added;
      found = static_cast<int>(priority);
    }
  }
  return added == 1 ? found : -1;
}

TEST(StreamPriorityTest, EachPriorityReachesTheKfdQueueAsRocrMapsIt) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Context> ctx, Context::Create());
  const Device& device = ctx->devices()[0];
  std::vector<std::unique_ptr<Stream>> streams;
  auto make = [&](StreamPriority priority) {
    return NewQueuePriority([&] {
      absl::StatusOr<std::unique_ptr<Stream>> s = Stream::Create(*ctx, device, priority);
      ASSERT_THAT(s, IsOk());
      streams.push_back(*std::move(s));
    });
  };
  EXPECT_EQ(make(StreamPriority::kHigh), 15);
  EXPECT_EQ(make(StreamPriority::kNormal), 7);
  EXPECT_EQ(make(StreamPriority::kLow), 0);
  EXPECT_EQ(NewQueuePriority([&] {
              absl::StatusOr<std::unique_ptr<Stream>> s = Stream::Create(*ctx, device);
              ASSERT_THAT(s, IsOk());
              streams.push_back(*std::move(s));
            }),
            7)
      << "a stream made without a priority runs at NORMAL";
}

TEST(StreamPriorityTest, AHighPriorityStreamStillRunsItsWork) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Context> ctx, Context::Create());
  const Device& device = ctx->devices()[0];
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> high, Stream::Create(*ctx, device, StreamPriority::kHigh));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> low, Stream::Create(*ctx, device, StreamPriority::kLow));
  const Bytes size = Bytes::KiB(16);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, Released(ctx->AllocHost(device, size, HostCoherence::kCoherent, 0)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, Released(ctx->AllocHost(device, size, HostCoherence::kCoherent, 0)));
  ASSERT_THAT(high->ShaderFill(a, 0x11223344, 4, size.raw() / 4), IsOk());
  ASSERT_THAT(low->ShaderFill(b, 0x55667788, 4, size.raw() / 4), IsOk());
  ASSERT_THAT(high->Finish(), IsOk());
  ASSERT_THAT(low->Finish(), IsOk());
  EXPECT_EQ(static_cast<const uint32_t*>(a.ToPointer())[size.raw() / 4 - 1], 0x11223344u);
  EXPECT_EQ(static_cast<const uint32_t*>(b.ToPointer())[size.raw() / 4 - 1], 0x55667788u);
}

}  // namespace
}  // namespace hipmem::clr
