#pragma once

// Internal to skald_service: the JSON value readers shared by the config
// section parsers (config.cc) and the model section parsers
// (config_models.cc). Not part of the module's interface; only config*.cc
// include it.
//
// Every reader names the full key path (`embedding.dense.timeout`) in the
// InvalidArgument it returns and leaves `*out` unchanged on error.
//
// Thread safety: pure functions; callers own every argument.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "service/config.h"
#include "skald/status.h"

namespace skald::config_internal {

// ---- key paths and errors -------------------------------------------------

// `prefix.key`, or `key` when `prefix` is empty.
std::string KeyPath(const std::string& prefix, const std::string& key);

// InvalidArgument `config key "<path>" must be <expected>, got <v described>`.
Status TypeError(const std::string& path, std::string_view expected, const Json& v);

// InvalidArgument `unknown config key "<path>"`.
Status UnknownKey(const std::string& path);

// The Config::warnings line for an accepted key Skald does not implement.
std::string IgnoredKeyWarning(const std::string& path);

// InvalidArgument unless `v` is a JSON object.
Status RequireObject(const Json& v, const std::string& path);

// ---- value readers --------------------------------------------------------

// Strict, as in pydantic: only a JSON string is a string.
Status ReadString(const Json& v, const std::string& path, std::string* out);

// Optional string (pydantic `Optional[str]`): null reads as "".
Status ReadOptString(const Json& v, const std::string& path, std::string* out);

// Lax, as in pydantic: integers, whole floats and numeric strings count (so
// `"port": "${PORT}"` works after variable expansion). Values outside
// [lo, hi] are InvalidArgument naming the range.
Status ReadInt(const Json& v, const std::string& path, int64_t lo, int64_t hi, int64_t* out);

// ReadInt into an int. REQUIRES: lo <= hi.
Status ReadInt32(const Json& v, const std::string& path, int lo, int hi, int* out);

// true/false, 0/1, or a string ParseBool accepts ("true", "yes", ...).
Status ReadBool(const Json& v, const std::string& path, bool* out);

// A finite number; numeric strings count, like ReadInt.
Status ReadDouble(const Json& v, const std::string& path, double* out);

// A JSON array of strings; item errors name `path[i]`.
Status ReadStringList(const Json& v, const std::string& path, std::vector<std::string>* out);

// A JSON object of strings; null reads as empty. `*out` is cleared first,
// so on error it may hold the entries read before the bad one.
Status ReadStringMap(const Json& v, const std::string& path,
                     std::map<std::string, std::string>* out);

// A number of seconds (ReadDouble), rounded to milliseconds.
Status ReadSeconds(const Json& v, const std::string& path, std::chrono::milliseconds* out);

// ---- ops sections (config_ops.cc) ------------------------------------------

// `server.observability` (OpenViking's shape): `metrics.enabled` into
// config->server.metrics_enabled; the other known subsections and keys add
// warnings; unknown ones are errors.
Status ParseObservability(const Json& obj, Config* config);

// ---- model sections (config_models.cc) ------------------------------------

// `embedding` with its `dense` subsection into config->embedding; null leaves
// the defaults. Ignored keys add lines to config->warnings.
Status ParseEmbedding(const Json& obj, Config* config);

// `vlm` or `query_planner` (named by `section`) into `*out`; ignored keys add
// lines to config->warnings. Sets out->section even when `obj` is null.
Status ParseLlm(const Json& obj, const std::string& section, LlmConfig* out, Config* config);

// `rerank` into config->rerank; null leaves the defaults.
Status ParseRerank(const Json& obj, Config* config);

}  // namespace skald::config_internal
