// hsa_amd_memory_async_batch_copy through the C API, as HIP's hipMemcpyBatchAsync reaches it: LINEAR operations
// of one copy or of entry lists, each completing its own signal once, after the batch's dependencies; ROCr's
// SDMA-off fallback (synchronous); and the argument checks. Built per preset and with HSA_ENABLE_SDMA=0 (BUILD).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/copy_c_api_fixture.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

using hsa_copy_test::Pattern;
using hsa_copy_test::SdmaDisabled;

class HsaBatchCopyCApi : public hsa_copy_test::CopyCApiTest {};

hsa_amd_memory_copy_op_t LinearOp(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                                  hsa_signal_t done) {
  hsa_amd_memory_copy_op_t op{};
  op.version = HSA_AMD_MEMORY_COPY_OP_VERSION;
  op.type = HSA_AMD_MEMORY_COPY_OP_LINEAR;
  op.completion_signal = done;
  op.src = const_cast<void*>(src);
  op.src_agent = src_agent;
  op.dst_agent = dst_agent;
  op.dst = dst;
  op.size = size;
  return op;
}

TEST(HsaBatchCopyCApiBeforeInit, IsNotInitialized) {
  EXPECT_EQ(hsa_amd_memory_async_batch_copy(nullptr, 0, 0, nullptr), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_F(HsaBatchCopyCApi, SingleCopyOperationsLandAndEachSignalDropsByOne) {
  const std::vector<uint8_t> in = Pattern((1 << 20) + 13, 4);
  void* vram = Vram(gpu_, in.size());
  std::vector<uint8_t> out(in.size(), 0);
  const hsa_signal_t h2d = Signal(1);
  const hsa_amd_memory_copy_op_t first = LinearOp(vram, gpu_, in.data(), agents_.cpu, in.size(), h2d);
  ASSERT_EQ(hsa_amd_memory_async_batch_copy(&first, 1, 0, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(h2d), 0);
  // Back again, chained on the first signal through the batch's dependency list.
  const hsa_signal_t d2h = Signal(1);
  const hsa_amd_memory_copy_op_t back = LinearOp(out.data(), agents_.cpu, vram, gpu_, out.size(), d2h);
  ASSERT_EQ(hsa_amd_memory_async_batch_copy(&back, 1, 1, &h2d), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(d2h), 0);
  EXPECT_EQ(out, in);
}

TEST_F(HsaBatchCopyCApi, EntryListsCompleteTheirSignalOnceAfterTheLastEntry) {
  // Three entries of different sizes into one VRAM buffer, and two operations sharing a signal set to 2.
  const std::vector<uint8_t> in = Pattern(3 * 65536, 9);
  void* vram = VramWith(std::vector<uint8_t>(3 * 65536, 0));
  char* base = static_cast<char*>(vram);
  void* dsts[3] = {base + 65536 * 2, base, base + 65536 + 100};
  void* srcs[3] = {const_cast<uint8_t*>(in.data()), const_cast<uint8_t*>(in.data()) + 65536,
                   const_cast<uint8_t*>(in.data()) + 2 * 65536};
  size_t sizes[3] = {65536, 4093, 30000};
  hsa_agent_t dst_agents[3] = {gpu_, gpu_, gpu_};
  const hsa_signal_t done = Signal(2);
  hsa_amd_memory_copy_op_t ops[2] = {};
  ops[0].version = HSA_AMD_MEMORY_COPY_OP_VERSION;
  ops[0].type = HSA_AMD_MEMORY_COPY_OP_LINEAR;
  ops[0].num_entries = 3;
  ops[0].completion_signal = done;
  ops[0].src_list = srcs;
  ops[0].src_agent = agents_.cpu;
  ops[0].dst_agent_list = dst_agents;
  ops[0].dst_list = dsts;
  ops[0].size_list = sizes;
  std::vector<uint8_t> tail(512, 0);
  ops[1] = LinearOp(tail.data(), agents_.cpu, in.data() + 7, agents_.cpu, tail.size(), done);
  ASSERT_EQ(hsa_amd_memory_async_batch_copy(ops, 2, 0, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0) << "each operation takes exactly one off the shared signal";
  std::vector<uint8_t> want(3 * 65536, 0);
  for (int e = 0; e < 3; ++e) {
    std::memcpy(want.data() + (static_cast<char*>(dsts[e]) - base), srcs[e], sizes[e]);
  }
  EXPECT_EQ(ReadVram(vram, want.size()), want);
  EXPECT_EQ(std::memcmp(tail.data(), in.data() + 7, tail.size()), 0);
}

TEST_F(HsaBatchCopyCApi, BroadcastCopiesOneSourceToEveryDestination) {
  const std::vector<uint8_t> in = Pattern(20000, 33);
  void* vrams[3] = {VramWith(std::vector<uint8_t>(in.size(), 0)), VramWith(std::vector<uint8_t>(in.size(), 0)),
                    nullptr};
  std::vector<uint8_t> host(in.size(), 0);
  vrams[2] = host.data();
  hsa_agent_t dst_agents[3] = {gpu_, gpu_, agents_.cpu};
  const hsa_signal_t done = Signal(1);
  hsa_amd_memory_copy_op_t op{};
  op.version = HSA_AMD_MEMORY_COPY_OP_VERSION;
  op.type = HSA_AMD_MEMORY_COPY_OP_LINEAR_BROADCAST;
  op.num_entries = 3;
  op.completion_signal = done;
  op.src = const_cast<uint8_t*>(in.data());
  op.src_agent = agents_.cpu;
  op.dst_agent_list = dst_agents;
  op.dst_list = vrams;
  op.size = in.size();
  const hsa_status_t status = hsa_amd_memory_async_batch_copy(&op, 1, 0, nullptr);
  if (SdmaDisabled()) {
    // ROCr's SDMA-off fallback has no broadcast, and nothing was done.
    EXPECT_EQ(status, HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(hsa_signal_load_scacquire(done), 1);
    return;
  }
  ASSERT_EQ(status, HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(ReadVram(vrams[0], in.size()), in);
  EXPECT_EQ(ReadVram(vrams[1], in.size()), in);
  EXPECT_EQ(host, in);
}

TEST_F(HsaBatchCopyCApi, WaitsForTheBatchDependencies) {
  if (SdmaDisabled()) GTEST_SKIP() << "the SDMA-off fallback waits on the caller: see FallbackIsSynchronous";
  const std::vector<uint8_t> contents = Pattern(8192, 21);
  void* vram = VramWith(contents);
  std::vector<uint8_t> out(contents.size(), 0xee);
  const hsa_signal_t gate = Signal(1), done = Signal(1);
  const hsa_amd_memory_copy_op_t op = LinearOp(out.data(), agents_.cpu, vram, gpu_, out.size(), done);
  ASSERT_EQ(hsa_amd_memory_async_batch_copy(&op, 1, 1, &gate), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 50'000'000, HSA_WAIT_STATE_BLOCKED), 1);
  hsa_signal_store_screlease(gate, 0);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(out, contents);
}

TEST_F(HsaBatchCopyCApi, FallbackIsSynchronous) {
  if (!SdmaDisabled()) GTEST_SKIP() << "only with HSA_ENABLE_SDMA=0";
  const std::vector<uint8_t> in = Pattern(10000, 2);
  void* vram = Vram(gpu_, in.size());
  const hsa_signal_t done = Signal(1);
  const hsa_amd_memory_copy_op_t op = LinearOp(vram, gpu_, in.data(), agents_.cpu, in.size(), done);
  ASSERT_EQ(hsa_amd_memory_async_batch_copy(&op, 1, 0, nullptr), HSA_STATUS_SUCCESS);
  // ROCr's DmaCopyBatchFallback copies on the blit kernel and decrements before it returns.
  EXPECT_EQ(hsa_signal_load_scacquire(done), 0);
  EXPECT_EQ(ReadVram(vram, in.size()), in);
}

TEST_F(HsaBatchCopyCApi, BadOperationsAreRefusedAndNothingIsQueued) {
  std::vector<uint8_t> host(4096, 1);
  void* vram = VramWith(std::vector<uint8_t>(4096, 0));
  const hsa_signal_t done = Signal(1), dep = Signal(0);
  const hsa_amd_memory_copy_op_t good = LinearOp(vram, gpu_, host.data(), agents_.cpu, 4096, done);
  auto with = [&](auto change) {
    hsa_amd_memory_copy_op_t ops[2] = {good, good};
    change(ops[1]);
    return hsa_amd_memory_async_batch_copy(ops, 2, 0, nullptr);
  };
  EXPECT_EQ(hsa_amd_memory_async_batch_copy(nullptr, 1, 0, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_async_batch_copy(&good, 1, 1, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_async_batch_copy(&good, 1, 0, &dep), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.version = 2; }), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.type = 99; }), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.dst = nullptr; }), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.size = 8192; }), HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "runs past the VRAM allocation";
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.dst_agent = hsa_agent_t{0x1234}; }),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.completion_signal = hsa_signal_t{0}; }),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) {
              o.num_entries = 2;
              o.size_list = nullptr;  // shares its storage with size
            }),
            HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "entries without a size list";
  constexpr auto kNotSupported = static_cast<hsa_status_t>(HSA_STATUS_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.type = HSA_AMD_MEMORY_COPY_OP_LINEAR_SWAP; }), kNotSupported);
  EXPECT_EQ(with([](hsa_amd_memory_copy_op_t& o) { o.wait.function = HSA_AMD_MEMORY_COPY_WAIT_EQ; }), kNotSupported);
  // The first, valid operation of each refused batch was not queued either.
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 20'000'000, HSA_WAIT_STATE_BLOCKED), 1);
  EXPECT_EQ(ReadVram(vram, 4096), std::vector<uint8_t>(4096, 0));
  EXPECT_EQ(hsa_amd_memory_async_batch_copy(&good, 0, 0, nullptr), HSA_STATUS_SUCCESS) << "an empty batch";
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1);
}

}  // namespace
