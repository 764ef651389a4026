//===- Cache.cpp - Compiled kernels in memory and on disk -----------------===//

#include "attn/Runtime/Cache.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace attn {

namespace {

constexpr char kMagic[] = "ATTNCACHE1\n";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;

void appendU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

bool readU64(const std::string &in, size_t &pos, uint64_t &value) {
  if (pos + 8 > in.size())
    return false;
  value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i]))
             << (8 * i);
  pos += 8;
  return true;
}

std::string serialize(const CacheEntry &entry) {
  std::string payload;
  const PtxasReport &r = entry.ptxas;
  for (int64_t v : {int64_t(r.parsed), int64_t(r.registers),
                    int64_t(r.sharedBytes), int64_t(r.stackFrameBytes),
                    int64_t(r.spillStoreBytes), int64_t(r.spillLoadBytes),
                    int64_t(r.constantBytes)})
    appendU64(payload, static_cast<uint64_t>(v));
  appendU64(payload, entry.log.size());
  payload += entry.log;
  appendU64(payload, entry.cubin.size());
  payload += entry.cubin;

  std::string file(kMagic, kMagicSize);
  appendU64(file, payload.size());
  appendU64(file, hashBytes(payload));
  return file + payload;
}

/// Parses a cache file; false if it is truncated or corrupted.
bool deserialize(const std::string &file, CacheEntry &entry) {
  if (file.size() < kMagicSize || file.compare(0, kMagicSize, kMagic) != 0)
    return false;
  size_t pos = kMagicSize;
  uint64_t size = 0, checksum = 0;
  if (!readU64(file, pos, size) || !readU64(file, pos, checksum) ||
      file.size() - pos != size)
    return false;
  std::string payload = file.substr(pos);
  if (hashBytes(payload) != checksum)
    return false;
  pos = 0;
  uint64_t fields[7];
  for (uint64_t &f : fields)
    if (!readU64(payload, pos, f))
      return false;
  PtxasReport &r = entry.ptxas;
  r.parsed = fields[0] != 0;
  r.registers = int(fields[1]);
  r.sharedBytes = int(fields[2]);
  r.stackFrameBytes = int(fields[3]);
  r.spillStoreBytes = int(fields[4]);
  r.spillLoadBytes = int(fields[5]);
  r.constantBytes = int(fields[6]);
  uint64_t length = 0;
  if (!readU64(payload, pos, length) || pos + length > payload.size())
    return false;
  entry.log = payload.substr(pos, length);
  pos += length;
  if (!readU64(payload, pos, length) || pos + length != payload.size())
    return false;
  entry.cubin = payload.substr(pos, length);
  return !entry.cubin.empty();
}

Status makeDirectories(const std::string &path) {
  std::string prefix;
  std::stringstream parts(path);
  std::string part;
  if (!path.empty() && path[0] == '/')
    prefix = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty())
      continue;
    prefix += part + "/";
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return Status(StatusCode::IoError, "cannot create cache directory " +
                                             prefix + ": " + std::strerror(errno));
  }
  return Status::ok();
}

/// An exclusive flock held for the lifetime of the object.
class FileLock {
public:
  explicit FileLock(const std::string &path) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0)
      flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) {
      flock(fd_, LOCK_UN);
      close(fd_);
    }
  }

private:
  int fd_ = -1;
};

} // namespace

const char *cacheOutcomeName(CacheOutcome outcome) {
  switch (outcome) {
  case CacheOutcome::Miss: return "miss";
  case CacheOutcome::MemoryHit: return "memory hit";
  case CacheOutcome::DiskHit: return "disk hit";
  }
  return "?";
}

uint64_t hashBytes(const std::string &bytes, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string makeCacheKey(const std::string &readableName,
                         std::initializer_list<std::string> parts) {
  // Two FNV-1a streams with different seeds; each part is length-prefixed so
  // that ("ab", "c") and ("a", "bc") differ.
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (const std::string &part : parts) {
    std::string framed = std::to_string(part.size()) + ":" + part;
    a = hashBytes(framed, a);
    b = hashBytes(framed, b ^ 0x9e3779b97f4a7c15ull);
  }
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx",
                static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return readableName + "-" + hex;
}

Cache::Cache(std::string directory) : directory_(std::move(directory)) {}

std::string Cache::defaultDirectory() {
  if (const char *dir = std::getenv("ATTN_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return std::string(xdg) + "/attn";
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/attn";
  return "";
}

std::string Cache::pathFor(const std::string &key) const {
  return directory_.empty() ? "" : directory_ + "/" + key + ".cubin";
}

void Cache::clearMemory() {
  std::lock_guard<std::mutex> lock(mapMutex_);
  entries_.clear();
}

std::mutex &Cache::keyMutex(const std::string &key) {
  std::lock_guard<std::mutex> lock(mapMutex_);
  std::unique_ptr<std::mutex> &m = keyMutexes_[key];
  if (!m)
    m = std::make_unique<std::mutex>();
  return *m;
}

std::shared_ptr<const CacheEntry> Cache::lookupMemory(const std::string &key) {
  std::lock_guard<std::mutex> lock(mapMutex_);
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second;
}

Result<std::shared_ptr<const CacheEntry>>
Cache::readDisk(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status(StatusCode::IoError, "no entry");
  std::string file;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    file.append(buffer, n);
  std::fclose(f);
  auto entry = std::make_shared<CacheEntry>();
  if (!deserialize(file, *entry)) {
    ++stats_.corruptEntries;
    std::remove(path.c_str());
    return Status(StatusCode::IoError, "corrupted entry " + path);
  }
  return std::shared_ptr<const CacheEntry>(std::move(entry));
}

Status Cache::writeDisk(const std::string &path, const CacheEntry &entry) {
  Status made = makeDirectories(directory_);
  if (!made)
    return made;
  std::ostringstream tmpName;
  tmpName << path << ".tmp." << getpid() << "."
          << std::hash<std::thread::id>()(std::this_thread::get_id());
  std::string tmp = tmpName.str();
  std::string bytes = serialize(entry);
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return Status(StatusCode::IoError,
                  "cannot write " + tmp + ": " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fflush(f) == 0 && ok;
  ok = fsync(fileno(f)) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(StatusCode::IoError,
                  "cannot write cache entry " + path + ": " + std::strerror(errno));
  }
  return Status::ok();
}

Result<std::shared_ptr<const CacheEntry>>
Cache::getOrCompile(const std::string &key, const Compile &compile,
                    CacheOutcome &outcome) {
  if (auto entry = lookupMemory(key)) {
    ++stats_.memoryHits;
    outcome = CacheOutcome::MemoryHit;
    return entry;
  }
  // One compile per key at a time in this process, and across processes.
  std::lock_guard<std::mutex> keyLock(keyMutex(key));
  if (auto entry = lookupMemory(key)) {
    ++stats_.memoryHits;
    outcome = CacheOutcome::MemoryHit;
    return entry;
  }
  std::string path = pathFor(key);
  std::unique_ptr<FileLock> fileLock;
  if (!path.empty() && makeDirectories(directory_))
    fileLock = std::make_unique<FileLock>(path + ".lock");

  std::shared_ptr<const CacheEntry> entry;
  if (!path.empty()) {
    Result<std::shared_ptr<const CacheEntry>> fromDisk = readDisk(path);
    if (fromDisk) {
      entry = *fromDisk;
      ++stats_.diskHits;
      outcome = CacheOutcome::DiskHit;
    }
  }
  if (!entry) {
    Result<CacheEntry> compiled = compile();
    if (!compiled)
      return compiled.status();
    entry = std::make_shared<CacheEntry>(std::move(*compiled));
    ++stats_.misses;
    outcome = CacheOutcome::Miss;
    // A cache that cannot be written is slower, not wrong.
    if (!path.empty())
      (void)writeDisk(path, *entry);
  }
  std::lock_guard<std::mutex> lock(mapMutex_);
  entries_[key] = entry;
  return entry;
}

} // namespace attn
