// skald: the one binary — `skald serve` and every client command, embedded
// (--data DIR) or remote (--url URL).

#include "cli/commands.h"
#include "common/heap.h"

int main(int argc, char** argv) {
  skald::KeepFreedHeapForReuse();
  return skald::cli::RunCli(argc, argv);
}
