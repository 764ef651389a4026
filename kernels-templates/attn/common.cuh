// attn kernel templates: what every variant shares.
//
// The templates use no CUDA header (not even cuda_fp16.h) so NVRTC compiles
// them with nothing but the sources embedded in the attn library. Elements
// are 16-bit patterns; conversions and matrix products are inline PTX.
#pragma once

#include "attn/params.h"

namespace attn {

using u16 = unsigned short;
using u32 = unsigned int;

struct F16 {};
struct BF16 {};

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

__device__ __forceinline__ float negInf() { return __int_as_float(0xff800000u); }

/// A value as a type (std::integral_constant; NVRTC has no <type_traits>):
/// picks a template's path from a generic lambda's argument.
template <class T, T V> struct IntegralConstant {
  static constexpr T value = V;
};
/// std::conditional.
template <bool kFirst, class T, class F> struct Conditional {
  using type = T;
};
template <class T, class F> struct Conditional<false, T, F> {
  using type = F;
};

__device__ __forceinline__ float fastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The f16 and bf16 forms of an instruction differ only in a type name.
#define ATTN_PACK_X2(TYPE)                                                     \
  asm("cvt.rn." TYPE "x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo))
#define ATTN_MMA_M16N8K16(TYPE)                                                \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 "  \
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"         \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

/// Per element type: packing two floats (`lo` in the low half), widening one
/// element, and the m16n8k16 product with f32 accumulators.
template <class E> struct ElementOps;

template <> struct ElementOps<F16> {
  static __device__ __forceinline__ u32 pack(float lo, float hi) {
    u32 d;
    ATTN_PACK_X2("f16");
    return d;
  }
  static __device__ __forceinline__ float toFloat(u16 x) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x));
    return f;
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const u32 (&a)[4],
                                             u32 b0, u32 b1) {
    ATTN_MMA_M16N8K16("f16");
  }
};

template <> struct ElementOps<BF16> {
  static __device__ __forceinline__ u32 pack(float lo, float hi) {
    u32 d;
    ATTN_PACK_X2("bf16");
    return d;
  }
  static __device__ __forceinline__ float toFloat(u16 x) {
    return __int_as_float(static_cast<u32>(x) << 16);
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const u32 (&a)[4],
                                             u32 b0, u32 b1) {
    ATTN_MMA_M16N8K16("bf16");
  }
};

#undef ATTN_PACK_X2
#undef ATTN_MMA_M16N8K16

/// The m16k16 A fragment of P for keys [16 kk, 16 kk + 16), packed from the
/// m16n8 accumulators of S (the two layouts line up register for register).
template <class Ops, int NTiles>
__device__ __forceinline__ void packP(u32 (&a)[4], const float (&s)[NTiles][4],
                                      int kk) {
  a[0] = Ops::pack(s[2 * kk][0], s[2 * kk][1]);
  a[1] = Ops::pack(s[2 * kk][2], s[2 * kk][3]);
  a[2] = Ops::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
  a[3] = Ops::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
}

/// Reads (as float) and writes (rounding to nearest) element i of a tensor
/// of element type E: f32, or the 16-bit patterns of F16 and BF16.
template <class E> struct ElementIO;
template <> struct ElementIO<float> {
  static __device__ __forceinline__ float load(const void *p, i64 i) {
    return static_cast<const float *>(p)[i];
  }
  static __device__ __forceinline__ void store(void *p, i64 i, float x) {
    static_cast<float *>(p)[i] = x;
  }
};
#define ATTN_ELEMENT_IO(E, TYPE)                                               \
  template <> struct ElementIO<E> {                                            \
    static __device__ __forceinline__ float load(const void *p, i64 i) {       \
      return ElementOps<E>::toFloat(static_cast<const u16 *>(p)[i]);           \
    }                                                                          \
    static __device__ __forceinline__ void store(void *p, i64 i, float x) {    \
      u16 h;                                                                   \
      asm("cvt.rn." TYPE ".f32 %0, %1;" : "=h"(h) : "f"(x));                   \
      static_cast<u16 *>(p)[i] = h;                                            \
    }                                                                          \
  };
ATTN_ELEMENT_IO(F16, "f16")
ATTN_ELEMENT_IO(BF16, "bf16")
#undef ATTN_ELEMENT_IO

/// True if key k may take part for query q under the positional masks: k
/// below kvEnd (key padding), and, around the diagonal q + diagOffset
/// (diagOffset = Skv - Sq when aligned to the bottom-right), not after it
/// (causal) and within [diag - windowLeft, diag + windowRight] (-1: unbounded).
template <bool kCausal, bool kWindow>
__device__ __forceinline__ bool keyAllowed(int q, int k, int kvEnd,
                                           int diagOffset, int windowLeft,
                                           int windowRight) {
  bool ok = k < kvEnd;
  int diag = q + diagOffset;
  if (kCausal)
    ok = ok && k <= diag;
  if (kWindow) {
    if (windowLeft >= 0)
      ok = ok && k >= diag - windowLeft;
    if (windowRight >= 0)
      ok = ok && k <= diag + windowRight;
  }
  return ok;
}

__device__ __forceinline__ u32 sharedAddress(const void *p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

/// Copies 16 bytes global -> shared (a 32-bit shared address); only `bytes`
/// (0..16) are read, the rest is zero-filled.
__device__ __forceinline__ void copyAsync16(u32 dst, const void *src,
                                            int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
               "l"(src), "r"(bytes));
}
__device__ __forceinline__ void commitAsync() {
  asm volatile("cp.async.commit_group;");
}
template <int N> __device__ __forceinline__ void waitAsync() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

/// Shared-memory tile layouts: where the 16-byte chunk `chunk` of row `row`
/// lives, in bytes from the tile's start. Offsets repeat every kRowPeriod
/// rows, kRowBytes apart, which lets loadTile step rows by constants.
///
/// Rows of Stride elements: the padding keeps ldmatrix conflict-free.
template <int Stride> struct PaddedLayout {
  static constexpr int kRowBytes = 2 * Stride, kRowPeriod = 1;
  static __device__ __forceinline__ u32 offset(int row, int chunk) {
    return row * kRowBytes + chunk * 16;
  }
};
/// The 128-byte swizzle of wgmma and TMA: 64-column blocks of Rows rows of
/// 128 bytes each, chunk c of row r stored at chunk c ^ (r % 8). Needs a
/// 1024-byte aligned tile. Rows and chunks are never negative: bit masks,
/// not the signed % the compiler cannot simplify where it cannot prove that.
template <int Rows> struct Swizzle128Layout {
  static constexpr int kRowBytes = 128, kRowPeriod = 8;
  static __device__ __forceinline__ u32 offset(int row, int chunk) {
    return (chunk >> 3) * (Rows * 128) + row * 128 + ((chunk ^ row) & 7) * 16;
  }
};

/// The shared-memory addresses of a thread's copies whose rows are row0 +
/// i * RowStep (one chunk column): a Layout's offsets repeat every
/// kRowPeriod rows, so copy i is at one of kPhases addresses (the first
/// period's) plus whole periods, a constant. Serves row steps that are
/// multiples or divisors of the period (`kServes`): rows 4 apart under the
/// 128-byte swizzle (head dim 256, four warps) take two addresses instead
/// of the swizzle's arithmetic per copy.
template <class Layout, int RowStep> struct RowSteps {
  static constexpr bool kServes = RowStep % Layout::kRowPeriod == 0 ||
                                  Layout::kRowPeriod % RowStep == 0;
  static constexpr int kPhases = !kServes || RowStep % Layout::kRowPeriod == 0
                                    ? 1
                                    : Layout::kRowPeriod / RowStep;
  u32 base[kPhases];
  __device__ __forceinline__ RowSteps(u32 smem, int row0, int chunk) {
#pragma unroll
    for (int ph = 0; ph < kPhases; ++ph)
      base[ph] = smem + Layout::offset(row0 + ph * RowStep, chunk);
  }
  __device__ __forceinline__ u32 at(int i) const {
    return base[i % kPhases] +
           (i / kPhases) * kPhases * RowStep * Layout::kRowBytes;
  }
};

/// Copies a [Rows][Cols] tile of 16-bit elements to shared memory at `smem`
/// (laid out by Layout) in 16-byte chunks with cp.async, Threads threads
/// sharing the work; rows >= rowsValid and columns >= colsValid read as zero.
template <class Layout, int Rows, int Cols, int Threads>
__device__ __forceinline__ void loadTile(u32 smem, const u16 *gmem,
                                         i64 rowStride, int rowsValid,
                                         int colsValid) {
  constexpr int kChunksPerRow = Cols / 8;
  constexpr int kRowStep = Threads / kChunksPerRow;
  if constexpr (Threads % kChunksPerRow == 0 &&
                RowSteps<Layout, kRowStep>::kServes) {
    // Each thread keeps one chunk column: one address computation, then
    // constant row steps (no per-chunk 64-bit addresses held in registers).
    const int row0 = threadIdx.x / kChunksPerRow;
    const int chunk = threadIdx.x % kChunksPerRow;
    const int bytes = 2 * min(max(colsValid - chunk * 8, 0), 8);
    const u32 dst = smem + Layout::offset(row0, chunk);
    const u16 *src = gmem + row0 * rowStride + chunk * 8;
    const i64 srcStep = kRowStep * rowStride;
    // Rows stepping less than the layout's period: RowSteps' phases.
    const RowSteps<Layout, kRowStep> steps(smem, row0, chunk);
#pragma unroll
    for (int i = 0; i < (Rows + kRowStep - 1) / kRowStep; ++i) {
      const int row = row0 + i * kRowStep;
      if (Rows % kRowStep != 0 && row >= Rows)
        break;
      const bool valid = row < rowsValid && bytes > 0;
      copyAsync16(kRowStep % Layout::kRowPeriod == 0
                      ? dst + i * kRowStep * Layout::kRowBytes
                      : steps.at(i),
                  valid ? src + i * srcStep : gmem, valid ? bytes : 0);
    }
  } else {
#pragma unroll
    for (int c = threadIdx.x; c < Rows * kChunksPerRow; c += Threads) {
      const int row = c / kChunksPerRow, chunk = c % kChunksPerRow;
      const int bytes =
          row < rowsValid ? 2 * min(max(colsValid - chunk * 8, 0), 8) : 0;
      copyAsync16(smem + Layout::offset(row, chunk),
                  bytes > 0 ? gmem + row * rowStride + chunk * 8 : gmem, bytes);
    }
  }
}

/// A sequence's page table (params.h): key n is row n % size of page
/// table[n / size], the page clamped to [0, lastPage]. Page sizes that are
/// powers of two (all that serving engines use) split keys by shift and
/// mask; others divide.
struct PageTable {
  const int *table; // the sequence's pages
  int size, lastPage;
  int shift; // log2(size), or -1 when size is not a power of two

  __device__ __forceinline__ PageTable(const int *pages, int pageSize,
                                       int numPages)
      : table(pages), size(pageSize), lastPage(numPages - 1),
        shift((pageSize & (pageSize - 1)) == 0 ? __ffs(pageSize) - 1 : -1) {}
  __device__ __forceinline__ int page(int n) const {
    return clamp(entry(n));
  }
  /// The table's entry for key n as stored: a load whose use can wait
  /// (clamp it then), so that it is in flight while other work issues.
  __device__ __forceinline__ int entry(int n) const {
    return table[shift >= 0 ? n >> shift : n / size];
  }
  /// A table entry clamped to the cache: no read outside it.
  __device__ __forceinline__ int clamp(int entry) const {
    return min(max(entry, 0), lastPage);
  }
  __device__ __forceinline__ int rowInPage(int n) const {
    return shift >= 0 ? n & (size - 1) : n % size;
  }
};

/// A paged cache's key rows looked up one at a time (a RowSource of
/// loadTileRows): for page sizes that PageByPage does not serve (not powers
/// of two, which serving engines do not use), at a table round trip per
/// row. `cache` is the head's row 0 of page 0; `first` the tile's first key.
struct PagedRowLookup {
  const u16 *cache;
  i64 pageStride, rowStride;
  const PageTable &table;
  int first;
  __device__ __forceinline__ const u16 *row(int r) const {
    const int n = first + r;
    return cache + table.page(n) * pageStride +
           static_cast<i64>(table.rowInPage(n)) * rowStride;
  }
};

/// A key tile of a paged cache in pages of P keys, a compile-time size (the
/// kernel switches on the runtime one) that divides the tile and is a
/// multiple of the rows loadTile's copies step by: the copies are
/// loadTile's (a chunk column per thread, rows kRowStep apart), and each
/// copy's page and row in it are constants, so that a copy costs what a
/// dense one does plus an add. `entries[e]` is the table entry of the
/// tile's page e, read by the caller a tile ahead and clamped here.
template <int Rows, int Threads, int P, int MaxPages> struct TilePages {
  const u16 *cache;
  i64 pageStride, rowStride;
  const PageTable &table;
  const int (&entries)[MaxPages];
  int rowsValid;

  /// Whether tiles of Cols columns can be copied so.
  template <int Cols> static constexpr bool serves() {
    constexpr int kChunksPerRow = Cols / 8;
    return Threads % kChunksPerRow == 0 && Rows % P == 0 &&
           Rows / P <= MaxPages && P % (Threads / kChunksPerRow) == 0;
  }
};

/// A key tile of a paged cache copied page by page, where the pages divide
/// the tile (every power-of-two page size up to the tile; `fits`): the
/// Threads / (Rows / pageSize) threads of each page copy only its chunks, so
/// that a thread needs one table entry per tile, not one per row it copies.
/// `cache` is the head's row 0 of page 0; `entry` the table entry of the
/// thread's page, read by the caller ahead of the copies and clamped here;
/// `thread` the thread's place, computed once per block (`place`): its
/// runtime divisions would otherwise run for every tile.
template <int Rows, int Threads> struct PageByPage {
  struct Place {
    unsigned perPage;  // threads per page
    unsigned page;     // the thread's page in the tile
    unsigned local;    // the thread's index among its page's
    unsigned pageRows; // the page size
  };
  const u16 *cache;
  i64 pageStride, rowStride;
  const PageTable &table;
  const Place &thread;
  int rowsValid, entry;

  static __device__ __forceinline__ bool fits(const PageTable &t) {
    return t.shift >= 0 && Rows % t.size == 0 &&
           Threads % (Rows >> t.shift) == 0;
  }
  /// The thread's place where `fits` (zeros elsewhere).
  static __device__ __forceinline__ Place place(const PageTable &t) {
    if (!fits(t))
      return {1, 0, 0, 0};
    const unsigned perPage = Threads / (Rows >> t.shift);
    return {perPage, threadIdx.x / perPage, threadIdx.x % perPage,
            static_cast<unsigned>(t.size)};
  }
};

/// Packed query rows (decode with GQA, mask.cuh): row r of the tile is
/// token (first + r) / G of query head (first + r) % G of the K/V head's
/// group, whose head 0 token 0 is at `cache`.
template <int G> struct PackedQueryRows {
  const u16 *cache;
  i64 headStride, tokenStride;
  int first;
  __device__ __forceinline__ const u16 *row(int r) const {
    const int n = first + r;
    return cache + (n % G) * headStride + (n / G) * tokenStride;
  }
};

/// loadTile for rows at any addresses (a RowSource's row(r); its `cache`
/// is an address copies of 0 bytes may name): the same chunks, each row's
/// address computed once per row a thread copies, and only for rows <
/// rowsValid.
template <class Layout, int Rows, int Cols, int Threads, class RowSource>
__device__ __forceinline__ void loadTileRows(u32 smem, const RowSource &src,
                                             int rowsValid, int colsValid) {
  constexpr int kChunksPerRow = Cols / 8;
  constexpr int kRowStep = Threads / kChunksPerRow;
  if constexpr (Threads % kChunksPerRow == 0 &&
                kRowStep % Layout::kRowPeriod == 0) {
    const int row0 = threadIdx.x / kChunksPerRow;
    const int chunk = threadIdx.x % kChunksPerRow;
    const int bytes = 2 * min(max(colsValid - chunk * 8, 0), 8);
    const u32 dst = smem + Layout::offset(row0, chunk);
    // Rows one at a time: each looks its page up (unrolled, ptxas spilled
    // the addresses of a 128-register decode kernel).
#pragma unroll 1
    for (int i = 0; i < (Rows + kRowStep - 1) / kRowStep; ++i) {
      const int row = row0 + i * kRowStep;
      if (Rows % kRowStep != 0 && row >= Rows)
        break;
      const bool valid = row < rowsValid && bytes > 0;
      copyAsync16(dst + i * kRowStep * Layout::kRowBytes,
                  valid ? src.row(row) + chunk * 8 : src.cache,
                  valid ? bytes : 0);
    }
  } else {
#pragma unroll
    for (int c = threadIdx.x; c < Rows * kChunksPerRow; c += Threads) {
      const int row = c / kChunksPerRow, chunk = c % kChunksPerRow;
      const int bytes =
          row < rowsValid ? 2 * min(max(colsValid - chunk * 8, 0), 8) : 0;
      copyAsync16(smem + Layout::offset(row, chunk),
                  bytes > 0 ? src.row(row) + chunk * 8 : src.cache, bytes);
    }
  }
}

/// loadTileRows for a paged cache's key tile in pages of a compile-time
/// size (TilePages); rows at or past rowsValid read as zero.
template <class Layout, int Rows, int Cols, int Threads, int P, int MaxPages>
__device__ __forceinline__ void
loadTileRows(u32 smem, const TilePages<Rows, Threads, P, MaxPages> &src,
             int /*rowsValid: src's*/, int colsValid) {
  static_assert(TilePages<Rows, Threads, P, MaxPages>::template serves<Cols>(),
                "the caller checks serves()");
  constexpr int kChunksPerRow = Cols / 8;
  constexpr int kRowStep = Threads / kChunksPerRow;
  const int row0 = threadIdx.x / kChunksPerRow;
  const int chunk = threadIdx.x % kChunksPerRow;
  const int bytes = 2 * min(max(colsValid - chunk * 8, 0), 8);
  // Opaque per tile: the row offsets derive from it here, not hoisted out
  // of the main loop and kept live for every page size the kernel serves.
  i64 rowStride = src.rowStride;
  asm volatile("" : "+l"(rowStride));
  const u16 *thread = src.cache + row0 * rowStride + chunk * 8;
  const i64 pageStep = kRowStep * rowStride;
  const RowSteps<Layout, kRowStep> steps(smem, row0, chunk);
#pragma unroll
  for (int i = 0; i < Rows / kRowStep; ++i) {
    constexpr int kPerPage = P / kRowStep; // copies of a thread per page
    const int row = row0 + i * kRowStep;
    const bool valid = row < src.rowsValid && bytes > 0;
    const u16 *from = thread +
                      src.table.clamp(src.entries[i / kPerPage]) * src.pageStride +
                      (i % kPerPage) * pageStep;
    const u32 dst = kRowStep % Layout::kRowPeriod == 0
                        ? smem + Layout::offset(row0, chunk) +
                              i * kRowStep * Layout::kRowBytes
                    : RowSteps<Layout, kRowStep>::kServes
                        ? steps.at(i)
                        : smem + Layout::offset(row, chunk);
    copyAsync16(dst, valid ? from : src.cache, valid ? bytes : 0);
  }
}

/// loadTileRows for a paged cache's key tile page by page (PageByPage): the
/// thread's chunks of its page in order, kCopies of them (the tile's chunks
/// over Threads); rows at or past rowsValid read as zero.
template <class Layout, int Rows, int Cols, int Threads>
__device__ __forceinline__ void loadTileRows(u32 smem,
                                             const PageByPage<Rows, Threads> &src,
                                             int /*rowsValid: src's*/,
                                             int colsValid) {
  constexpr int kChunksPerRow = Cols / 8;
  constexpr int kCopies = (Rows * kChunksPerRow + Threads - 1) / Threads;
  // Unsigned: the divisions by kChunksPerRow are shifts and masks.
  unsigned perPage = src.thread.perPage, pageRows = src.thread.pageRows;
  unsigned page = src.thread.page, local = src.thread.local;
  // Opaque per tile: what derives from the place alone is recomputed here,
  // not hoisted out of the main loop and kept live (a 64-bit offset per
  // copy: ptxas spilled).
  asm volatile("" : "+r"(perPage), "+r"(pageRows), "+r"(page), "+r"(local));
  const int rowsValid = src.rowsValid - static_cast<int>(page * pageRows);
  const u16 *base = src.cache + src.table.clamp(src.entry) * src.pageStride;
  const unsigned pageRow = page * pageRows; // the page's first row in the tile
  if (perPage % kChunksPerRow == 0) {
    // Pages of at least Rows * kChunksPerRow / Threads rows (16-key pages
    // and up at head dim 128): the thread keeps one chunk column and steps
    // rows by a constant, as loadTile does.
    const unsigned chunk = local % kChunksPerRow;
    const unsigned row0 = local / kChunksPerRow, rowStep = perPage / kChunksPerRow;
    const int bytes = 2 * min(max(colsValid - static_cast<int>(chunk) * 8, 0), 8);
    const u16 *from = base + row0 * src.rowStride + chunk * 8;
    const i64 fromStep = rowStep * src.rowStride;
#pragma unroll
    for (int j = 0; j < kCopies; ++j) {
      const unsigned rowInPage = row0 + j * rowStep;
      if (Rows * kChunksPerRow % Threads != 0 && rowInPage >= pageRows)
        break;
      const bool valid = static_cast<int>(rowInPage) < rowsValid && bytes > 0;
      copyAsync16(smem + Layout::offset(pageRow + rowInPage, chunk),
                  valid ? from + j * fromStep : src.cache, valid ? bytes : 0);
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < kCopies; ++j) {
    const unsigned c = local + j * perPage;
    const unsigned rowInPage = c / kChunksPerRow, chunk = c % kChunksPerRow;
    if (Rows * kChunksPerRow % Threads != 0 && rowInPage >= pageRows)
      break;
    const int bytes = static_cast<int>(rowInPage) < rowsValid
                          ? 2 * min(max(colsValid - static_cast<int>(chunk) * 8, 0), 8)
                          : 0;
    const u16 *from = base + rowInPage * src.rowStride + chunk * 8;
    copyAsync16(smem + Layout::offset(pageRow + rowInPage, chunk),
                bytes > 0 ? from : src.cache, bytes);
  }
}

/// ldmatrix from a 32-bit shared address: a per-thread base plus a
/// compile-time offset becomes one register and an immediate.
__device__ __forceinline__ void loadMatrixX4(u32 (&r)[4], u32 address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void loadMatrixX4Trans(u32 (&r)[4], u32 address) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(address));
}
/// stmatrix (sm_90): four 8x8 b16 matrices from their mma fragments (one
/// register each); lanes 8 i to 8 i + 7 address the rows of matrix i.
__device__ __forceinline__ void storeMatrixX4(u32 address, const u32 (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
               ::"r"(address), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

/// Transposes four 32-bit words across the four lanes of a quad: lane j
/// holds m[i] = M[j][i] and gets M[i][j]. Two butterfly steps (lanes one,
/// then two apart), each sending the two words the partner lacks.
__device__ __forceinline__ void quadTranspose(u32 (&m)[4]) {
  const int lane = threadIdx.x % 4;
#pragma unroll
  for (int bit = 1; bit <= 2; bit <<= 1) {
    const bool upper = lane & bit;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if (i & bit)
        continue;
      // Word i (bit clear) and i | bit: the lower lane keeps i and sends
      // i | bit, the upper keeps i | bit and sends i.
      const u32 send = upper ? m[i] : m[i | bit];
      const u32 got = __shfl_xor_sync(0xffffffffu, send, bit);
      if (upper)
        m[i] = got;
      else
        m[i | bit] = got;
    }
  }
}

/// A 16-byte global store (16-byte aligned). Inline PTX: given the plain
/// vector store, the compiler split the first of a row's into four.
__device__ __forceinline__ void storeGlobal16(void *address,
                                              const u32 (&w)[4]) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(address),
               "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
               : "memory");
}

/// Stores half `half` (rows lane / 4, or + 8) of a warp's m16 accumulator
/// rows, kTiles n8 tiles of four floats times `scale`, at `row` (16-byte
/// aligned, the tiles' 8 * kTiles columns): a quad's 4 words of 4 tiles
/// transposed, so that each lane stores one tile's 8 columns with one
/// 16-byte store where there were four 4-byte ones, each touching 8 rows.
/// Every lane of the warp calls it (the quad exchanges words); `store`
/// false skips the lane's stores (rows past the sequence).
template <class Ops, int kTiles>
__device__ __forceinline__ void storeRowVectorized(u16 *row,
                                                   const float (&acc)[kTiles][4],
                                                   int half, float scale,
                                                   bool store) {
  static_assert(kTiles % 4 == 0, "whole groups of 4 column tiles");
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int g = 0; g < kTiles / 4; ++g) {
    u32 words[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      words[i] = Ops::pack(acc[4 * g + i][2 * half] * scale,
                           acc[4 * g + i][2 * half + 1] * scale);
    quadTranspose(words);
    if (store)
      storeGlobal16(row + (4 * g + lane % 4) * 8, words);
  }
}

} // namespace attn

// The scalar semantics of score_mod regions (the emitted scoreMod() calls).
#include "attn/score_mod.cuh"
