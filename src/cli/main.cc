// skald: the one binary — `skald serve` and every client command, embedded
// (--data DIR) or remote (--url URL).

#include "cli/commands.h"

int main(int argc, char** argv) { return skald::cli::RunCli(argc, argv); }
