//===- Cache.h - Compiled kernels in memory and on disk ---------*- C++ -*-===//

#ifndef ATTN_RUNTIME_CACHE_H
#define ATTN_RUNTIME_CACHE_H

#include "attn/Runtime/Nvrtc.h"
#include "attn/Runtime/Status.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace attn {

/// What a cache lookup found.
enum class CacheOutcome { Miss, MemoryHit, DiskHit };
const char *cacheOutcomeName(CacheOutcome outcome);

/// A compiled kernel as the cache keeps it.
struct CacheEntry {
  std::string cubin;
  std::string log;
  PtxasReport ptxas;
};

/// 64-bit FNV-1a, continued from `seed`.
uint64_t hashBytes(const std::string &bytes,
                   uint64_t seed = 0xcbf29ce484222325ull);

/// Keys: "<readable name>-<32 hex digits>" from a 128-bit hash of every part.
std::string makeCacheKey(const std::string &readableName,
                         std::initializer_list<std::string> parts);

/// Creates `path` and its parents (mode 0755) unless they exist; the error
/// names `what` the folder is for ("cache directory") and the OS's reason.
Status makeDirectories(const std::string &path, const std::string &what);

/// Checks that `cubin` is what the CUDA driver loads: a 64-bit
/// little-endian ELF file for EM_CUDA, at most Cache::kMaxEntryBytes.
Status validateCubin(const std::string &cubin);

/// The bytes of a disk entry: a header with the length and checksum of the
/// rest, the key it was stored under, the ptxas report, the log and the
/// cubin.
std::string serializeCacheEntry(const std::string &key,
                                const CacheEntry &entry);
/// Parses a disk entry; fails (with why) if it is truncated, corrupted,
/// stored under another key than `key`, or holds no valid cubin.
Status parseCacheEntry(const std::string &bytes, const std::string &key,
                       CacheEntry &entry);

/// In-memory map plus an optional directory of entries. Entries are written
/// to a temporary file and renamed into place under a per-key file lock, so
/// concurrent processes and threads never see a partial entry. Reading is
/// defensive: only a regular file (no symlink, FIFO or device) of at most
/// kMaxEntryBytes is read, and an entry that fails its length or checksum,
/// was stored under another key, or holds no valid cubin is removed and
/// rebuilt.
class Cache {
public:
  /// `directory` empty: memory only.
  explicit Cache(std::string directory);

  /// The largest entry file read (cubins are a few MB at most).
  static constexpr int64_t kMaxEntryBytes = 64ll << 20;

  /// $ATTN_CACHE_DIR, else $XDG_CACHE_HOME/attn, else $HOME/.cache/attn.
  static std::string defaultDirectory();

  using Compile = std::function<Result<CacheEntry>()>;
  /// The entry for `key`, compiling (and storing) it on a miss.
  Result<std::shared_ptr<const CacheEntry>>
  getOrCompile(const std::string &key, const Compile &compile,
               CacheOutcome &outcome);

  /// Where `key` lives on disk ("" without a directory).
  std::string pathFor(const std::string &key) const;
  const std::string &directory() const { return directory_; }
  /// Drops the in-memory entries (the disk stays).
  void clearMemory();

  struct Stats {
    std::atomic<int64_t> memoryHits{0}, diskHits{0}, misses{0},
        corruptEntries{0};
  };
  const Stats &stats() const { return stats_; }

private:
  std::shared_ptr<const CacheEntry> lookupMemory(const std::string &key);
  Result<std::shared_ptr<const CacheEntry>> readDisk(const std::string &path,
                                                     const std::string &key);
  Status writeDisk(const std::string &path, const std::string &key,
                   const CacheEntry &entry);
  std::mutex &keyMutex(const std::string &key);

  std::string directory_;
  std::mutex mapMutex_;
  std::unordered_map<std::string, std::shared_ptr<const CacheEntry>> entries_;
  std::unordered_map<std::string, std::unique_ptr<std::mutex>> keyMutexes_;
  Stats stats_;
};

} // namespace attn

#endif // ATTN_RUNTIME_CACHE_H
