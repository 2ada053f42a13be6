#pragma once

// Visibility and write-namespace rules of reference §5.4: the ONE place that
// decides what a caller (Identity: account, user, role) may see and change.
// The service layer applies it to every Db operation through UriResolver
// (service/uri_resolver.h); sessions use the same functions.
//
// Invisible data is refused by the URI alone: Check*Access return
// PermissionDenied "Access denied for <uri>" (as OpenViking does) before
// anything is looked up, so the answer is the same whether the path exists
// and tells a caller nothing the URI did not already say. Accounts never
// share data (every store is partitioned by account), so the rules here are
// about users inside the caller's account.
//
// Thread safety: pure functions.

#include <string_view>
#include <vector>

#include "skald/status.h"
#include "skald/types.h"
#include "uri/viking_uri.h"

namespace skald {

// True when `who` may see `uri`. ROOT sees everything (in the account it acts
// in). USER and ADMIN see: the root `viking://`; `resources/**` except the
// watch-task control file `viking://resources/.watch_tasks.json`; the `user`
// container (listings filter it to their own directory) and their own
// `user/{uid}/**`; the `agent` container and its account-shared
// skills/endpoints/tools/payments trees (legacy `agent/{id}` trees only to
// an ADMIN, who may read and delete them, never write them, see
// CheckWriteAccess; a USER is refused, as OpenViking refuses another
// agent's tree); the `temp` container and their own
// `temp/{uid}/**`. Never another user's space, another user's temp, `upload`,
// `queue`, `session` (Parse() expands it) or anything else (`_system`,
// unknown scopes): unlisted namespaces fail closed. With an actor peer
// (Identity::actor_peer), whatever the role, never another peer's space
// `user/{uid}/peers/{other}/...` (OpenViking's peer view). (OpenViking also shows
// `queue` and legacy `temp/{MMDDHHMM_xxxxxx}` leaves to everyone; Skald never
// creates either for a user.)
bool IsAccessible(const Identity& who, const VikingUri& uri);

// The parts of the subtree at `base` that `who` may walk: {base} when the
// caller may see all of it (ROOT; anything inside resources, a shared agent
// tree, their own user or temp space); for a visible container above spaces
// they may not see (`viking://`, `viking://user`, `viking://temp`,
// `viking://agent`) the caller's visible subtrees inside it (e.g.
// {user/alice} for `viking://user`, the four shared trees for
// `viking://agent`), so that a walk (tree, glob, grep) or a search's
// candidate filter never enters another user's space or a legacy agent
// tree; {} when `base` is invisible. Entries of a part may still be
// invisible one by one (the watch-task file, other peers' spaces under an
// actor peer): filter rows with IsAccessible.
std::vector<VikingUri> VisibleSubtrees(const Identity& who, const VikingUri& base);

// True when `who` may see an object that (account, user) owns — a task, a
// session: its owner, or ROOT.
bool CanSeeOwned(const Identity& who, std::string_view account, std::string_view user);

// True when `who` is exactly (account, user) — whatever the role. Uploads are
// claimable only by the user who made them.
bool IsOwner(const Identity& who, std::string_view account, std::string_view user);

// The NotFound a missing path gets: "File not found: <uri>" with details
// {type: file, resource: <uri>}.
Status AbsentStatus(const VikingUri& uri);

// Ok when `who` may read `uri`, else PermissionDenied "Access denied for
// <uri>" (detail "resource").
Status CheckReadAccess(const Identity& who, const VikingUri& uri);

// Ok when `who` may create or modify `uri` (mkdir, write, mv target): first
// CheckReadAccess (PermissionDenied when invisible), then the namespace must accept
// writes. Refused for every role: `viking://`, `viking://user`,
// `viking://agent`, `viking://session/...` and legacy agent ids (agent/{x}
// other than skills/endpoints/tools/payments, with a hint to use
// user/{uid}/peers/{x}); refused for non-ROOT callers: `viking://temp`
// itself. PermissionDenied (detail "resource") for those. Content-API
// restrictions such as "no content/write into
// user/{uid}/{skills,peers,privacy,sessions}" belong to the service layer.
Status CheckWriteAccess(const Identity& who, const VikingUri& uri);

// True when `who` acts as a peer and the subtree at `uri` holds other
// peers' spaces (`viking://`, `viking://user`, `viking://user/{uid}`,
// `viking://user/{uid}/peers`): hidden parts a subtree operation would
// otherwise reach.
bool HoldsOtherPeers(const Identity& who, const VikingUri& uri);

// PermissionDenied (detail "resource") for a subtree operation (rm, mv,
// reindex) on a subtree that HoldsOtherPeers; Ok otherwise.
Status CheckSubtreeAccess(const Identity& who, const VikingUri& uri);

// Ok when `uri` may be deleted by `who`: first CheckReadAccess (denied when
// invisible), then CheckSubtreeAccess; never `viking://`, `viking://user`, `viking://agent`; non-ROOT
// callers cannot delete `viking://resources`, their own `viking://user/{uid}`
// root or `viking://temp`. Legacy agent trees stay deletable (as in
// OpenViking) so they can be cleaned up. PermissionDenied (detail "resource")
// for those.
Status CheckDeleteAccess(const Identity& who, const VikingUri& uri);

}  // namespace skald
