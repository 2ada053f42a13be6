#pragma once

// TreeSwap: puts new trees in the place of old ones in the content store as
// one unit that a crash never splits (pack import and restore). Every target
// ends up holding its old tree or its new one, and all targets the same.
//
// 1. Begin: a staging area at the account's root, named with the content
//    store's temporary prefix (kTempNamePrefix), so that no scan reports it
//    and the leftover sweep removes it.
// 2. The caller writes each target's new tree (or file) at StagedPath()
//    with the ordinary ContentStore calls. A target may also have nothing
//    staged: it is removed.
// 3. Commit: the plan — the targets, which of them get a new tree, and the
//    jobs to queue once the trees are in place — is written durably into
//    the staging area. This is the commit point: before it a crash leaves
//    every old tree (the staging area is swept); after it, recovery
//    (RecoverTreeSwaps, at open, before reconcile) finishes the swap and
//    hands the jobs back to be queued.
// 4. Apply: per target, the old tree is renamed into the staging area and the
//    new one into place. Each step is read back from what exists, so
//    applying again after a crash at any point finishes the job; and it
//    never removes anything: a target that holds something although its old
//    tree was already set aside (nothing can, under the caller's locks, or
//    in recovery) is left as it is. A failed Apply can be rolled back while
//    the caller still holds its locks (RollBack).
// 5. Finish: the staging area goes, with the plan and the old trees.
//
// The catalog is the caller's: after Apply it records the new trees and
// queues the jobs (one transaction), then calls Finish. A crash before
// Finish leaves content ahead of the catalog, which recovery's reconcile
// brings in line, as after any write; the plan's jobs are queued again.
//
// Thread safety: one TreeSwap is used by one thread; callers hold path locks
// covering every target. The content store is borrowed.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "storage/catalog.h"
#include "storage/content_store.h"

namespace skald {

struct RecoveredSwap;

class TreeSwap {
 public:
  // A new staging area in `account`. REQUIRES: `content` outlives the swap.
  static Result<std::unique_ptr<TreeSwap>> Begin(ContentStore* content, std::string account);

  // Removes the staging area unless the swap was committed and not
  // finished (recovery finishes it then).
  ~TreeSwap();
  TreeSwap(const TreeSwap&) = delete;
  TreeSwap& operator=(const TreeSwap&) = delete;

  // Adds target `path` ("resources/x"); `staged`: a new tree or file is
  // written for it at StagedPath(i, ""), else the target is removed.
  // Returns its index. REQUIRES: before Commit; targets do not overlap.
  size_t AddTarget(std::string path, bool staged);

  // Where target i's new tree is staged: `rel` below its root ("" = the
  // root itself, a directory or a file). The root's parent exists.
  std::string StagedPath(size_t target, std::string_view rel) const;

  // Writes the plan, with `jobs`, durably: from here on the swap happens,
  // crash or not. REQUIRES: everything staged is durable (ContentStore
  // calls return so).
  Status Commit(const std::vector<JobSpec>& jobs);

  // Puts every target in place. REQUIRES: committed. Idempotent; on an
  // error, RollBack or leave the swap to recovery (the workspace must then
  // be reconciled).
  Status Apply();

  // After a failed Apply: the new trees back into the staging area and the
  // old ones into place, and the plan removed, so that the swap is
  // uncommitted again (the destructor drops it). REQUIRES: committed, and
  // the caller still holds the locks it held for Apply.
  Status RollBack();

  // Removes the staging area with the plan and the old trees. Ok also when
  // only the plan could be removed (the rest is a leftover the next
  // recovery sweeps); an error leaves the plan, for recovery to apply again.
  Status Finish();

 private:
  struct Target {
    std::string path;
    bool staged = false;
  };
  TreeSwap(ContentStore* content, std::string account, std::string root)
      : content_(content), account_(std::move(account)), root_(std::move(root)) {}
  friend Result<std::vector<RecoveredSwap>> RecoverTreeSwaps(ContentStore& content);
  // Makes the missing directories above `path` (recovery: a parent removed
  // after a failed Apply).
  Status EnsureParents(std::string_view path);

  ContentStore* const content_;
  const std::string account_;
  const std::string root_;  // the staging area's path
  std::vector<Target> targets_;
  std::vector<JobSpec> jobs_;
  bool committed_ = false;
  bool finished_ = false;
};

// A committed swap that recovery finished.
struct RecoveredSwap {
  std::string account;
  std::vector<std::string> targets;  // the paths it put in place or removed
  std::vector<JobSpec> jobs;         // the plan's jobs, to queue again
  bool jobs_complete = true;         // false when one of them did not read back
};

// Finishes every committed swap an interrupted process left and discards
// the uncommitted ones, in every account. Call at open, before reconcile
// (whose leftover sweep would remove a committed swap's staging area too);
// queue the returned jobs once reconcile has run.
Result<std::vector<RecoveredSwap>> RecoverTreeSwaps(ContentStore& content);

}  // namespace skald
