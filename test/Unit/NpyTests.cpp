//===- NpyTests.cpp - The .npy reader -------------------------------------===//
//
// Valid files of every dtype and version read back their values; every
// malformed header, size and file kind is an error that names the file and
// the defect, never a crash, an out-of-bounds read or a hang.
//
//===----------------------------------------------------------------------===//

#include "attn/Npy/Npy.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace attn;

namespace {

/// A .npy file: magic, version, header length (2 bytes for v1, 4 after),
/// the header text and the data bytes.
std::string npyFile(int major, const std::string &header,
                    const std::string &data, int64_t headerLength = -1) {
  std::string bytes = "\x93NUMPY";
  bytes += char(major);
  bytes += char(0);
  uint64_t length = headerLength >= 0 ? uint64_t(headerLength) : header.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    bytes += char((length >> (8 * i)) & 0xff);
  return bytes + header + data;
}

std::string header(const std::string &descr, const std::string &shape,
                   const std::string &fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran +
         ", 'shape': " + shape + ", }\n";
}

template <class T> std::string raw(std::initializer_list<T> values) {
  std::string bytes;
  for (T v : values)
    bytes.append(reinterpret_cast<const char *>(&v), sizeof(T));
  return bytes;
}

/// The error message of parsing `bytes`, or "" if it parses.
std::string errorOf(const std::string &bytes) {
  Result<npy::Array> array = npy::parse(bytes, "x.npy");
  return array ? "" : array.status().message();
}

TEST(Npy, ReadsEveryDtype) {
  auto f32 = npy::parse(npyFile(1, header("<f4", "(2, 3)"),
                                raw<float>({1, -2, 3.5f, 0, 5, 6})),
                        "a.npy");
  ASSERT_TRUE(f32) << f32.status().message();
  EXPECT_EQ(f32->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f32->dtype, npy::Dtype::F32);
  EXPECT_EQ(f32->values, (std::vector<double>{1, -2, 3.5, 0, 5, 6}));

  auto f16 = npy::parse(npyFile(1, header("<f2", "(2,)"),
                                raw<uint16_t>({0x3c00, 0xc000})),
                        "a.npy");
  ASSERT_TRUE(f16);
  EXPECT_EQ(f16->values, (std::vector<double>{1.0, -2.0}));
  auto f64 = npy::parse(npyFile(1, header("<f8", "(1,)"), raw<double>({0.1})),
                        "a.npy");
  ASSERT_TRUE(f64);
  EXPECT_EQ(f64->values[0], 0.1);
  auto i32 = npy::parse(npyFile(1, header("<i4", "(2,)"), raw<int32_t>({-7, 9})),
                        "a.npy");
  ASSERT_TRUE(i32);
  EXPECT_EQ(i32->values, (std::vector<double>{-7, 9}));
  auto i64 = npy::parse(
      npyFile(1, header("<i8", "(1,)"), raw<int64_t>({int64_t(1) << 40})), "a.npy");
  ASSERT_TRUE(i64);
  EXPECT_EQ(i64->values[0], double(int64_t(1) << 40));
  auto b1 = npy::parse(npyFile(1, header("|b1", "(3,)"), std::string("\x01\x00\x02", 3)),
                       "a.npy");
  ASSERT_TRUE(b1);
  EXPECT_EQ(b1->values, (std::vector<double>{1, 0, 1}));
  auto u1 = npy::parse(npyFile(1, header("|u1", "(1,)"), std::string("\x05", 1)),
                       "a.npy");
  ASSERT_TRUE(u1);
  EXPECT_EQ(u1->dtype, npy::Dtype::U8);
}

TEST(Npy, ReadsVersionsTwoAndThreeAndOddShapes) {
  for (int major : {2, 3}) {
    auto a = npy::parse(npyFile(major, header("<f4", "(1, 1)"), raw<float>({4})),
                        "a.npy");
    ASSERT_TRUE(a) << a.status().message();
    EXPECT_EQ(a->values, (std::vector<double>{4}));
  }
  auto scalar = npy::parse(npyFile(1, header("<f4", "()"), raw<float>({2})), "a.npy");
  ASSERT_TRUE(scalar);
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->values.size(), 1u);
  auto empty = npy::parse(npyFile(1, header("<f4", "(0, 3)"), ""), "a.npy");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->values.empty());
  // NumPy's own spacing and key order vary; double quotes are Python too.
  auto spaced = npy::parse(
      npyFile(1, "{ \"shape\" : (2,) , 'descr':'<i4','fortran_order':False}   \n",
              raw<int32_t>({1, 2})),
      "a.npy");
  ASSERT_TRUE(spaced) << spaced.status().message();
}

TEST(Npy, RejectsMalformedHeaders) {
  const std::string f4 = raw<float>({1, 2});
  struct Bad {
    std::string bytes, why;
  } cases[] = {
      {"", "not a .npy file"},
      {"\x93NUMP", "not a .npy file"},
      {"not numpy at all", "not a .npy file"},
      {npyFile(4, header("<f4", "(2,)"), f4), "unsupported .npy version 4.0"},
      {std::string("\x93NUMPY\x01\x01\x00\x00", 10), "unsupported .npy version 1.1"},
      {std::string("\x93NUMPY\x02\x00\x00\x00", 10), "the file ends inside the header length"},
      // v2 header length 0xffffffff and a v1 length past the end.
      {npyFile(2, header("<f4", "(2,)"), f4, 0xffffffffll), "runs past the end of the file"},
      {npyFile(1, header("<f4", "(2,)"), f4, 0xffff), "runs past the end of the file"},
      {npyFile(1, header("<f4", "1, 2)"), f4), "'shape' is not a tuple"},
      {npyFile(1, header("<f4", "(1, 2"), f4), "'shape' has an entry that is not an integer"},
      {npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2", f4), "'shape' is not a tuple of integers"},
      {npyFile(1, header("<f4", "(2)"), f4), "'shape' of one dimension must be written (N,)"},
      {npyFile(1, header("<f4", "(-2,)"), f4), "'shape' has a negative dimension"},
      {npyFile(1, header("<f4", "(2.5,)"), f4), "'shape' is not a tuple of integers"},
      {npyFile(1, header("<f4", "(a,)"), f4), "'shape' has an entry that is not an integer"},
      {npyFile(1, header("<f4", "(99999999999999999999,)"), f4), "does not fit in 64 bits"},
      {npyFile(1, header("<f4", "(4294967296, 4294967296, 16)"), f4), "element count overflows 64 bits"},
      {npyFile(1, header("<f4", "(4611686018427387904,)"), f4), "byte count overflows 64 bits"},
      {npyFile(1, header("<c8", "(2,)"), f4), "unsupported dtype '<c8'"},
      {npyFile(1, header(">f4", "(2,)"), f4), "unsupported dtype '>f4'"},
      {npyFile(1, header("<f4", "(2,)", "True"), f4), "Fortran-ordered arrays are not supported"},
      {npyFile(1, header("<f4", "(2,)", "0"), f4), "'fortran_order' is not True or False"},
      {npyFile(1, "{'descr': '<f4', 'shape': (2,)}", f4), "lacks one of"},
      {npyFile(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", f4), "gives 'descr' twice"},
      {npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", f4), "unknown key 'extra'"},
      {npyFile(1, "{'descr: '<f4'}", f4), "no ':' after the header key"},
      {npyFile(1, "{'descr': '<f4}", f4), "'descr' is not a quoted string"},
      {npyFile(1, "['descr', '<f4']", f4), "the header is not a dictionary"},
      {npyFile(1, "{'descr': '<f4' 'fortran_order': False}", f4), "malformed after 'descr'"},
      {npyFile(1, header("<f4", "(2,)") + "x", f4), "text after its dictionary"},
      {npyFile(1, header("<f4", "(3,)"), f4), "truncated data"},
      {npyFile(1, header("<f4", "(1,)"), f4), "extra data"},
  };
  for (const Bad &bad : cases) {
    std::string error = errorOf(bad.bytes);
    EXPECT_NE(error.find(bad.why), std::string::npos)
        << "want '" << bad.why << "', got '" << error << "'";
    if (!error.empty()) {
      EXPECT_EQ(error.rfind("x.npy: ", 0), 0u) << error;
    }
  }
}

TEST(Npy, SurvivesMutatedFiles) {
  // Random damage to a valid file is either read (values within the file)
  // or refused; it never crashes or reads past the bytes it was given.
  const std::string good =
      npyFile(1, header("<f4", "(2, 3)"), raw<float>({1, 2, 3, 4, 5, 6}));
  std::mt19937 rng(11);
  int accepted = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string bytes = good;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 3) {
      case 0: bytes[rng() % bytes.size()] = char(rng()); break;
      case 1: bytes.resize(rng() % (bytes.size() + 1)); break;
      case 2: bytes.insert(rng() % (bytes.size() + 1), 1, char(rng())); break;
      }
      if (bytes.empty())
        break;
    }
    // A copy on the heap of exactly its size, so a sanitizer sees overruns.
    std::unique_ptr<char[]> exact(new char[bytes.size()]);
    std::memcpy(exact.get(), bytes.data(), bytes.size());
    Result<npy::Array> a = npy::parse(std::string(exact.get(), bytes.size()), "m.npy");
    if (a) {
      ++accepted;
      uint64_t count = 1;
      for (int64_t d : a->shape)
        count *= uint64_t(d);
      EXPECT_EQ(a->values.size(), count);
    }
  }
  EXPECT_GT(accepted, 0);
}

class NpyFiles : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/attn-npy-XXXXXX";
    ASSERT_TRUE(mkdtemp(pattern));
    dir = pattern;
  }
  void TearDown() override {
    for (const std::string &f : created)
      std::remove(f.c_str());
    rmdir(dir.c_str());
  }
  std::string path(const std::string &name) {
    created.push_back(dir + "/" + name);
    return created.back();
  }
  std::string write(const std::string &name, const std::string &bytes) {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  /// npy::read of `p` on another thread; fails the test if it does not
  /// return within 10 s (a blocked read would hang the test otherwise).
  Status readWithin10s(const std::string &p) {
    auto promise = std::make_shared<std::promise<Status>>();
    std::future<Status> done = promise->get_future();
    std::thread([promise, p] { promise->set_value(npy::read(p).status()); })
        .detach();
    if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "reading " << p << " hangs";
      return Status(StatusCode::IoError, "hang");
    }
    return done.get();
  }

  std::string dir;
  std::vector<std::string> created;
};

TEST_F(NpyFiles, ReadsARegularFile) {
  std::string p =
      write("a.npy", npyFile(1, header("<i4", "(3,)"), raw<int32_t>({1, 2, 3})));
  Result<npy::Array> a = npy::read(p);
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->values, (std::vector<double>{1, 2, 3}));
}

TEST_F(NpyFiles, RefusesWhatIsNotARegularFile) {
  Result<npy::Array> missing = npy::read(dir + "/missing.npy");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), StatusCode::IoError);
  EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos);

  std::string fifo = path("fifo.npy");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Status s = readWithin10s(fifo);
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos)
      << s.message();

  s = readWithin10s("/dev/zero");
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos)
      << s.message();
  std::string link = path("zero.npy");
  ASSERT_EQ(symlink("/dev/zero", link.c_str()), 0);
  s = readWithin10s(link);
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos)
      << s.message();
  s = readWithin10s(dir);
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos)
      << s.message();
}

TEST_F(NpyFiles, RefusesFilesOverTheSizeBound) {
  std::string p =
      write("big.npy", npyFile(1, header("<f4", "(2,)"), raw<float>({1, 2})));
  npy::ReadOptions options;
  options.maxFileBytes = 32;
  Result<npy::Array> a = npy::read(p, options);
  ASSERT_FALSE(a);
  EXPECT_NE(a.status().message().find("more than 32"), std::string::npos)
      << a.status().message();
}

} // namespace
