#pragma once

// UriResolver: turns a caller's URI text into a VikingUri the caller may
// read — `~` expanded for non-ROOT callers, visibility checked — and
// creates the caller's account (its preset directories) on first use.
//
// It is the service layer's entry to the visibility rule (uri/access.h):
// every Db operation resolves its URIs here, so a URI in another user's
// space answers NotFound exactly like a missing path; walks and search
// candidates narrow with VisibleSubtrees; owned objects (tasks, uploads,
// sessions) use CanSeeOwned / IsOwner.
//
// Thread safety: safe for concurrent use. Everything passed in is borrowed
// and must outlive the resolver.

#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "skald/result.h"
#include "skald/types.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/path_lock.h"
#include "uri/viking_uri.h"

namespace skald {

class UriResolver {
 public:
  UriResolver(ContentStore* content, Catalog* catalog, PathLockManager* locks, int lock_timeout_ms)
      : content_(content), catalog_(catalog), locks_(locks), lock_timeout_ms_(lock_timeout_ms) {}

  // Creates `account`'s preset directories (viking://resources) unless this
  // process already did. InvalidArgument for an invalid account id.
  Status EnsureAccount(const std::string& account);
  // The same, after checking the caller's ids: InvalidArgument for an
  // account or user id over kMaxIdentifierBytes (the API's identity check).
  Status EnsureAccount(const Identity& who);
  // Forgets that `account`'s preset directories exist (after the account was
  // deleted), so that its next use makes them again.
  void ForgetAccount(const std::string& account);

  // Parses a caller's URI (with `~` expansion for non-ROOT callers) and
  // checks that the caller may see it (NotFound "File not found: <uri>",
  // the body of a missing path, when not); creates the account's preset
  // directories on first use.
  Result<VikingUri> Resolve(const Identity& who, std::string_view text);

  // The same without the visibility check, for URIs that only narrow what
  // a caller sees (a find target, a grep exclusion): the caller must pass
  // the result through VisibleSubtrees / IsAccessible before reading.
  Result<VikingUri> ParseOnly(const Identity& who, std::string_view text);

 private:
  ContentStore* const content_;
  Catalog* const catalog_;
  PathLockManager* const locks_;
  const int lock_timeout_ms_;

  std::mutex accounts_mu_;
  std::set<std::string> ready_accounts_;  // guarded by accounts_mu_
};

}  // namespace skald
