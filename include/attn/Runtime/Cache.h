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

/// In-memory map plus an optional directory of entries. Entries are written
/// to a temporary file and renamed into place under a per-key file lock, so
/// concurrent processes and threads never see a partial entry; an entry that
/// fails its length or checksum is removed and rebuilt.
class Cache {
public:
  /// `directory` empty: memory only.
  explicit Cache(std::string directory);

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
  Result<std::shared_ptr<const CacheEntry>> readDisk(const std::string &path);
  Status writeDisk(const std::string &path, const CacheEntry &entry);
  std::mutex &keyMutex(const std::string &key);

  std::string directory_;
  std::mutex mapMutex_;
  std::unordered_map<std::string, std::shared_ptr<const CacheEntry>> entries_;
  std::unordered_map<std::string, std::unique_ptr<std::mutex>> keyMutexes_;
  Stats stats_;
};

} // namespace attn

#endif // ATTN_RUNTIME_CACHE_H
