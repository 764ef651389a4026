//===- Npy.cpp - Reading NumPy .npy files ---------------------------------===//

#include "attn/Npy/Npy.h"
#include "attn/Runtime/Half.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace attn::npy {

namespace {

/// Dimensions a header may give (NumPy's own limit is 64).
constexpr size_t kMaxRank = 64;

struct DtypeInfo {
  const char *descr;
  Dtype dtype;
  size_t bytes;
};

// Byte order: '<' little-endian, '|' not applicable (one byte).
constexpr DtypeInfo kDtypes[] = {
    {"<f2", Dtype::F16, 2}, {"<f4", Dtype::F32, 4}, {"<f8", Dtype::F64, 8},
    {"<i4", Dtype::I32, 4}, {"<i8", Dtype::I64, 8}, {"|b1", Dtype::Bool, 1},
    {"|u1", Dtype::U8, 1},
};

/// The header dictionary: a Python literal, read by a small recursive
/// descent over the header's bytes only.
class HeaderParser {
public:
  explicit HeaderParser(std::string text) : text(std::move(text)) {}

  std::optional<std::string> error;
  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;

  void parse() {
    skipSpace();
    if (!consume('{'))
      return fail("the header is not a dictionary");
    skipSpace();
    while (!error && !consume('}')) {
      std::optional<std::string> key = parseString();
      if (!key)
        return fail("a header key is not a quoted string");
      skipSpace();
      if (!consume(':'))
        return fail("no ':' after the header key '" + *key + "'");
      skipSpace();
      if (*key == "descr") {
        if (descr)
          return fail("the header gives 'descr' twice");
        descr = parseString();
        if (!descr)
          return fail("'descr' is not a quoted string");
      } else if (*key == "fortran_order") {
        if (fortranOrder)
          return fail("the header gives 'fortran_order' twice");
        fortranOrder = parseBool();
        if (!fortranOrder)
          return fail("'fortran_order' is not True or False");
      } else if (*key == "shape") {
        if (shape)
          return fail("the header gives 'shape' twice");
        shape = parseShape();
        if (!shape)
          return;
      } else {
        return fail("the header has an unknown key '" + *key + "'");
      }
      skipSpace();
      if (consume(','))
        skipSpace();
      else if (pos >= text.size() || text[pos] != '}')
        return fail("the header dictionary is malformed after '" + *key +
                    "'");
    }
    if (error)
      return;
    skipSpace();
    if (pos != text.size())
      return fail("the header has text after its dictionary");
    if (!descr || !fortranOrder || !shape)
      return fail("the header lacks one of 'descr', 'fortran_order' and "
                  "'shape'");
  }

private:
  void fail(const std::string &message) {
    if (!error)
      error = message;
  }
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\t' ||
            text[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  std::optional<std::string> parseString() {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return std::nullopt;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return std::nullopt;
    std::string value = text.substr(pos, end - pos);
    if (value.find('\\') != std::string::npos)
      return std::nullopt; // no escapes in the keys and dtypes NumPy writes
    pos = end + 1;
    return value;
  }
  std::optional<bool> parseBool() {
    if (consumeWord("True"))
      return true;
    if (consumeWord("False"))
      return false;
    return std::nullopt;
  }
  /// A tuple of non-negative integers: (), (N,), (N, M), (N, M,).
  std::optional<std::vector<int64_t>> parseShape() {
    if (!consume('(')) {
      fail("'shape' is not a tuple");
      return std::nullopt;
    }
    std::vector<int64_t> dims;
    skipSpace();
    if (consume(')'))
      return dims;
    while (true) {
      skipSpace();
      if (pos < text.size() && text[pos] == '-') {
        fail("'shape' has a negative dimension");
        return std::nullopt;
      }
      size_t start = pos;
      uint64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        unsigned digit = text[pos] - '0';
        if (value > (uint64_t(std::numeric_limits<int64_t>::max()) - digit) / 10) {
          fail("'shape' has a dimension that does not fit in 64 bits");
          return std::nullopt;
        }
        value = value * 10 + digit;
        ++pos;
      }
      if (pos == start) {
        fail("'shape' has an entry that is not an integer");
        return std::nullopt;
      }
      if (dims.size() == kMaxRank) {
        fail("'shape' has more than " + std::to_string(kMaxRank) +
             " dimensions");
        return std::nullopt;
      }
      dims.push_back(static_cast<int64_t>(value));
      skipSpace();
      if (consume(')')) {
        if (dims.size() == 1) {
          fail("'shape' of one dimension must be written (N,)");
          return std::nullopt;
        }
        return dims;
      }
      if (!consume(',')) {
        fail("'shape' is not a tuple of integers");
        return std::nullopt;
      }
      skipSpace();
      if (consume(')'))
        return dims;
    }
  }

  const std::string text;
  size_t pos = 0;
};

uint32_t littleEndian(const unsigned char *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

template <class T> T load(const unsigned char *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

double decode(Dtype dtype, const unsigned char *p) {
  switch (dtype) {
  case Dtype::F16: return halfToFloat(load<uint16_t>(p));
  case Dtype::F32: return load<float>(p);
  case Dtype::F64: return load<double>(p);
  case Dtype::I32: return load<int32_t>(p);
  case Dtype::I64: return static_cast<double>(load<int64_t>(p));
  case Dtype::Bool:
  case Dtype::U8: return *p != 0 ? 1.0 : 0.0;
  }
  return 0;
}

} // namespace

Result<Array> parse(const std::string &bytes, const std::string &name,
                    const ReadOptions &options) {
  auto bad = [&](const std::string &why) {
    return Status(StatusCode::InvalidArgument, name + ": " + why);
  };
  if (bytes.size() > options.maxFileBytes)
    return bad("has " + std::to_string(bytes.size()) + " bytes, more than " +
               std::to_string(options.maxFileBytes));
  const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return bad("not a .npy file");
  unsigned major = data[6], minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    return bad("unsupported .npy version " + std::to_string(major) + "." +
               std::to_string(minor));
  size_t prefix = major == 1 ? 10 : 12;
  if (bytes.size() < prefix)
    return bad("the file ends inside the header length");
  uint64_t headerLength = littleEndian(data + 8, major == 1 ? 2 : 4);
  if (headerLength > bytes.size() - prefix)
    return bad("the header length " + std::to_string(headerLength) +
               " runs past the end of the file (" +
               std::to_string(bytes.size()) + " bytes)");
  HeaderParser header(bytes.substr(prefix, headerLength));
  header.parse();
  if (header.error)
    return bad(*header.error);
  if (*header.fortranOrder)
    return bad("Fortran-ordered arrays are not supported");

  const DtypeInfo *info = nullptr;
  for (const DtypeInfo &d : kDtypes)
    if (*header.descr == d.descr)
      info = &d;
  if (!info)
    return bad("unsupported dtype '" + *header.descr +
               "' (supported: <f2, <f4, <f8, <i4, <i8, |b1, |u1)");

  Array array;
  array.shape = *header.shape;
  array.dtype = info->dtype;
  uint64_t count = 1;
  for (int64_t d : array.shape)
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return bad("the shape's element count overflows 64 bits");
  uint64_t dataBytes;
  if (__builtin_mul_overflow(count, info->bytes, &dataBytes))
    return bad("the shape's byte count overflows 64 bits");
  uint64_t available = bytes.size() - prefix - headerLength;
  if (dataBytes != available)
    return bad(std::string(dataBytes > available ? "truncated data" : "extra data") +
               ": the shape needs " + std::to_string(dataBytes) +
               " bytes, the file has " + std::to_string(available));
  array.values.resize(count);
  const unsigned char *values = data + prefix + headerLength;
  for (uint64_t i = 0; i < count; ++i)
    array.values[i] = decode(info->dtype, values + i * info->bytes);
  return array;
}

Result<Array> read(const std::string &path, const ReadOptions &options) {
  // Non-blocking, so that opening a FIFO cannot wait for a writer; the
  // fstat below then refuses anything but a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return Status(StatusCode::IoError,
                  path + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return Status(StatusCode::IoError,
                  path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status(StatusCode::InvalidArgument,
                  path + ": not a regular file (a .npy input must be one)");
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > options.maxFileBytes)
    return Status(StatusCode::InvalidArgument,
                  path + ": has " + std::to_string(size) +
                      " bytes, more than " +
                      std::to_string(options.maxFileBytes));
  std::string bytes(size, '\0');
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, &bytes[done], size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Status(StatusCode::IoError,
                    path + ": cannot read: " + std::strerror(errno));
    if (n == 0)
      return Status(StatusCode::IoError, path + ": shrank while read");
    done += static_cast<size_t>(n);
  }
  return parse(bytes, path, options);
}

} // namespace attn::npy
