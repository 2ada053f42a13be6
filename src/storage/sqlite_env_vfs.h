#pragma once

// SQLite does its own file I/O. To let an Env fail SQLite's writes as it
// fails ours (a full disk, EIO, a failed fsync), databases opened through
// OpenSqliteWithEnv use a thin VFS ("skald-env") that forwards every call to
// the default unix VFS, but first asks Env::BeforeForeignWrite before each
// write and sync; a refusal becomes SQLITE_FULL (disk full) or
// SQLITE_IOERR_WRITE / SQLITE_IOERR_FSYNC.
//
// The VFS is stateless: the Env travels in the database URI
// (`?skald_env=<address>`), so many Dbs with different Envs can share it.
// With the default (POSIX) env, which never refuses, the shim is skipped.
//
// Thread safety: safe to call concurrently; the VFS is registered once.

#include <sqlite3.h>

#include <string>

#include "common/env.h"

namespace skald {

// sqlite3_open_v2(path, db, flags) with writes and syncs routed through
// `env` (null = Env::Default(), a plain open). Returns the SQLite result
// code; *db is set as by sqlite3_open_v2 (close it on failure too).
// REQUIRES: `env` outlives the connection.
int OpenSqliteWithEnv(const std::string& path, int flags, Env* env, sqlite3** db);

}  // namespace skald
