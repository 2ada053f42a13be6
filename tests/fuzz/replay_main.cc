// A main() for libFuzzer entry points built without libFuzzer: replays files
// (or every regular file under directories) through LLVMFuzzerTestOneInput,
// so each corpus is a regression test in ctest. Fails when nothing was
// replayed, so a wrong corpus path cannot pass.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  size_t replayed = 0;
  auto replay = [&](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++replayed;
  };
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    fs::path arg(argv[i]);
    if (fs::is_directory(arg, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) replay(entry.path());
      }
    } else if (fs::is_regular_file(arg, ec)) {
      replay(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory: %s\n", argv[0], argv[i]);
      return 2;
    }
  }
  std::printf("%s: %zu inputs replayed\n", argv[0], replayed);
  return replayed > 0 ? 0 : 1;
}
