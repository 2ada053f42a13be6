// libFuzzer target for the OVPack reader (src/ingest/ovpack.h), whose input
// is an upload: the fuzzed bytes are a package's manifest.json and, after a
// line "---", its index_records.jsonl, zipped with one file notes.txt
// ("hello") as a package `demo`. ReadOvpack must answer every input with a
// package or an InvalidArgument/ResourceExhausted, never throw or crash; a
// package it accepts must write back (WriteOvpack) and read again the same.
//
// Built as ovpack_fuzz_replay (any compiler, replay_main.cc): every file of
// tests/fuzz/corpus/ovpack is a ctest. Any violated invariant aborts.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "ingest/ovpack.h"
#include "tests/testutil/archive_writer.h"

namespace {

using skald::ArchiveLimits;
using skald::Pack;
using skald::ReadOvpack;
using skald::Result;
using skald::StatusCode;
using skald::testing::ArchiveFormat;
using skald::testing::ArchiveItem;

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "ovpack_fuzz invariant violated: %s: %.*s\n", what,
               static_cast<int>(std::min<size_t>(detail.size(), 400)), detail.data());
  std::abort();
}

std::string ScratchPath(const char* name) {
  return std::string("/tmp/skald_ovpack_fuzz_") + std::to_string(getpid()) + "_" + name;
}

Result<Pack> Read(const std::string& path) {
  ArchiveLimits limits;
  limits.max_total_bytes = uint64_t{64} << 20;
  try {
    return ReadOvpack(path, limits);
  } catch (const std::exception& e) {
    Fail("ReadOvpack threw", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t cut = input.find("\n---\n");
  const std::string manifest(input.substr(0, cut));
  const std::string records(cut == std::string_view::npos ? "" : input.substr(cut + 5));
  const std::string zip = ScratchPath("in.ovpack");
  if (!skald::testing::WriteTestArchive(
          zip, ArchiveFormat::kZip,
          {ArchiveItem::Dir("demo/"), ArchiveItem::Dir("demo/files/"),
           ArchiveItem::File("demo/files/notes.txt", "hello"),
           ArchiveItem::File("demo/_ovpack/index_records.jsonl", records),
           ArchiveItem::File("demo/_ovpack/manifest.json", manifest)})) {
    Fail("cannot write the package", zip);
  }
  Result<Pack> pack = Read(zip);
  std::remove(zip.c_str());
  if (!pack.ok()) {
    const StatusCode code = pack.status().code();
    if (code != StatusCode::kInvalidArgument && code != StatusCode::kResourceExhausted) {
      Fail("unexpected error code", pack.status().ToString());
    }
    return 0;
  }
  // Accepted: it writes back and reads again, the same tree and records.
  Result<std::string> bytes = skald::WriteOvpack(*pack);
  if (!bytes.ok()) Fail("an accepted package does not write back", bytes.status().ToString());
  const std::string again_path = ScratchPath("again.ovpack");
  std::ofstream(again_path, std::ios::binary) << *bytes;
  Result<Pack> again = Read(again_path);
  std::remove(again_path.c_str());
  if (!again.ok()) Fail("a written package does not read", again.status().ToString());
  if (again->entries.size() != pack->entries.size() ||
      again->records.size() != pack->records.size() || again->root.uri != pack->root.uri) {
    Fail("the package changed on its way back", manifest);
  }
  return 0;
}
