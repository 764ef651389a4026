//===- replay-main.cpp - Run the fuzz target over files, without libFuzzer ===//
//
// attn-fuzz-replay FILE|DIR...: feeds each file (each file of each folder)
// to LLVMFuzzerTestOneInput once. The ordinary (g++) build uses it to
// replay the seed corpus and the regression inputs under ctest.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

void collect(const std::string &path, std::vector<std::string> &files) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return;
  if (!S_ISDIR(info.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR *dir = opendir(path.c_str());
  if (!dir)
    return;
  while (dirent *entry = readdir(dir))
    if (entry->d_name[0] != '.')
      collect(path + "/" + entry->d_name, files);
  closedir(dir);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i)
    collect(argv[i], files);
  if (files.empty()) {
    std::fprintf(stderr, "attn-fuzz-replay: no input files\n");
    return 1;
  }
  for (const std::string &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("attn-fuzz-replay: %zu inputs, no crash\n", files.size());
  return 0;
}
