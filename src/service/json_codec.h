#pragma once

// JSON encodings of Db results in OpenViking's wire format (reference §2.2-2.4).
// Shared by the server (HTTP `result` payloads) and the CLI (embedded mode
// `--json` output and table rendering), so both print the same thing.
//
// Thread safety: pure functions.

#include <vector>

#include "common/json_util.h"
#include "skald/db.h"

namespace skald {

// `ls`/`tree` entry shapes: agent = {uri,size,isDir,modTime(ISO ms),abstract}
// (+rel_path for tree/recursive); original = {name,size,mode,modTime(RFC3339),
// isDir,uri} (+rel_path).
enum class LsOutput { kAgent, kOriginal };

Json LsEntryToJson(const LsEntry& entry, LsOutput output, bool with_rel_path);
// The whole listing; `simple` gives a plain array of URI strings.
Json LsToJson(const std::vector<LsEntry>& entries, LsOutput output, bool simple,
              bool with_rel_path);
// {name,size,mode,modTime,isDir,isLocked,uri} (mode: 420 files / 493 dirs, as RAGFS)
Json StatToJson(const NodeInfo& node);
// {uri, estimated_deleted_count}
Json RmToJson(const RmResult& result);
// {from, to}
Json MvToJson(const MvResult& result);
// {uri,root_uri,context_type,mode,written_bytes,content_updated,semantic_status,vector_status}
Json WriteToJson(const WriteResult& result);
// {matches:[uri...], count}
Json GlobToJson(const GlobResult& result);
// {matches:[{uri,line,content}], count, match_count, files_scanned}
Json GrepToJson(const GrepResult& result);
// {nodes_checked, clean, issues:[{kind,account,uri,detail,repaired}]}
Json FsckToJson(const FsckReport& report);

// The wire error code for a Status: its reason() when set, else the code's
// default ("NOT_FOUND", "INVALID_ARGUMENT", "CONFLICT", ...). kAlreadyExists
// maps to "CONFLICT" for fs operations that report conflicts that way; the
// caller attaches a reason when another code is wanted.
std::string WireErrorCode(const Status& status);
// {"code","message","details"} (details: the Status details as an object, {} when none).
Json ErrorToJson(const Status& status);

}  // namespace skald
