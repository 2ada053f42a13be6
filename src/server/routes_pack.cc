// /api/v1/pack/{export,backup,import,restore}: OpenViking's OVPack routes
// (reference §2.11) over Db::ExportPack, BackupPack, ImportPack and
// RestorePack. Bodies are extra="forbid"; export and backup answer the
// package itself (application/zip, attachment `<name>.ovpack`), import and
// restore `{"uri"}`.

#include <httplib.h>

#include <algorithm>
#include <cctype>

#include "server/http_util.h"
#include "server/routes.h"

namespace skald::server {
namespace {

// As OpenViking's file responses name it: `filename="..."` for a plain
// ASCII name, else the RFC 5987 form.
std::string PackDisposition(const std::string& name) {
  const bool plain = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
  });
  return plain ? "attachment; filename=\"" + name + "\"" : ContentDispositionAttachment(name);
}

void SendPack(Call& call, Result<Download> pack) {
  if (!pack.ok()) return call.Fail(pack.status());
  call.SetHeader("Content-Disposition", PackDisposition(pack->name));
  call.Bytes(std::move(pack->bytes), "application/zip");
}

// POST /api/v1/pack/export {uri, include_vectors=false}
void Export(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string uri = b.RequiredString("uri");
  const bool include_vectors = b.Bool("include_vectors", false);
  b.ForbidExtra({"uri", "include_vectors"});
  if (!errors.empty()) return call.FailValidation(errors);
  SendPack(call, call.db().ExportPack(call.who(), uri, include_vectors));
}

// POST /api/v1/pack/backup {include_vectors=false} (the body is optional).
void Backup(Call& call) {
  Json body = Json::object();
  if (!Trim(call.request().body).empty()) {
    std::optional<Json> given = call.BodyObject();
    if (!given.has_value()) return;
    body = std::move(*given);
  }
  ValidationErrors errors;
  BodyReader b(body, &errors);
  const bool include_vectors = b.Bool("include_vectors", false);
  b.ForbidExtra({"include_vectors"});
  if (!errors.empty()) return call.FailValidation(errors);
  SendPack(call, call.db().BackupPack(call.who(), include_vectors));
}

// The fields import and restore share; `parent` for import only.
std::optional<PackImportRequest> ReadImport(Call& call, bool with_parent) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return std::nullopt;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  PackImportRequest request;
  request.temp_file_id = b.RequiredString("temp_file_id");
  if (with_parent) request.parent = b.RequiredString("parent");
  request.on_conflict =
      b.OptionalLiteral("on_conflict", {"fail", "overwrite", "skip"}).value_or("fail");
  request.vector_mode =
      b.OptionalLiteral("vector_mode", {"auto", "recompute", "require"}).value_or("auto");
  if (with_parent) {
    b.ForbidExtra({"temp_file_id", "parent", "on_conflict", "vector_mode"});
  } else {
    b.ForbidExtra({"temp_file_id", "on_conflict", "vector_mode"});
  }
  if (!errors.empty()) {
    call.FailValidation(errors);
    return std::nullopt;
  }
  return request;
}

// POST /api/v1/pack/import {temp_file_id, parent, on_conflict?, vector_mode?}
void Import(Call& call) {
  std::optional<PackImportRequest> request = ReadImport(call, /*with_parent=*/true);
  if (!request) return;
  Result<std::string> uri = call.db().ImportPack(call.who(), *request);
  if (!uri.ok()) return call.Fail(uri.status());
  call.Ok(Json{{"uri", *uri}});
}

// POST /api/v1/pack/restore {temp_file_id, on_conflict?, vector_mode?}
void Restore(Call& call) {
  std::optional<PackImportRequest> request = ReadImport(call, /*with_parent=*/false);
  if (!request) return;
  Result<std::string> uri = call.db().RestorePack(call.who(), *request);
  if (!uri.ok()) return call.Fail(uri.status());
  call.Ok(Json{{"uri", *uri}});
}

}  // namespace

void RegisterPackRoutes(Router& router) {
  router.Add("POST", "/api/v1/pack/export", Export);
  router.Add("POST", "/api/v1/pack/backup", Backup);
  router.Add("POST", "/api/v1/pack/import", Import);
  router.Add("POST", "/api/v1/pack/restore", Restore);
}

}  // namespace skald::server
