#include "hip/alloc_trace.h"

#include <algorithm>
#include <optional>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hipmem::hip {
namespace {

constexpr uint64_t kF32 = 4;
constexpr uint64_t kBf16 = 2;
constexpr uint64_t kI64 = 8;
constexpr uint8_t kComputeBit = 1u << kComputeStream;

// An autograd node as far as memory goes: what it keeps for backward and what its backward allocates.
struct Op {
  std::vector<size_t> params;    // indices into Generator::param_bytes_
  std::vector<uint32_t> saved;   // freed, last first, when its backward is done
  uint64_t grad_in = 0;          // the gradient it hands to the op before it
  uint64_t backward_temp = 0;    // a workspace its backward needs (0: none)
  bool autocast = false;         // its weights run in bf16: their gradients pass through a bf16 temporary
};

class Generator {
 public:
  explicit Generator(const TraceOptions& o) : o_(o), rng_(o.seed) {
    // The model's width and vocabulary come from the seed too, so seeds differ in shape, not only in lengths.
    constexpr int kDims[] = {512, 768, 1024};
    constexpr int kVocabs[] = {32000, 50304};
    dim_ = kDims[rng_() % 3];
    vocab_ = kVocabs[rng_() % 2];
  }

  AllocTrace Run() {
    const uint64_t d = dim_, v = vocab_;
    // Parameters, fp32, in module order.
    embed_ = Param(v * d);
    for (int b = 0; b < o_.blocks; ++b) {
      BlockParams p;
      p.ln1 = {Param(d), Param(d)};
      p.qkv = {Param(3 * d * d), Param(3 * d)};
      p.proj = {Param(d * d), Param(d)};
      p.ln2 = {Param(d), Param(d)};
      p.fc1 = {Param(4 * d * d), Param(4 * d)};
      p.fc2 = {Param(4 * d * d), Param(d)};
      blocks_.push_back(p);
    }
    lnf_ = {Param(d), Param(d)};
    head_ = Param(v * d);

    grads_.assign(param_bytes_.size(), std::nullopt);
    Batch next = LoadBatch(NextSeq());
    for (int it = 0; it < o_.iterations; ++it) {
      const Batch batch = next;
      // The prefetcher stages the next batch while this one trains.
      if (o_.side_stream && it + 1 < o_.iterations) next = LoadBatch(NextSeq());
      Step(batch);
      FreeBatch(batch);
      if (!o_.side_stream && it + 1 < o_.iterations) next = LoadBatch(NextSeq());
    }
    // The model and optimizer go away.
    for (size_t i = 0; i < param_ids_.size(); ++i) Free(param_ids_[i]);
    for (uint32_t t : optimizer_state_) Free(t);
    trace_.model_dim = dim_;
    trace_.vocab = vocab_;
    return std::move(trace_);
  }

 private:
  struct BlockParams {
    std::pair<size_t, size_t> ln1, qkv, proj, ln2, fc1, fc2;  // (weight, bias)
  };
  struct Batch {
    uint64_t seq;
    uint32_t ids, targets;
    uint8_t stream;
  };

  uint64_t Uniform(uint64_t lo, uint64_t hi) { return lo + rng_() % (hi - lo + 1); }
  bool Chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }
  uint64_t NextSeq() { return static_cast<uint64_t>(o_.min_seq) + 64 * Uniform(0, (o_.max_seq - o_.min_seq) / 64); }

  uint32_t Alloc(uint64_t bytes, uint8_t stream = kComputeStream) {
    const uint64_t rounded = (bytes + o_.granule - 1) & ~(o_.granule - 1);
    const uint32_t id = trace_.tensors++;
    trace_.events.push_back({TraceOp::kAlloc, id, Bytes(rounded), stream, 0});
    stream_of_.push_back(stream);
    return id;
  }
  void Free(uint32_t id, uint8_t used_on = 0) {
    trace_.events.push_back({TraceOp::kFree, id, Bytes(0), stream_of_[id], used_on});
  }
  size_t Param(uint64_t elements) {
    param_bytes_.push_back(elements * kF32);
    param_ids_.push_back(Alloc(elements * kF32));
    return param_bytes_.size() - 1;
  }
  // Scalars, shapes, indices and flags: a handful of bytes to a few KiB, gone within the op.
  void SmallTemporaries() {
    while (Chance(45)) Free(Alloc(Chance(70) ? Uniform(1, 64) : Uniform(65, 8192)));
  }

  Batch LoadBatch(uint64_t seq) {
    const uint8_t s = o_.side_stream ? kSideStream : kComputeStream;
    const uint64_t tokens = static_cast<uint64_t>(o_.batch) * seq;
    const uint32_t ids = Alloc(tokens * kI64, s);
    return Batch{seq, ids, Alloc(tokens * kI64, s), s};
  }
  void FreeBatch(const Batch& b) {
    // Used on the compute stream after record_stream: PyTorch frees it on its unifying stream.
    const uint8_t used_on = b.stream == kComputeStream ? 0 : kComputeBit;
    Free(b.ids, used_on);
    Free(b.targets, used_on);
  }

  // Autocast's bf16 copy of weight and bias, saved by the linear for its backward.
  void CastParams(Op& op, std::pair<size_t, size_t> wb) {
    op.autocast = true;
    op.params.push_back(wb.first);
    op.params.push_back(wb.second);
    op.saved.push_back(Alloc(param_bytes_[wb.first] / kF32 * kBf16));
    op.saved.push_back(Alloc(param_bytes_[wb.second] / kF32 * kBf16));
  }

  // LayerNorm (fp32 under autocast) of `x`, which it saves. Returns its output.
  uint32_t LayerNorm(std::pair<size_t, size_t> wb, uint32_t x, uint64_t tokens) {
    Op op;
    op.params = {wb.first, wb.second};
    op.saved = {x, Alloc(tokens * kF32), Alloc(tokens * kF32)};  // input, mean, rstd
    const uint32_t out = Alloc(tokens * dim_ * kF32);
    SmallTemporaries();
    op.grad_in = tokens * dim_ * kF32;
    ops_.push_back(std::move(op));
    return out;
  }

  // A bf16 linear of fp32 `x` (freed once cast), `in` -> `out` features. Returns its output.
  uint32_t LinearFromF32(std::pair<size_t, size_t> wb, uint32_t x, uint64_t tokens, uint64_t in, uint64_t out) {
    Op op;
    const uint32_t cast = Alloc(tokens * in * kBf16);
    Free(x);
    op.saved.push_back(cast);
    CastParams(op, wb);
    const uint32_t y = Alloc(tokens * out * kBf16);
    SmallTemporaries();
    op.grad_in = tokens * in * kF32;
    ops_.push_back(std::move(op));
    return y;
  }

  // A bf16 linear of bf16 `x`; `x` is owned (and saved) by the op that made it unless `owns_input`.
  uint32_t Linear(std::pair<size_t, size_t> wb, uint32_t x, bool owns_input, uint64_t tokens, uint64_t in,
                  uint64_t out) {
    Op op;
    if (owns_input) op.saved.push_back(x);
    CastParams(op, wb);
    const uint32_t y = Alloc(tokens * out * kBf16);
    SmallTemporaries();
    op.grad_in = tokens * in * kBf16;
    ops_.push_back(std::move(op));
    return y;
  }

  // The residual add of fp32 `x` and bf16 `y` (freed: an add saves nothing). Returns the fp32 sum.
  uint32_t Residual(uint32_t y, uint64_t tokens) {
    const uint32_t sum = Alloc(tokens * dim_ * kF32);
    Free(y);
    Op op;
    op.grad_in = tokens * dim_ * kF32;  // the two paths' gradients summed
    ops_.push_back(std::move(op));
    return sum;
  }

  uint32_t Block(const BlockParams& p, uint32_t x, uint64_t batch, uint64_t seq) {
    const uint64_t tokens = batch * seq, d = dim_, heads = d / 64;
    const uint32_t h = LayerNorm(p.ln1, x, tokens);
    const uint32_t qkv = LinearFromF32(p.qkv, h, tokens, d, 3 * d);
    // Fused attention: saves its input, output, logsumexp and the RNG seed and offset of its dropout.
    Op attn;
    const uint32_t ctx = Alloc(tokens * d * kBf16);
    attn.saved = {qkv, ctx, Alloc(batch * heads * seq * kF32), Alloc(16)};
    attn.grad_in = tokens * 3 * d * kBf16;
    attn.backward_temp = batch * heads * seq * kF32;
    SmallTemporaries();
    ops_.push_back(std::move(attn));
    const uint32_t proj = Linear(p.proj, ctx, /*owns_input=*/false, tokens, d, d);
    const uint32_t r = Residual(proj, tokens);
    const uint32_t h2 = LayerNorm(p.ln2, r, tokens);
    const uint32_t a = LinearFromF32(p.fc1, h2, tokens, d, 4 * d);
    Op gelu;
    gelu.saved = {a};
    const uint32_t g = Alloc(tokens * 4 * d * kBf16);
    gelu.grad_in = tokens * 4 * d * kBf16;
    ops_.push_back(std::move(gelu));
    const uint32_t z = Linear(p.fc2, g, /*owns_input=*/true, tokens, 4 * d, d);
    // x stays alive: the first LayerNorm saved it.
    return Residual(z, tokens);
  }

  void Step(const Batch& batch) {
    const uint64_t tokens = static_cast<uint64_t>(o_.batch) * batch.seq, d = dim_, v = vocab_;
    ops_.clear();
    // Forward. The embedding (not autocast) gives fp32 rows; its backward needs the ids (the batch owns them).
    Op embed;
    embed.params = {embed_};
    embed.backward_temp = tokens * kI64;  // sorted indices
    ops_.push_back(std::move(embed));
    uint32_t x = Alloc(tokens * d * kF32);
    for (const BlockParams& p : blocks_) x = Block(p, x, o_.batch, batch.seq);
    const uint32_t h = LayerNorm(lnf_, x, tokens);
    Op head;
    head.saved.push_back(Alloc(tokens * d * kBf16));
    Free(h);
    head.params = {head_};
    head.saved.push_back(Alloc(v * d * kBf16));
    const uint32_t logits = Alloc(tokens * v * kBf16);
    head.grad_in = tokens * d * kF32;
    ops_.push_back(std::move(head));
    // Cross entropy in fp32: log_softmax saves its output; the logits go; per-row max and sum are temporaries.
    Op loss_op;
    loss_op.saved.push_back(Alloc(tokens * v * kF32));
    Free(logits);
    const uint32_t row_max = Alloc(tokens * kF32), row_sum = Alloc(tokens * kF32);
    const uint32_t loss = Alloc(kF32);
    Free(row_sum);
    Free(row_max);
    loss_op.grad_in = tokens * v * kBf16;
    ops_.push_back(std::move(loss_op));

    // Backward, last op first.
    uint32_t grad = Alloc(kF32);  // d(loss) = 1
    for (auto op = ops_.rbegin(); op != ops_.rend(); ++op) {
      std::optional<uint32_t> temp;
      if (op->backward_temp != 0) temp = Alloc(op->backward_temp);
      std::optional<uint32_t> grad_in;
      if (op->grad_in != 0) grad_in = Alloc(op->grad_in);
      for (size_t p : op->params) {
        // set_to_none: the first backward of a step allocates each .grad; bf16 weight gradients are computed
        // in a temporary and accumulated into the fp32 .grad.
        std::optional<uint32_t> bf16;
        if (op->autocast) bf16 = Alloc(param_bytes_[p] / kF32 * kBf16);
        if (!grads_[p].has_value()) grads_[p] = Alloc(param_bytes_[p]);
        if (bf16.has_value()) Free(*bf16);
      }
      SmallTemporaries();
      if (temp.has_value()) Free(*temp);
      if (grad_in.has_value()) {
        Free(grad);
        grad = *grad_in;
      }
      for (auto s = op->saved.rbegin(); s != op->saved.rend(); ++s) Free(*s);
    }
    Free(grad);

    // Adam (foreach): state made at the first step; each step materialises a parameter-sized list.
    if (optimizer_state_.empty()) {
      for (uint64_t bytes : param_bytes_) {
        optimizer_state_.push_back(Alloc(bytes));  // exp_avg
        optimizer_state_.push_back(Alloc(bytes));  // exp_avg_sq
        optimizer_state_.push_back(Alloc(kF32));   // step
      }
    }
    std::vector<uint32_t> denoms;
    for (uint64_t bytes : param_bytes_) denoms.push_back(Alloc(bytes));
    SmallTemporaries();
    for (uint32_t t : denoms) Free(t);
    // zero_grad(set_to_none=True).
    for (std::optional<uint32_t>& g : grads_) {
      if (g.has_value()) Free(*g);
      g.reset();
    }
    // loss.item(): the host waits for the compute stream; then the loss tensor goes.
    trace_.events.push_back({TraceOp::kSync, 0, Bytes(0), kComputeStream, 0});
    Free(loss);
  }

  const TraceOptions o_;
  std::mt19937_64 rng_;
  int dim_ = 0;
  int vocab_ = 0;
  AllocTrace trace_;
  std::vector<uint8_t> stream_of_;  // by tensor id
  std::vector<uint64_t> param_bytes_;
  std::vector<uint32_t> param_ids_;
  std::vector<std::optional<uint32_t>> grads_;
  std::vector<uint32_t> optimizer_state_;
  size_t embed_ = 0, head_ = 0;
  std::pair<size_t, size_t> lnf_;
  std::vector<BlockParams> blocks_;
  std::vector<Op> ops_;
};

}  // namespace

absl::StatusOr<AllocTrace> GenerateTrace(const TraceOptions& o) {
  if (o.blocks < 1 || o.iterations < 1 || o.batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat("GenerateTrace(blocks=", o.blocks, ", iterations=", o.iterations,
                                                   ", batch=", o.batch, "): each must be at least 1"));
  }
  if (o.min_seq < 64 || o.max_seq < o.min_seq || o.max_seq > 8192 || o.min_seq % 64 != 0 || o.max_seq % 64 != 0) {
    return absl::InvalidArgumentError(absl::StrCat("GenerateTrace(min_seq=", o.min_seq, ", max_seq=", o.max_seq,
                                                   "): want multiples of 64 with 64 <= min <= max <= 8192"));
  }
  if (o.granule == 0 || (o.granule & (o.granule - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("GenerateTrace(granule=", o.granule, "): not a power of two"));
  }
  return Generator(o).Run();
}

absl::StatusOr<TraceStats> Summarize(const AllocTrace& trace) {
  enum class State : uint8_t { kUnborn, kLive, kFreed };
  std::vector<State> state(trace.tensors, State::kUnborn);
  std::vector<Bytes> size(trace.tensors);
  TraceStats stats;
  Bytes live;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.stream != kComputeStream && e.stream != kSideStream) {
      return absl::InvalidArgumentError(absl::StrCat("Summarize: event ", i, " names stream ", e.stream));
    }
    if (e.op == TraceOp::kSync) continue;
    if (e.tensor >= trace.tensors) {
      return absl::InvalidArgumentError(absl::StrCat("Summarize: event ", i, " names tensor ", e.tensor, " of ",
                                                     trace.tensors));
    }
    if (e.op == TraceOp::kAlloc) {
      if (state[e.tensor] != State::kUnborn) {
        return absl::InvalidArgumentError(absl::StrCat("Summarize: tensor ", e.tensor, " allocated twice"));
      }
      if (e.bytes.is_zero()) {
        return absl::InvalidArgumentError(absl::StrCat("Summarize: tensor ", e.tensor, " of 0 bytes"));
      }
      state[e.tensor] = State::kLive;
      size[e.tensor] = e.bytes;
      live += e.bytes;
      stats.peak_live = std::max(stats.peak_live, live);
      stats.largest = std::max(stats.largest, e.bytes);
      ++stats.allocs;
      if (e.bytes < Bytes::MiB(1)) ++stats.small_allocs;
    } else {
      if (state[e.tensor] != State::kLive) {
        return absl::InvalidArgumentError(absl::StrCat("Summarize: tensor ", e.tensor, " freed while ",
                                                       state[e.tensor] == State::kUnborn ? "unborn" : "freed"));
      }
      state[e.tensor] = State::kFreed;
      live -= size[e.tensor];
      if (e.used_on != 0) ++stats.cross_stream_frees;
    }
  }
  for (uint32_t t = 0; t < trace.tensors; ++t) {
    if (state[t] == State::kLive) {
      return absl::InvalidArgumentError(absl::StrCat("Summarize: tensor ", t, " still live at the end"));
    }
  }
  return stats;
}

}  // namespace hipmem::hip
