// A PyTorch-shaped allocation trace: what PyTorch's CUDA/HIP allocator asks of hipMallocAsync / hipFreeAsync
// while it trains a model with PYTORCH_HIP_ALLOC_CONF=backend:cudaMallocAsync (issue 10 §3), generated from a
// seed so a benchmark can replay it and compare the pool's peak reserved bytes with the trace's peak live bytes.
//
// What it models. The async backend (c10/cuda/CUDAMallocAsyncAllocator.cpp) sets the default pool's release
// threshold to UINT64_MAX and turns every reuse attribute on, then forwards each tensor's storage to one
// cudaMallocAsync on the current stream and one cudaFreeAsync when the last reference goes. The trace is the
// sequence of those calls for a decoder-only transformer trained with Adam under bf16 autocast:
//   - parameters (embedding, per block: two norms, QKV and output projections, two MLP linears, biases; the
//     final norm and the LM head) allocated once, in fp32, before the first iteration;
//   - per iteration, a batch of `batch` sequences whose length is drawn from [min_seq, max_seq] in steps of 64
//     (dynamic shapes, the main cause of pool fragmentation in practice; min == max for static shapes);
//   - the forward pass: per op, the outputs autograd saves for backward (norm outputs and their mean/rstd, QKV,
//     the attention output and its logsumexp as a fused attention kernel keeps them, MLP activations, residual
//     sums, bf16 casts of the weights, the logits and the loss's log-probabilities), temporaries freed within
//     the op, and small tensors (scalars, shape and index tensors) of a few bytes to a few KiB;
//   - the backward pass in reverse: each op allocates its input gradient and, with zero_grad(set_to_none=True)
//     (PyTorch's default), its parameters' gradients; frees the incoming gradient, its temporaries and then its
//     saved tensors, so activations die in the reverse of their birth;
//   - the optimizer: Adam's exp_avg and exp_avg_sq allocated at the first step and kept, a step-count scalar per
//     parameter, and foreach temporaries (a parameter-sized list materialised for the whole group, then freed);
//     zero_grad then frees every gradient;
//   - with `side_stream`, a prefetcher's second stream: the next batch's token ids and targets are allocated on
//     it during the current iteration and used on the compute stream (Tensor.record_stream), so their free goes
//     through PyTorch's unifying stream after event waits on both streams; without it, one stream;
//   - loss.item() at the end of each iteration: the host waits for the compute stream.
// Sizes are element counts times element size, rounded up to `granule` bytes: 512 by default, the rounding of
// PyTorch's native caching allocator (kMinBlockSize); 1 reproduces the async backend exactly, which passes
// nbytes through unrounded.
//
// What it does not model: kernels' timing (the replayer decides how far the GPU lags), multiple GPUs and
// collectives (DDP buckets, NCCL/RCCL buffers), activation checkpointing, CUDA graphs, hipBLAS/MIOpen
// workspaces (allocated once per handle), the native allocator's own caching, memory-fraction limits and OOM
// retries, pinned host memory, and models other than the transformer above.
#ifndef HIPMEM_HIP_ALLOC_TRACE_H_
#define HIPMEM_HIP_ALLOC_TRACE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "base/units.h"

namespace hipmem::hip {

enum class TraceOp : uint8_t {
  kAlloc,  // hipMallocAsync(bytes) on `stream`
  kFree,   // hipFreeAsync of `tensor`; see `used_on`
  kSync,   // the host waits for `stream` (loss.item())
};

// The streams a trace uses, by index.
inline constexpr uint8_t kComputeStream = 0;
inline constexpr uint8_t kSideStream = 1;

struct TraceEvent {
  TraceOp op;
  uint32_t tensor;  // kAlloc, kFree: a dense id, allocated once and freed once
  Bytes bytes;      // kAlloc: the request
  uint8_t stream;   // kAlloc: the allocating stream; kFree: the tensor's creation stream; kSync: the stream
  // kFree: bitmask of other streams the tensor was used on (record_stream). Non-zero: PyTorch frees it on its
  // unifying stream after making that stream wait for the creation stream and each of these.
  uint8_t used_on;
};

struct TraceOptions {
  uint64_t seed = 1;
  int blocks = 12;        // transformer blocks
  int iterations = 10;    // training steps
  int batch = 8;          // sequences per step
  int min_seq = 128;      // sequence length range, multiples of 64
  int max_seq = 1024;
  bool side_stream = true;
  uint64_t granule = 512;  // request rounding, a power of two
};

struct AllocTrace {
  std::vector<TraceEvent> events;
  uint32_t tensors = 0;  // ids are [0, tensors)
  int model_dim = 0;     // drawn from the seed
  int vocab = 0;
};

// Generates the trace `options` describe; the same options give the same trace. kInvalidArgument for blocks,
// iterations or batch < 1, sequence bounds not multiples of 64 or out of order (or above 8192), or a granule
// that is not a power of two.
absl::StatusOr<AllocTrace> GenerateTrace(const TraceOptions& options);

struct TraceStats {
  Bytes peak_live;         // the most bytes live at once: what a perfect allocator would reserve
  Bytes largest;           // the largest request
  uint64_t allocs = 0;
  uint64_t small_allocs = 0;  // requests under 1 MiB
  uint64_t cross_stream_frees = 0;
};

// Checks `trace` and measures it. kInvalidArgument when a tensor is allocated twice, freed before it is
// allocated or twice, allocated with 0 bytes, names a stream other than the compute and side streams, or is
// still live at the end.
absl::StatusOr<TraceStats> Summarize(const AllocTrace& trace);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_ALLOC_TRACE_H_
