#pragma once

// The memory step of a commit's phase 2 with no model: the archive's
// messages go through the model-free extractor (memory_extractor.h), each
// candidate is decided against the user's existing memories of its type
// (memory_merge.h: skip, merge, replace or create) and every memory that
// changed is written under viking://user/{uid}/memories/{type}/… with
// SessionFiles::WriteIndexed (the index job in the same catalog
// transaction), so find/search return it once the job ran.
//
// Idempotent: run again for the same archive (a crash after some writes),
// the memories already written are found and the repeated candidates skip.
//
// Thread safety: the returned hook may run on any job worker; it keeps no
// state of its own (SessionFiles takes the path locks).

#include "session/memory_merge.h"
#include "session/session_files.h"
#include "session/session_store.h"

namespace skald {

struct MemoryHookOptions {
  MergeOptions merge;
};

// The hook SessionStore::SetMemoryExtractionHook takes. `files` is borrowed
// and must outlive the hook. REQUIRES: files != nullptr.
MemoryExtractionHook MakeModelFreeMemoryHook(SessionFiles* files, MemoryHookOptions options = {});

}  // namespace skald
