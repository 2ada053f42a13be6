#pragma once

// Visibility and write-namespace rules of reference §5.4.
//
// Thread safety: pure functions.

#include "skald/status.h"
#include "skald/types.h"
#include "uri/viking_uri.h"

namespace skald {

// True when `who` may see `uri`. ROOT sees everything. USER and ADMIN see:
// the root `viking://`; `resources/**` except the watch-task control file
// `viking://resources/.watch_tasks.json`; the `user` container (listings
// filter it to their own directory) and their own `user/{uid}/**`; all of
// `agent/**` (the account-shared skills/endpoints/tools/payments trees, and
// legacy `agent/{id}` trees, which are read-only, see CheckWriteAccess); the
// `temp` container and their own `temp/{uid}/**`. Never another user's space,
// another user's temp, `upload`, `queue`, `session` (Parse() expands it) or
// anything else (`_system`, unknown scopes): unlisted namespaces fail closed.
// (OpenViking also shows `queue` and legacy `temp/{MMDDHHMM_xxxxxx}` leaves
// to everyone; Skald never creates either for a user.)
bool IsAccessible(const Identity& who, const VikingUri& uri);

// Ok when `who` may read `uri`, else PermissionDenied naming the URI.
Status CheckReadAccess(const Identity& who, const VikingUri& uri);

// Ok when `who` may create or modify `uri` (mkdir, write, mv target): first
// CheckReadAccess, then the namespace must accept writes. Refused for every
// role: `viking://`, `viking://user`, `viking://agent`, `viking://session/...`
// and legacy agent ids (agent/{x} other than skills/endpoints/tools/payments,
// with a hint to use user/{uid}/peers/{x}); refused for non-ROOT callers:
// `viking://temp` itself. PermissionDenied (detail "resource") otherwise.
// Content-API restrictions such as "no content/write into
// user/{uid}/{skills,peers,privacy,sessions}" belong to the service layer.
Status CheckWriteAccess(const Identity& who, const VikingUri& uri);

// Ok when `uri` may be deleted by `who`: first CheckReadAccess; never
// `viking://`, `viking://user`, `viking://agent`; non-ROOT callers cannot
// delete `viking://resources`, a `viking://user/{uid}` root or
// `viking://temp`. Legacy agent trees stay deletable (as in OpenViking) so
// they can be cleaned up. PermissionDenied (detail "resource") otherwise.
Status CheckDeleteAccess(const Identity& who, const VikingUri& uri);

}  // namespace skald
