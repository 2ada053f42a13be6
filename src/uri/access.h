#pragma once

// Visibility and write-namespace rules of reference §5.4.
//
// Thread safety: pure functions.

#include "skald/status.h"
#include "skald/types.h"
#include "uri/viking_uri.h"

namespace skald {

// True when `who` may see `uri` (ROOT sees everything; others see the root,
// resources/**, the `user` container, their own user/{uid}/**,
// agent/{skills,endpoints,tools,payments}/** and temp/{own uid}/**; never
// another user's space, `upload` or `_system`).
bool IsAccessible(const Identity& who, const VikingUri& uri);

// Ok when `who` may read `uri`, else PermissionDenied naming the URI.
Status CheckReadAccess(const Identity& who, const VikingUri& uri);

// Ok when `uri` is in a namespace that accepts writes (mkdir, write, mv
// target): not `viking://`, `viking://user`, `viking://agent`,
// `viking://session/...`, nor a legacy agent id (agent/{x} other than
// skills/endpoints/tools/payments). PermissionDenied otherwise. Also applies
// CheckReadAccess.
Status CheckWriteAccess(const Identity& who, const VikingUri& uri);

// Ok when `uri` may be deleted by `who`: never `viking://`, `viking://user`,
// `viking://agent`; non-ROOT callers cannot delete `viking://resources` or
// their `viking://user/{uid}` root. PermissionDenied otherwise.
Status CheckDeleteAccess(const Identity& who, const VikingUri& uri);

}  // namespace skald
