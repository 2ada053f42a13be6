#pragma once

// The `skald` command line: global flags, every subcommand, and the mapping
// of outcomes to exit codes.
//
// Thread safety: RunCli is called once per process, from main().

namespace skald::cli {

// Process exit codes (the same as OpenViking's `ov` CLI).
enum ExitCode : int {
  kExitOk = 0,          // the command succeeded
  kExitError = 1,       // the Db or the server reported an error
  kExitUsage = 2,       // bad flags, missing arguments, bad configuration
  kExitConnection = 3,  // the server could not be reached / timed out
};

// Parses argv, runs one command (printing its output to stdout and errors
// to stderr) and returns the exit code.
int RunCli(int argc, char** argv);

}  // namespace skald::cli
