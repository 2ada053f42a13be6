#include "service/uri_resolver.h"

#include <chrono>

#include <fmt/format.h>

#include "common/time_util.h"
#include "uri/access.h"

namespace skald {

Status UriResolver::EnsureAccount(const std::string& account) {
  {
    std::lock_guard<std::mutex> lock(accounts_mu_);
    if (ready_accounts_.count(account)) return Status::Ok();
  }
  if (account.size() > kMaxIdentifierBytes) {
    return Status::InvalidArgument(fmt::format(
        "invalid account id: at most {} bytes, this one has {}", kMaxIdentifierBytes,
        account.size()));
  }
  if (!IsValidIdentifier(account, /*is_account=*/true)) {
    return Status::InvalidArgument("invalid account id: " + account);
  }
  // Every account has viking://resources (reference §6 "Preset dirs").
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(locks_->Acquire({{account, "resources", PathLockKind::kExact}},
                                        std::chrono::milliseconds(lock_timeout_ms_), &guard));
  SKALD_RETURN_IF_ERROR(content_->MakeDir(account, ""));
  // An account used through identity headers (dev/trusted mode) is listed
  // and deletable like one made with the admin API.
  SKALD_RETURN_IF_ERROR(catalog_->EnsureAccountRow(account, NowNanos()));
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(account, "resources"));
  if (!existing) {
    SKALD_RETURN_IF_ERROR(content_->MakeDir(account, "resources"));
    SKALD_ASSIGN_OR_RETURN(ContentAttr attr, content_->Stat(account, "resources"));
    CatalogNode node;
    node.path = "resources";
    node.is_dir = true;
    node.mtime_ns = node.ctime_ns = attr.mtime_ns;
    SKALD_RETURN_IF_ERROR(catalog_->Put(account, node));
  }
  std::lock_guard<std::mutex> lock(accounts_mu_);
  ready_accounts_.insert(account);
  return Status::Ok();
}

void UriResolver::ForgetAccount(const std::string& account) {
  std::lock_guard<std::mutex> lock(accounts_mu_);
  ready_accounts_.erase(account);
}

Status UriResolver::EnsureAccount(const Identity& who) {
  if (who.user.size() > kMaxIdentifierBytes) {
    return Status::InvalidArgument(fmt::format(
        "invalid user id: at most {} bytes, this one has {}", kMaxIdentifierBytes,
        who.user.size()));
  }
  return EnsureAccount(who.account);
}

Result<VikingUri> UriResolver::ParseOnly(const Identity& who, std::string_view text) {
  SKALD_RETURN_IF_ERROR(EnsureAccount(who));
  UriParseOptions parse;
  parse.identity = &who;
  return VikingUri::Parse(text, parse);
}

Result<VikingUri> UriResolver::Resolve(const Identity& who, std::string_view text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, ParseOnly(who, text));
  SKALD_RETURN_IF_ERROR(CheckReadAccess(who, uri));
  return uri;
}

}  // namespace skald
