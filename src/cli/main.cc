// skald: the one binary — `skald serve` and every client command, embedded
// (--data DIR) or remote (--url URL).

#include <malloc.h>

#include "cli/commands.h"

int main(int argc, char** argv) {
  // glibc returns the top of the heap to the kernel as soon as 128 KiB of
  // it are free, so a loop that allocates and frees a few hundred KiB per
  // step (zlib's state for each entry of an archive, made or expanded)
  // pays a brk(2) and fresh zeroed pages every time: 2.5 of 3.5 s of
  // zipping and uploading 5,000 files went there. Keep up to 64 MiB.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  return skald::cli::RunCli(argc, argv);
}
