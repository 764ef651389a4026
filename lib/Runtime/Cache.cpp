//===- Cache.cpp - Compiled kernels in memory and on disk -----------------===//

#include "attn/Runtime/Cache.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace attn {

namespace {

// Version 2 records the key an entry was stored under.
constexpr char kMagic[] = "ATTNCACHE2\n";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;

void appendU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

bool readU64(const std::string &in, size_t &pos, uint64_t &value) {
  if (in.size() < 8 || pos > in.size() - 8)
    return false;
  value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i]))
             << (8 * i);
  pos += 8;
  return true;
}

/// Reads a u64 length and that many bytes.
bool readString(const std::string &in, size_t &pos, std::string &value) {
  uint64_t length = 0;
  if (!readU64(in, pos, length) || length > in.size() - pos)
    return false;
  value = in.substr(pos, length);
  pos += length;
  return true;
}

Status corrupt(const std::string &why) {
  return Status(StatusCode::IoError, why);
}


/// An exclusive flock held for the lifetime of the object.
class FileLock {
public:
  explicit FileLock(const std::string &path) {
    // Not through a symlink, and never waiting on a FIFO placed there; a
    // lock that cannot be taken only costs a duplicate compile.
    fd_ = open(path.c_str(),
               O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
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

Status makeDirectories(const std::string &path, const std::string &what) {
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
      return Status(StatusCode::IoError, "cannot create " + what + " " +
                                             prefix + ": " + std::strerror(errno));
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status(StatusCode::IoError,
                  "cannot create " + what + " " + path + ": not a directory");
  return Status::ok();
}


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

Status validateCubin(const std::string &cubin) {
  // ELF64 header: magic, class 2 (64-bit), data 1 (little-endian), and
  // e_machine (offset 18) EM_CUDA = 190.
  constexpr size_t kElfHeaderBytes = 64;
  constexpr unsigned kEmCuda = 190;
  if (cubin.size() < kElfHeaderBytes)
    return corrupt("the cubin has " + std::to_string(cubin.size()) +
                   " bytes, less than an ELF header");
  if (static_cast<int64_t>(cubin.size()) > Cache::kMaxEntryBytes)
    return corrupt("the cubin has " + std::to_string(cubin.size()) +
                   " bytes, more than " +
                   std::to_string(Cache::kMaxEntryBytes));
  if (cubin.compare(0, 4, "\x7f" "ELF") != 0 || cubin[4] != 2 || cubin[5] != 1)
    return corrupt("the cubin is not a 64-bit little-endian ELF file");
  unsigned machine = static_cast<unsigned char>(cubin[18]) |
                     static_cast<unsigned char>(cubin[19]) << 8;
  if (machine != kEmCuda)
    return corrupt("the cubin is an ELF file for machine " +
                   std::to_string(machine) + ", not CUDA (190)");
  return Status::ok();
}

std::string serializeCacheEntry(const std::string &key,
                                const CacheEntry &entry) {
  std::string payload;
  appendU64(payload, key.size());
  payload += key;
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

Status parseCacheEntry(const std::string &file, const std::string &key,
                       CacheEntry &entry) {
  if (file.size() < kMagicSize || file.compare(0, kMagicSize, kMagic) != 0)
    return corrupt("not a cache entry of this version");
  size_t pos = kMagicSize;
  uint64_t size = 0, checksum = 0;
  if (!readU64(file, pos, size) || !readU64(file, pos, checksum) ||
      file.size() - pos != size)
    return corrupt("truncated");
  std::string payload = file.substr(pos);
  if (hashBytes(payload) != checksum)
    return corrupt("checksum mismatch");
  pos = 0;
  std::string storedKey;
  if (!readString(payload, pos, storedKey))
    return corrupt("truncated");
  // Another kernel's entry copied over this one is whole, but not ours.
  if (storedKey != key)
    return corrupt("stored under another key, " + storedKey);
  uint64_t fields[7];
  for (uint64_t &f : fields)
    if (!readU64(payload, pos, f))
      return corrupt("truncated");
  for (uint64_t f : fields)
    if (f > static_cast<uint64_t>(std::numeric_limits<int>::max()))
      return corrupt("a ptxas field out of range");
  PtxasReport &r = entry.ptxas;
  r.parsed = fields[0] != 0;
  r.registers = int(fields[1]);
  r.sharedBytes = int(fields[2]);
  r.stackFrameBytes = int(fields[3]);
  r.spillStoreBytes = int(fields[4]);
  r.spillLoadBytes = int(fields[5]);
  r.constantBytes = int(fields[6]);
  if (!readString(payload, pos, entry.log) ||
      !readString(payload, pos, entry.cubin) || pos != payload.size())
    return corrupt("truncated");
  return validateCubin(entry.cubin);
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

namespace {

/// Reads `path` if it is a regular file of at most `limit` bytes. A symlink
/// (to /dev/zero, say) is not followed and a FIFO is not waited on: both
/// are refused, as is anything else that is not a regular file.
Result<std::string> readRegularFile(const std::string &path, int64_t limit) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return Status(StatusCode::IoError,
                  errno == ENOENT ? "no entry"
                                  : "cannot open " + path + ": " +
                                        std::strerror(errno));
  struct stat info;
  std::string bytes;
  Status status = Status::ok();
  if (fstat(fd, &info) != 0)
    status = corrupt("cannot stat " + path);
  else if (!S_ISREG(info.st_mode))
    status = corrupt(path + " is not a regular file");
  else if (info.st_size > limit)
    status = corrupt(path + " has " + std::to_string(info.st_size) +
                     " bytes, more than " + std::to_string(limit));
  else {
    bytes.resize(static_cast<size_t>(info.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = read(fd, &bytes[done], bytes.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += static_cast<size_t>(n);
    }
    // A file that shrank while it was read is caught by the checksum.
    bytes.resize(done);
  }
  close(fd);
  if (!status)
    return status;
  return bytes;
}

} // namespace

Result<std::shared_ptr<const CacheEntry>>
Cache::readDisk(const std::string &path, const std::string &key) {
  Result<std::string> file = readRegularFile(path, kMaxEntryBytes);
  if (!file && file.status().message() == "no entry")
    return file.status();
  auto entry = std::make_shared<CacheEntry>();
  Status parsed = file ? parseCacheEntry(*file, key, *entry) : file.status();
  if (!parsed) {
    // Removes the entry (a symlink itself, not its target); the rebuilt
    // entry takes its place.
    ++stats_.corruptEntries;
    std::remove(path.c_str());
    return Status(StatusCode::IoError,
                  "corrupted entry " + path + ": " + parsed.message());
  }
  return std::shared_ptr<const CacheEntry>(std::move(entry));
}

Status Cache::writeDisk(const std::string &path, const std::string &key,
                        const CacheEntry &entry) {
  Status made = makeDirectories(directory_, "cache directory");
  if (!made)
    return made;
  std::ostringstream tmpName;
  tmpName << path << ".tmp." << getpid() << "."
          << std::hash<std::thread::id>()(std::this_thread::get_id());
  std::string tmp = tmpName.str();
  std::string bytes = serializeCacheEntry(key, entry);
  // A new file, never one that a symlink placed there points at.
  std::remove(tmp.c_str());
  int fd = open(tmp.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status(StatusCode::IoError,
                  "cannot write " + tmp + ": " + std::strerror(errno));
  bool ok = true;
  for (size_t done = 0; ok && done < bytes.size();) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    if (ok)
      done += static_cast<size_t>(n);
  }
  ok = fsync(fd) == 0 && ok;
  ok = close(fd) == 0 && ok;
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
  if (!path.empty() && makeDirectories(directory_, "cache directory"))
    fileLock = std::make_unique<FileLock>(path + ".lock");

  std::shared_ptr<const CacheEntry> entry;
  if (!path.empty()) {
    Result<std::shared_ptr<const CacheEntry>> fromDisk = readDisk(path, key);
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
    if (Status valid = validateCubin(compiled->cubin); !valid)
      return Status(StatusCode::CompileError,
                    "the compiler returned an invalid cubin: " +
                        valid.message());
    entry = std::make_shared<CacheEntry>(std::move(*compiled));
    ++stats_.misses;
    outcome = CacheOutcome::Miss;
    // A cache that cannot be written is slower, not wrong.
    if (!path.empty())
      (void)writeDisk(path, key, *entry);
  }
  std::lock_guard<std::mutex> lock(mapMutex_);
  entries_[key] = entry;
  return entry;
}

} // namespace attn
