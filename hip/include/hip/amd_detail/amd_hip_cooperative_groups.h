/* hipmem's cooperative groups (HIP-Clang only; included by <hip/hip_cooperative_groups.h>), written over clang's
 * AMDGPU builtins and the kernel language of amd_device_functions.h / amd_warp_functions.h.
 *
 * The groups, as upstream HIP names them in namespace cooperative_groups:
 *   thread_block        the work-group: this_thread_block(); sync is __syncthreads.
 *   grid_group          every work-item of the launch: this_grid(); sync is a grid-wide barrier, valid only in a
 *                       kernel launched with hipLaunchCooperativeKernel (is_valid() says so), whose blocks are all
 *                       resident at once.
 *   multi_grid_group    every work-item of every grid of a hipLaunchCooperativeKernelMultiDevice launch (one grid per
 *                       listed device): this_multi_grid(); sync is a barrier across all of them.
 *   thread_block_tile<N> N consecutive work-items of the block (thread ranks), N a power of two up to the wave size:
 *                       tiled_partition<N>(block); a tile lies in one wave, so its sync is a wave barrier and its
 *                       shuffles are the wave's, over segments of N lanes.
 *   coalesced_group     the lanes of this wave active where coalesced_threads() is called.
 *   thread_group        what tiled_partition(parent, n) answers, and the common base of them all.
 *
 * The grid barrier: for a cooperative launch the runtime (clr/program.cc, clr/stream.cc) gives the kernel, in the
 * code object v5 hidden argument hidden_multigrid_sync_arg (implicit argument offset 88, AMDGPUUsage's v5 layout), the
 * address of a per-launch workspace (clr/program.h, kMultiGrid*). Its first 32 bytes are the record the device
 * libraries and CLR share: {u64 address of the multi-grid barrier dword; u32 grid id; u32 number of grids; u64
 * work-items of the grids before this one; u64 work-items of all grids}, all 0 for a single-device launch, as CLR
 * leaves them. Bytes 32-39 are this grid's barrier: dword 8 counts the blocks that arrived, dword 9 the phase. A block
 * arrives (work-item 0, after the block's barrier) by reading the phase and adding 1 to the count; the last to arrive
 * resets the count and advances the phase, the others wait (s_sleep, so a simulated or real CU runs others) until the
 * phase moves. Any other launch leaves the argument 0: grid_group::is_valid() is false, as upstream.
 *
 * The multi-grid barrier: the grid barrier, then the grid's block 0 alone arrives at the dword every grid shares (in
 * fine-grained system memory every GPU maps): its low 16 bits count the grids that arrived, its high 16 bits the
 * barrier's generation (the dword after it turns non-zero when a grid of the launch failed to launch after others
 * were queued: a waiting grid then traps instead of waiting forever). One atomic add of 1 arrives; the grid that makes the count whole adds 0x10000 - num_grids,
 * which clears the count and advances the generation in one step, the others wait until the generation moves. Then the
 * grid barrier again, which the other blocks of the grid cannot pass before block 0 comes back. Scopes: a work-item's
 * writes reach its device (agent-scope release) before its block arrives; the grid barrier's agent-scope atomics hand
 * them to block 0; block 0 publishes them beyond the device with a system-scope release before it arrives at the shared
 * dword (the release of a device's L2 covers every CU's writes that reached it), and its system-scope acquire after the
 * wait makes the other grids' writes visible on this device before the second grid barrier hands them to the blocks.
 * multi_grid_group::is_valid() is true when the workspace says there are grids (num_grids > 0): CLR's record with
 * current ockl's test; ockl 5.2.3 tested only for a workspace, which a single-device cooperative launch has too.
 * Needs code object v5 (clang-19's default).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_COOPERATIVE_GROUPS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_COOPERATIVE_GROUPS_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_hip_cooperative_groups.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/hip_runtime.h>

namespace cooperative_groups {
namespace __hipmem_cg {

/* The implicit argument offset of hidden_multigrid_sync_arg in code object v5. */
constexpr unsigned int kGridSyncArgOffset = 88;

__device__ inline unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ inline unsigned int block_thread_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned int grid_block_count() { return gridDim.x * gridDim.y * gridDim.z; }
__device__ inline unsigned int grid_block_rank() { return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x; }

/* The workspace's fields (clr/program.h's kMultiGrid* offsets). */
constexpr unsigned int kBarrierAddressOffset = 0;
constexpr unsigned int kGridIdOffset = 8;
constexpr unsigned int kNumGridsOffset = 12;
constexpr unsigned int kPrevSumOffset = 16;
constexpr unsigned int kAllSumOffset = 24;
constexpr unsigned int kGridBarrierOffset = 32;

/* The cooperative launch's workspace, or null outside a cooperative launch. */
__device__ inline char* workspace() {
  const char* implicit = (const char*)__builtin_amdgcn_implicitarg_ptr();  // address space 4 to generic
  return *reinterpret_cast<char* const*>(implicit + kGridSyncArgOffset);
}

/* A field of the workspace (which must exist), as the runtime wrote it before the launch. */
template <typename T>
__device__ inline T workspace_field(unsigned int offset) {
  return *reinterpret_cast<const T*>(workspace() + offset);
}

/* The grid barrier's two dwords, or null outside a cooperative launch. */
__device__ inline unsigned int* grid_workspace() {
  char* w = workspace();
  return w == nullptr ? nullptr : reinterpret_cast<unsigned int*>(w + kGridBarrierOffset);
}

/* Whether this launch is a multi-device cooperative one. */
__device__ inline bool multi_grid_valid() {
  return workspace() != nullptr && workspace_field<unsigned int>(kNumGridsOffset) > 0;
}

/* The lanes of a wave below this one. */
__device__ inline unsigned long long lanes_below() {
  const unsigned int lane = __lane_id();
  return lane == 0 ? 0ull : (~0ull >> (64 - lane));
}

/* Lanes of a wave run in lockstep; the fence orders the tile's shared and global accesses around the point. */
__device__ inline void wave_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* A block's work-item 0 at the grid barrier (dword 0 arrivals, dword 1 phase): returns once every block arrived. */
__device__ inline void grid_arrive_and_wait(unsigned int* barrier) {
  unsigned int* arrived = barrier;
  unsigned int* phase = barrier + 1;
  const unsigned int now = __hip_atomic_load(phase, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  const unsigned int count = __hip_atomic_fetch_add(arrived, 1u, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT) + 1;
  if (count == grid_block_count()) {
    // Reset before the phase moves (release), so a block that sees the new phase also sees the count at 0.
    __hip_atomic_store(arrived, 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(phase, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    while (__hip_atomic_load(phase, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == now) __builtin_amdgcn_s_sleep(1);
  }
}

__device__ inline void grid_sync(unsigned int* barrier) {
  __threadfence();  // this work-item's writes, for the whole device
  __syncthreads();
  if (block_thread_rank() == 0) grid_arrive_and_wait(barrier);
  __syncthreads();
  __threadfence();  // the other blocks' writes, for this work-item
}

/* Block 0 of a grid at the barrier every grid of the launch shares (low 16 bits arrivals, high 16 bits generation):
 * returns once every grid arrived. */
__device__ inline void multi_grid_arrive_and_wait(unsigned int* shared, unsigned int grids) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "");  // this device's writes, for every device and the host
  const unsigned int before = __hip_atomic_fetch_add(shared, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  if ((before & 0xffffu) == grids - 1) {
    __hip_atomic_fetch_add(shared, 0x10000u - grids, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  } else {
    const unsigned int generation = before >> 16;
    while ((__hip_atomic_load(shared, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM) >> 16) == generation) {
      // A grid of the launch failed to launch after this one was queued: it will never arrive.
      if (__hip_atomic_load(shared + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM) != 0) __builtin_trap();
      __builtin_amdgcn_s_sleep(2);
    }
  }
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");  // the other devices' writes, for this device
}

__device__ inline void multi_grid_sync(char* w) {
  unsigned int* barrier = reinterpret_cast<unsigned int*>(w + kGridBarrierOffset);
  __threadfence();  // this work-item's writes, for the whole device
  __syncthreads();
  if (block_thread_rank() == 0) {
    grid_arrive_and_wait(barrier);
    if (grid_block_rank() == 0) {
      unsigned int* shared = *reinterpret_cast<unsigned int* const*>(w + kBarrierAddressOffset);
      multi_grid_arrive_and_wait(shared, *reinterpret_cast<const unsigned int*>(w + kNumGridsOffset));
    }
    grid_arrive_and_wait(barrier);  // no block passes before block 0 is back from the other grids
  }
  __syncthreads();
  __threadfence();  // the other grids' writes, for this work-item
}

/* The work-item's rank in its grid as the device libraries count it for multi_grid_group (ockl's global linear id:
 * x fastest over the whole grid's work-items, then y, then z), which for a grid of more than one dimension is not
 * grid_group::thread_rank()'s block-major order. */
__device__ inline unsigned long long global_linear_id() {
  const unsigned long long x = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned long long y = static_cast<unsigned long long>(blockIdx.y) * blockDim.y + threadIdx.y;
  const unsigned long long z = static_cast<unsigned long long>(blockIdx.z) * blockDim.z + threadIdx.z;
  const unsigned long long width = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long height = static_cast<unsigned long long>(gridDim.y) * blockDim.y;
  return (z * height + y) * width + x;
}

/* A bit mask of `lanes` ones (lanes <= 64). */
__device__ inline unsigned long long low_mask(unsigned int lanes) { return lanes >= 64 ? ~0ull : (1ull << lanes) - 1; }

/* The lane holding the rank-th set bit of `mask`. */
__device__ inline int lane_of_rank(unsigned long long mask, unsigned int rank) {
  for (unsigned int i = 0; i < rank && mask != 0; ++i) mask &= mask - 1;
  return mask == 0 ? static_cast<int>(__lane_id()) : __builtin_ctzll(mask);
}

}  // namespace __hipmem_cg

class thread_group;
class thread_block;
class grid_group;
class multi_grid_group;
class coalesced_group;
template <unsigned int N>
class thread_block_tile;
__device__ inline thread_block this_thread_block();
__device__ inline grid_group this_grid();
__device__ inline multi_grid_group this_multi_grid();
__device__ inline coalesced_group coalesced_threads();
__device__ inline thread_group tiled_partition(const thread_group& parent, unsigned int tile_size);

/* The common base: what every group can do, dispatching on the kind of group it is. */
class thread_group {
 public:
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const { return size(); }
  __device__ unsigned int thread_rank() const;
  __device__ bool is_valid() const;
  __device__ void sync() const;

 protected:
  enum class kind : unsigned char { grid, multi_grid, block, tile, coalesced };
  __device__ explicit thread_group(kind k, unsigned int tile = 0, unsigned long long mask = 0)
      : kind_(k), tile_(tile), mask_(mask) {}

  kind kind_;
  unsigned int tile_;        // a tile's size
  unsigned long long mask_;  // a coalesced group's lanes

  friend __device__ thread_group tiled_partition(const thread_group& parent, unsigned int tile_size);
};

/* The work-group. */
class thread_block : public thread_group {
 public:
  __device__ unsigned int size() const { return __hipmem_cg::block_size(); }
  __device__ unsigned int num_threads() const { return size(); }
  __device__ unsigned int thread_rank() const { return __hipmem_cg::block_thread_rank(); }
  __device__ bool is_valid() const { return true; }
  __device__ static void sync() { __syncthreads(); }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_threads() const { return group_dim(); }

 private:
  __device__ thread_block() : thread_group(kind::block) {}
  friend __device__ thread_block this_thread_block();
};

/* Every work-item of the launch. sync() needs a cooperative launch (is_valid()). */
class grid_group : public thread_group {
 public:
  __device__ unsigned long long size() const {
    return static_cast<unsigned long long>(__hipmem_cg::grid_block_count()) * __hipmem_cg::block_size();
  }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ unsigned long long thread_rank() const {
    return static_cast<unsigned long long>(__hipmem_cg::grid_block_rank()) * __hipmem_cg::block_size() +
           __hipmem_cg::block_thread_rank();
  }
  __device__ unsigned int block_rank() const { return __hipmem_cg::grid_block_rank(); }
  __device__ unsigned int num_blocks() const { return __hipmem_cg::grid_block_count(); }
  __device__ bool is_valid() const { return __hipmem_cg::grid_workspace() != nullptr; }
  /* Every work-item of the grid reaches this point before any goes on; their writes before it are visible to all
   * after it. Outside a cooperative launch it traps (it could never complete), as a barrier nobody can pass. */
  __device__ void sync() const {
    unsigned int* workspace = __hipmem_cg::grid_workspace();
    if (workspace == nullptr) __builtin_trap();
    __hipmem_cg::grid_sync(workspace);
  }
  __device__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }

 private:
  __device__ grid_group() : thread_group(kind::grid) {}
  friend __device__ grid_group this_grid();
};

/* Every work-item of every grid of a multi-device cooperative launch (hipLaunchCooperativeKernelMultiDevice). Upstream's
 * 32-bit sizes and ranks. Outside such a launch is_valid() is false, and the others must not be asked (they read the
 * launch's record, which a plain launch lacks: sync traps). */
class multi_grid_group : public thread_group {
 public:
  /* Grids in the launch, and this one's index in its launch list. */
  __device__ unsigned int num_grids() const {
    return __hipmem_cg::workspace_field<unsigned int>(__hipmem_cg::kNumGridsOffset);
  }
  __device__ unsigned int grid_rank() const {
    return __hipmem_cg::workspace_field<unsigned int>(__hipmem_cg::kGridIdOffset);
  }
  /* Work-items of all grids; this one's rank among them: the work-items of the grids listed before, plus its rank in
   * its grid (global_linear_id). */
  __device__ unsigned int size() const {
    return static_cast<unsigned int>(__hipmem_cg::workspace_field<unsigned long long>(__hipmem_cg::kAllSumOffset));
  }
  __device__ unsigned int num_threads() const { return size(); }
  __device__ unsigned int thread_rank() const {
    return static_cast<unsigned int>(__hipmem_cg::workspace_field<unsigned long long>(__hipmem_cg::kPrevSumOffset) +
                                     __hipmem_cg::global_linear_id());
  }
  __device__ bool is_valid() const { return __hipmem_cg::multi_grid_valid(); }
  /* Every work-item of every grid reaches this point before any goes on; their writes before it are visible to all
   * after it. Outside a multi-device cooperative launch it traps, as grid_group::sync does outside a cooperative one. */
  __device__ void sync() const {
    if (!__hipmem_cg::multi_grid_valid()) __builtin_trap();
    __hipmem_cg::multi_grid_sync(__hipmem_cg::workspace());
  }

 private:
  __device__ multi_grid_group() : thread_group(kind::multi_grid) {}
  friend __device__ multi_grid_group this_multi_grid();
};

/* N consecutive work-items of a block, inside one wave (N a power of two, at most the wave size). */
template <unsigned int N>
class thread_block_tile : public thread_group {
  static_assert(N > 0 && (N & (N - 1)) == 0 && N <= 64, "a tile is a power of two of at most 64 work-items");

 public:
  __device__ unsigned int size() const { return N; }
  __device__ unsigned int num_threads() const { return N; }
  __device__ unsigned int thread_rank() const { return __hipmem_cg::block_thread_rank() & (N - 1); }
  __device__ bool is_valid() const { return true; }
  __device__ void sync() const { __hipmem_cg::wave_sync(); }
  /* Which tile of the block this is, and how many the block has. */
  __device__ unsigned int meta_group_rank() const { return __hipmem_cg::block_thread_rank() / N; }
  __device__ unsigned int meta_group_size() const { return (__hipmem_cg::block_size() + N - 1) / N; }

  template <typename T>
  __device__ T shfl(T var, int src_rank) const {
    return __shfl(var, src_rank, static_cast<int>(N));
  }
  template <typename T>
  __device__ T shfl_down(T var, unsigned int delta) const {
    return __shfl_down(var, delta, static_cast<int>(N));
  }
  template <typename T>
  __device__ T shfl_up(T var, unsigned int delta) const {
    return __shfl_up(var, delta, static_cast<int>(N));
  }
  template <typename T>
  __device__ T shfl_xor(T var, unsigned int mask) const {
    return __shfl_xor(var, static_cast<int>(mask), static_cast<int>(N));
  }
  /* Bit r set when the tile's rank-r work-item is active and its predicate is non-zero. */
  __device__ unsigned long long ballot(int predicate) const { return Mine(__ballot(predicate)); }
  __device__ int any(int predicate) const { return ballot(predicate) != 0; }
  __device__ int all(int predicate) const { return ballot(predicate) == Mine(__activemask()); }

 private:
  __device__ thread_block_tile() : thread_group(kind::tile, N) {}
  /* This tile's bits of a wave-wide mask, shifted down to rank order. */
  __device__ static unsigned long long Mine(unsigned long long wave_mask) {
    return (wave_mask >> (__lane_id() & ~(N - 1))) & __hipmem_cg::low_mask(N);
  }
  template <unsigned int M>
  friend __device__ thread_block_tile<M> tiled_partition(const thread_block& parent);
};

/* The lanes of one wave that were active where the group was made. */
class coalesced_group : public thread_group {
 public:
  __device__ unsigned int size() const { return __popcll(mask_); }
  __device__ unsigned int num_threads() const { return size(); }
  __device__ unsigned int thread_rank() const { return __popcll(mask_ & __hipmem_cg::lanes_below()); }
  __device__ bool is_valid() const { return mask_ != 0; }
  __device__ void sync() const { __hipmem_cg::wave_sync(); }
  /* The value of the group's rank-src_rank member. */
  template <typename T>
  __device__ T shfl(T var, int src_rank) const {
    const unsigned int rank = static_cast<unsigned int>(src_rank) % size();
    return __hipmem_shfl_value(var, __hipmem_cg::lane_of_rank(mask_, rank));
  }
  /* Bit r set when the group's rank-r member's predicate is non-zero. */
  __device__ unsigned long long ballot(int predicate) const {
    const unsigned long long votes = __ballot(predicate);
    unsigned long long result = 0;
    unsigned int rank = 0;
    for (unsigned long long m = mask_; m != 0; m &= m - 1, ++rank) {
      if ((votes >> __builtin_ctzll(m)) & 1) result |= 1ull << rank;
    }
    return result;
  }
  __device__ int any(int predicate) const { return (__ballot(predicate) & mask_) != 0; }
  __device__ int all(int predicate) const { return (__ballot(predicate) & mask_) == mask_; }

 private:
  __device__ explicit coalesced_group(unsigned long long mask) : thread_group(kind::coalesced, 0, mask) {}
  friend __device__ coalesced_group coalesced_threads();
};

__device__ inline unsigned int thread_group::size() const {
  switch (kind_) {
    case kind::grid: return static_cast<unsigned int>(static_cast<const grid_group*>(this)->size());
    case kind::multi_grid: return static_cast<const multi_grid_group*>(this)->size();
    case kind::block: return __hipmem_cg::block_size();
    case kind::tile: return tile_;
    case kind::coalesced: return __popcll(mask_);
  }
  return 0;
}

__device__ inline unsigned int thread_group::thread_rank() const {
  switch (kind_) {
    case kind::grid: return static_cast<unsigned int>(static_cast<const grid_group*>(this)->thread_rank());
    case kind::multi_grid: return static_cast<const multi_grid_group*>(this)->thread_rank();
    case kind::block: return __hipmem_cg::block_thread_rank();
    case kind::tile: return __hipmem_cg::block_thread_rank() & (tile_ - 1);
    case kind::coalesced: return __popcll(mask_ & __hipmem_cg::lanes_below());
  }
  return 0;
}

__device__ inline bool thread_group::is_valid() const {
  switch (kind_) {
    case kind::grid: return __hipmem_cg::grid_workspace() != nullptr;
    case kind::multi_grid: return __hipmem_cg::multi_grid_valid();
    case kind::coalesced: return mask_ != 0;
    default: return true;
  }
}

__device__ inline void thread_group::sync() const {
  switch (kind_) {
    case kind::grid: static_cast<const grid_group*>(this)->sync(); break;
    case kind::multi_grid: static_cast<const multi_grid_group*>(this)->sync(); break;
    case kind::block: __syncthreads(); break;
    case kind::tile:
    case kind::coalesced: __hipmem_cg::wave_sync(); break;
  }
}

__device__ inline thread_block this_thread_block() { return thread_block(); }
__device__ inline grid_group this_grid() { return grid_group(); }
__device__ inline multi_grid_group this_multi_grid() { return multi_grid_group(); }
__device__ inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <unsigned int N>
__device__ inline thread_block_tile<N> tiled_partition(const thread_block&) {
  return thread_block_tile<N>();
}

/* A tile of `tile_size` work-items (a power of two, at most the wave size) of a block or of a larger tile; the tile
 * of a tile is the same ranks' tile of the block, since tiles are aligned. Another size traps. */
__device__ inline thread_group tiled_partition(const thread_group& parent, unsigned int tile_size) {
  if (tile_size == 0 || (tile_size & (tile_size - 1)) != 0 || tile_size > static_cast<unsigned int>(warpSize) ||
      (parent.kind_ != thread_group::kind::block && parent.kind_ != thread_group::kind::tile) ||
      (parent.kind_ == thread_group::kind::tile && tile_size > parent.tile_)) {
    __builtin_trap();
  }
  return thread_group(thread_group::kind::tile, tile_size);
}

/* Upstream's free forms. */
template <typename Group>
__device__ inline void sync(const Group& g) {
  g.sync();
}
template <typename Group>
__device__ inline auto thread_rank(const Group& g) {
  return g.thread_rank();
}
template <typename Group>
__device__ inline auto group_size(const Group& g) {
  return g.size();
}
template <typename Group>
__device__ inline bool is_valid(const Group& g) {
  return g.is_valid();
}

}  // namespace cooperative_groups

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_COOPERATIVE_GROUPS_H */
