#include "hip/alloc_trace.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

TraceOptions Small(uint64_t seed = 7) {
  TraceOptions o;
  o.seed = seed;
  o.blocks = 3;
  o.iterations = 4;
  o.batch = 2;
  o.min_seq = 128;
  o.max_seq = 512;
  return o;
}

bool SameEvents(const AllocTrace& a, const AllocTrace& b) {
  if (a.events.size() != b.events.size() || a.tensors != b.tensors) return false;
  for (size_t i = 0; i < a.events.size(); ++i) {
    const TraceEvent &x = a.events[i], &y = b.events[i];
    if (x.op != y.op || x.tensor != y.tensor || x.bytes != y.bytes || x.stream != y.stream || x.used_on != y.used_on) {
      return false;
    }
  }
  return true;
}

// Live bytes at each loss.item().
std::vector<uint64_t> LiveAtSyncs(const AllocTrace& t) {
  std::vector<uint64_t> size(t.tensors), out;
  uint64_t live = 0;
  for (const TraceEvent& e : t.events) {
    if (e.op == TraceOp::kAlloc) {
      size[e.tensor] = e.bytes.raw();
      live += e.bytes.raw();
    } else if (e.op == TraceOp::kFree) {
      live -= size[e.tensor];
    } else {
      out.push_back(live);
    }
  }
  return out;
}

TEST(AllocTraceTest, SameSeedGivesSameTraceAndAnotherSeedAnother) {
  ASSERT_OK_AND_ASSIGN(AllocTrace a, GenerateTrace(Small(7)));
  ASSERT_OK_AND_ASSIGN(AllocTrace b, GenerateTrace(Small(7)));
  ASSERT_OK_AND_ASSIGN(AllocTrace c, GenerateTrace(Small(8)));
  EXPECT_TRUE(SameEvents(a, b));
  EXPECT_FALSE(SameEvents(a, c));
}

TEST(AllocTraceTest, EveryTensorIsAllocatedOnceAndFreedOnce) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    ASSERT_OK_AND_ASSIGN(AllocTrace t, GenerateTrace(Small(seed)));
    ASSERT_OK_AND_ASSIGN(TraceStats s, Summarize(t));
    EXPECT_EQ(s.allocs, t.tensors);
    EXPECT_GT(s.peak_live.raw(), 0u);
  }
}

TEST(AllocTraceTest, RequestsAreRoundedToTheGranule) {
  ASSERT_OK_AND_ASSIGN(AllocTrace t, GenerateTrace(Small()));
  for (const TraceEvent& e : t.events) {
    if (e.op == TraceOp::kAlloc) {
      ASSERT_EQ(e.bytes.raw() % 512, 0u) << e.bytes;
    }
  }
  TraceOptions exact = Small();
  exact.granule = 1;  // what the async backend passes: nbytes as is
  ASSERT_OK_AND_ASSIGN(AllocTrace u, GenerateTrace(exact));
  bool unaligned = false;
  for (const TraceEvent& e : u.events) unaligned = unaligned || (e.op == TraceOp::kAlloc && e.bytes.raw() % 512 != 0);
  EXPECT_TRUE(unaligned);
}

TEST(AllocTraceTest, ManySmallRequestsAndAFewLargeOnes) {
  ASSERT_OK_AND_ASSIGN(AllocTrace t, GenerateTrace(TraceOptions{}));
  ASSERT_OK_AND_ASSIGN(TraceStats s, Summarize(t));
  EXPECT_GT(s.small_allocs * 2, s.allocs) << s.small_allocs << " of " << s.allocs;
  // The logits and the loss's log-probabilities: tokens x vocab.
  EXPECT_GE(s.largest, Bytes::MiB(64));
  uint64_t large = 0;
  for (const TraceEvent& e : t.events) large += e.op == TraceOp::kAlloc && e.bytes >= Bytes::MiB(64);
  EXPECT_LT(large * 20, s.allocs);
}

TEST(AllocTraceTest, StaticShapesReachTheSameStateEveryIteration) {
  // Parameters, optimizer state and the prefetched batch persist; everything else an iteration makes, it frees.
  TraceOptions o = Small();
  o.min_seq = o.max_seq = 256;
  o.iterations = 5;
  ASSERT_OK_AND_ASSIGN(AllocTrace t, GenerateTrace(o));
  const std::vector<uint64_t> live = LiveAtSyncs(t);
  ASSERT_EQ(live.size(), 5u);
  // Adam's state is made before the first loss.item(); the last step has no next batch to prefetch.
  EXPECT_EQ(live[1], live[0]);
  EXPECT_EQ(live[2], live[0]);
  EXPECT_EQ(live[3], live[0]);
  EXPECT_LT(live[4], live[3]);
}

TEST(AllocTraceTest, LongerSequencesAndMoreBlocksRaiseThePeak) {
  TraceOptions short_seq = Small(), long_seq = Small(), deep = Small();
  short_seq.min_seq = short_seq.max_seq = 128;
  long_seq.min_seq = long_seq.max_seq = 1024;
  deep.min_seq = deep.max_seq = 128;
  deep.blocks = 6;
  ASSERT_OK_AND_ASSIGN(AllocTrace a, GenerateTrace(short_seq));
  ASSERT_OK_AND_ASSIGN(AllocTrace b, GenerateTrace(long_seq));
  ASSERT_OK_AND_ASSIGN(AllocTrace c, GenerateTrace(deep));
  ASSERT_OK_AND_ASSIGN(TraceStats sa, Summarize(a));
  ASSERT_OK_AND_ASSIGN(TraceStats sb, Summarize(b));
  ASSERT_OK_AND_ASSIGN(TraceStats sc, Summarize(c));
  EXPECT_GT(sb.peak_live, sa.peak_live);
  EXPECT_GT(sc.peak_live, sa.peak_live);
}

TEST(AllocTraceTest, ActivationsDieInReverseOfBirth) {
  // The forward's biggest per-block activations (the MLP's 4x-wide ones) are freed last-born first.
  TraceOptions o = Small();
  o.min_seq = o.max_seq = 256;
  o.iterations = 1;
  ASSERT_OK_AND_ASSIGN(AllocTrace t, GenerateTrace(o));
  const uint64_t wide = uint64_t{2} * 256 * 4 * t.model_dim * 2;  // batch x seq x 4d, bf16
  std::vector<uint32_t> born, died;
  for (const TraceEvent& e : t.events) {
    if (e.op == TraceOp::kAlloc && e.bytes.raw() == wide) born.push_back(e.tensor);
  }
  for (const TraceEvent& e : t.events) {
    if (e.op != TraceOp::kFree) continue;
    for (uint32_t b : born) {
      if (b == e.tensor) died.push_back(b);
    }
  }
  ASSERT_FALSE(born.empty());
  // Forward: fc1's output and gelu's per block; backward: their gradients, which also die.
  std::vector<uint32_t> forward(born.begin(), born.begin() + 2 * o.blocks);
  std::vector<uint32_t> forward_deaths;
  for (uint32_t d : died) {
    if (std::find(forward.begin(), forward.end(), d) != forward.end()) forward_deaths.push_back(d);
  }
  std::vector<uint32_t> reversed(forward.rbegin(), forward.rend());
  EXPECT_EQ(forward_deaths, reversed);
}

TEST(AllocTraceTest, SideStreamBatchesAreFreedThroughTheUnifyingStream) {
  ASSERT_OK_AND_ASSIGN(AllocTrace two, GenerateTrace(Small()));
  ASSERT_OK_AND_ASSIGN(TraceStats s2, Summarize(two));
  EXPECT_EQ(s2.cross_stream_frees, 2u * 4);  // ids and targets per iteration
  size_t side_allocs = 0;
  for (const TraceEvent& e : two.events) side_allocs += e.op == TraceOp::kAlloc && e.stream == kSideStream;
  EXPECT_EQ(side_allocs, 2u * 4);

  TraceOptions one = Small();
  one.side_stream = false;
  ASSERT_OK_AND_ASSIGN(AllocTrace t1, GenerateTrace(one));
  ASSERT_OK_AND_ASSIGN(TraceStats s1, Summarize(t1));
  EXPECT_EQ(s1.cross_stream_frees, 0u);
  for (const TraceEvent& e : t1.events) ASSERT_EQ(e.stream, kComputeStream);
}

TEST(AllocTraceTest, BadOptionsAreRejected) {
  struct Row {
    const char* what;
    TraceOptions options;
  };
  TraceOptions no_blocks = Small(), no_iterations = Small(), no_batch = Small(), odd_seq = Small(),
               reversed = Small(), huge = Small(), granule = Small(), zero_granule = Small();
  no_blocks.blocks = 0;
  no_iterations.iterations = 0;
  no_batch.batch = -1;
  odd_seq.min_seq = 100;
  reversed.min_seq = 512;
  reversed.max_seq = 256;
  huge.max_seq = 16384;
  granule.granule = 384;
  zero_granule.granule = 0;
  const Row rows[] = {{"blocks", no_blocks}, {"iterations", no_iterations}, {"batch", no_batch},
                      {"min_seq", odd_seq},  {"min_seq", reversed},         {"max_seq", huge},
                      {"granule", granule},  {"granule", zero_granule}};
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    EXPECT_THAT(GenerateTrace(row.options).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.what)));
  }
}

TEST(AllocTraceTest, SummarizeRejectsMalformedTraces) {
  auto alloc = [](uint32_t t, uint64_t b) { return TraceEvent{TraceOp::kAlloc, t, Bytes(b), kComputeStream, 0}; };
  auto free = [](uint32_t t) { return TraceEvent{TraceOp::kFree, t, Bytes(0), kComputeStream, 0}; };
  struct Row {
    const char* what;
    std::vector<TraceEvent> events;
  };
  const Row rows[] = {
      {"allocated twice", {alloc(0, 512), alloc(0, 512), free(0)}},
      {"freed while unborn", {free(0), alloc(0, 512)}},
      {"freed while freed", {alloc(0, 512), free(0), free(0)}},
      {"still live", {alloc(0, 512)}},
      {"0 bytes", {alloc(0, 0), free(0)}},
      {"names stream", {TraceEvent{TraceOp::kAlloc, 0, Bytes(512), 2, 0}, free(0)}},
      {"names tensor", {alloc(1, 512), free(1)}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    AllocTrace t;
    t.events = row.events;
    t.tensors = 1;
    EXPECT_THAT(Summarize(t).status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.what)));
  }
  AllocTrace ok;
  ok.events = {alloc(0, 512), alloc(1, 1024), free(0), alloc(2, 2048), free(1), free(2)};
  ok.tensors = 3;
  ASSERT_OK_AND_ASSIGN(TraceStats s, Summarize(ok));
  EXPECT_EQ(s.peak_live, Bytes(3072));
  EXPECT_EQ(s.largest, Bytes(2048));
  EXPECT_EQ(s.allocs, 3u);
}

}  // namespace
}  // namespace hipmem::hip
