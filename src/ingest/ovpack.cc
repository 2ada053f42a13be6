#include "ingest/ovpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <set>

#include "common/hash.h"
#include "common/json_util.h"
#include "common/strings.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

using Json = nlohmann::json;

// dense.f32 is little-endian float32, copied as it is.
static_assert(std::endian::native == std::endian::little);

constexpr std::string_view kKind = "openviking.ovpack";
constexpr std::string_view kFilesDir = "files";
constexpr std::string_view kInternalDir = "_ovpack";
constexpr std::string_view kManifestPath = "_ovpack/manifest.json";
constexpr std::string_view kRecordsPath = "_ovpack/index_records.jsonl";
constexpr std::string_view kDensePath = "_ovpack/dense.f32";

// JSON is written with DumpJson (common/json_util.h) as OpenViking writes
// it: keys sorted (nlohmann's objects are ordered maps), UTF-8 kept raw.

Status Invalid(std::string message) { return Status::InvalidArgument(std::move(message)); }

bool IsSha256Hex(const Json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

bool IsCount(const Json& v) { return v.is_number_integer() && v.get<int64_t>() >= 0; }

// What a package's JSON may take before it is parsed (parsed JSON holds
// several times its text): the manifest, each record line, and how deep
// either nests (deeper values are never written by an exporter, and
// copying or printing them recurses).
constexpr size_t kMaxManifestBytes = size_t{32} << 20;
constexpr size_t kMaxRecordLineBytes = size_t{8} << 20;
constexpr int kMaxJsonDepth = 64;
// A vector's dimensions at most (embedders give 256..4096).
constexpr int64_t kMaxDimensions = 65536;

// A JSON text of at most `max_bytes` and kMaxJsonDepth levels, parsed;
// discarded (is_discarded()) when it is not JSON.
Result<Json> ParseBounded(std::string_view text, size_t max_bytes, std::string_view what) {
  if (text.size() > max_bytes) {
    return Invalid(fmt::format("{} is larger than {} MiB", what, max_bytes >> 20));
  }
  if (NestsDeeperThan(text, kMaxJsonDepth)) {
    return Invalid(fmt::format("{} nests deeper than {} levels", what, kMaxJsonDepth));
  }
  return Json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string Joined(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item.empty() ? "(root)" : item;
  }
  return out;
}

// ---- Writing ----------------------------------------------------------

struct WriterFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

la_ssize_t AppendToString(archive*, void* out, const void* buffer, size_t length) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

class ZipOut {
 public:
  Status Open() {
    a_.reset(archive_write_new());
    if (!a_) return Status::ResourceExhausted("out of memory creating a zip archive");
    archive_write_set_format_zip(a_.get());
    archive_write_zip_set_compression_deflate(a_.get());
    archive_write_set_bytes_in_last_block(a_.get(), 1);  // no padding after the zip
    if (archive_write_open2(a_.get(), &bytes_, nullptr, AppendToString, nullptr, nullptr) !=
        ARCHIVE_OK) {
      return Error();
    }
    return Status::Ok();
  }
  Status Dir(const std::string& name) { return Add(name + "/", nullptr, AE_IFDIR); }
  Status File(const std::string& name, std::string_view data) { return Add(name, &data, AE_IFREG); }
  Result<std::string> Finish() {
    if (archive_write_close(a_.get()) != ARCHIVE_OK) return Error();
    return std::move(bytes_);
  }

 private:
  Status Add(const std::string& name, const std::string_view* data, unsigned type) {
    std::unique_ptr<archive_entry, EntryFree> e(archive_entry_new());
    archive_entry_set_pathname_utf8(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), type);
    archive_entry_set_perm(e.get(), type == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_size(e.get(), data ? static_cast<la_int64_t>(data->size()) : 0);
    archive_entry_set_mtime(e.get(), now_, 0);
    if (archive_write_header(a_.get(), e.get()) != ARCHIVE_OK) return Error();
    if (data != nullptr && !data->empty() &&
        archive_write_data(a_.get(), data->data(), data->size()) < 0) {
      return Error();
    }
    return Status::Ok();
  }
  Status Error() const {
    const char* text = archive_error_string(a_.get());
    return Status::Internal(
        fmt::format("cannot write the ovpack: {}", text != nullptr ? text : "unknown error"));
  }

  std::unique_ptr<archive, WriterFree> a_;
  std::string bytes_;
  const time_t now_ = std::time(nullptr);  // every member's time: when it was packed
};

Json EntryJson(const PackEntry& e) {
  Json j = {{"path", e.path}, {"kind", e.is_dir ? "directory" : "file"}};
  j["size"] = e.is_dir ? 0 : e.bytes.size();
  if (!e.is_dir) j["sha256"] = Sha256Hex(e.bytes);
  return j;
}

// ---- Reading ----------------------------------------------------------

// What the zip holds under <base>/files (paths relative to it; "" = files/
// itself) and <base>/_ovpack.
struct Members {
  std::map<std::string, std::string, std::less<>> files;  // content, by rel path
  std::set<std::string> dirs;
  std::map<std::string, std::string, std::less<>> internal;  // by "_ovpack/<name>"
  std::string stray;  // the first member outside both ("" = none)
  bool stray_dir = false;
};

Result<Members> SortMembers(MemoryTree tree, std::string* base) {
  auto first_segment = [](std::string_view p) { return std::string(p.substr(0, p.find('/'))); };
  if (!tree.files.empty()) {
    *base = first_segment(tree.files.begin()->first);
  } else if (!tree.dirs.empty()) {
    *base = first_segment(*tree.dirs.begin());
  } else {
    return Invalid("Empty ovpack file");
  }
  const std::string files_prefix = *base + "/" + std::string(kFilesDir);
  const std::string internal_prefix = *base + "/" + std::string(kInternalDir);
  // "<base>/files" itself -> "", "<base>/files/x" -> "x"; nullopt: not under it.
  auto under = [](std::string_view path, std::string_view prefix) -> std::optional<std::string> {
    if (path == prefix) return std::string();
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
        path[prefix.size()] == '/') {
      return std::string(path.substr(prefix.size() + 1));
    }
    return std::nullopt;
  };
  Members m;
  for (const std::string& dir : tree.dirs) {
    if (dir == *base) continue;
    if (auto rel = under(dir, files_prefix)) {
      m.dirs.insert(*rel);
    } else if (!under(dir, internal_prefix) && m.stray.empty()) {
      m.stray = dir;
      m.stray_dir = true;
    }
  }
  while (!tree.files.empty()) {
    auto node = tree.files.extract(tree.files.begin());
    const std::string& path = node.key();
    if (auto rel = under(path, files_prefix); rel && !rel->empty()) {
      m.files.emplace(std::move(*rel), std::move(node.mapped()));
    } else if (auto name = under(path, internal_prefix); name && !name->empty()) {
      m.internal.emplace(std::string(kInternalDir) + "/" + *name, std::move(node.mapped()));
    } else if (m.stray.empty()) {
      m.stray = path;
    }
  }
  return m;
}

Result<Json> ReadManifest(const Members& m, const std::string& base) {
  auto it = m.internal.find(kManifestPath);
  const std::string where = base + "/" + std::string(kManifestPath);
  if (it == m.internal.end()) {
    return Invalid("Missing ovpack manifest").WithDetail("manifest_path", where);
  }
  SKALD_ASSIGN_OR_RETURN(Json manifest,
                         ParseBounded(it->second, kMaxManifestBytes, "ovpack manifest"));
  if (manifest.is_discarded()) {
    return Invalid("Invalid JSON in ovpack manifest").WithDetail("manifest_path", where);
  }
  if (!manifest.is_object()) return Invalid("Invalid ovpack manifest");
  auto version = manifest.find("format_version");
  if (version == manifest.end() || version->is_null()) {
    return Invalid("Missing ovpack format_version").WithDetail("field", "format_version");
  }
  if (!version->is_number_integer() || version->get<int64_t>() < 1) {
    return Invalid(fmt::format("Invalid ovpack format_version (a {}, not a positive integer)",
                               version->type_name()))
        .WithDetail("field", "format_version");
  }
  if (version->get<int64_t>() != kOvpackFormatVersion) {
    return Invalid(fmt::format("Unsupported ovpack format_version {}; this server reads {}",
                               version->get<int64_t>(), kOvpackFormatVersion))
        .WithDetail("supported_format_version", std::to_string(kOvpackFormatVersion));
  }
  auto kind = manifest.find("kind");
  if (kind == manifest.end() || *kind != kKind) {
    return Invalid("Invalid ovpack manifest kind").WithDetail("expected", std::string(kKind));
  }
  return manifest;
}

Status ReadRoot(const Json& manifest, const std::string& base, PackRoot* root) {
  auto r = manifest.find("root");
  if (r == manifest.end() || !r->is_object()) return Invalid("Missing ovpack manifest root");
  auto name = r->find("name");
  if (name == r->end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return Invalid("Missing ovpack manifest root name").WithDetail("field", "root.name");
  }
  root->name = name->get<std::string>();
  if (!VikingUri::IsValidSegment(root->name)) {
    return Invalid("Invalid ovpack manifest root name").WithDetail("field", "root.name");
  }
  if (root->name != base) {
    return Invalid("ovpack manifest root name does not match zip root")
        .WithDetail("manifest_root_name", root->name)
        .WithDetail("zip_root", base);
  }
  auto uri = r->find("uri");
  if (uri == r->end() || !uri->is_string()) {
    return Invalid("Missing ovpack manifest root uri").WithDetail("field", "root.uri");
  }
  root->uri = uri->get<std::string>();
  while (root->uri.size() > std::string_view("viking://").size() && root->uri.back() == '/') {
    root->uri.pop_back();
  }
  if (root->uri.rfind("viking://", 0) != 0) {
    return Invalid("Invalid ovpack manifest root uri").WithDetail("root_uri", root->uri);
  }
  const std::string_view rest = std::string_view(root->uri).substr(9);
  if (!rest.empty() && rest.substr(rest.rfind('/') + 1) != root->name) {
    return Invalid("ovpack manifest root name does not match root uri")
        .WithDetail("manifest_root_name", root->name)
        .WithDetail("root_uri", root->uri);
  }
  root->scope = rest.empty() ? "root" : std::string(rest.substr(0, rest.find('/')));
  auto type = r->find("package_type");
  root->backup = type != r->end() && *type == "backup";
  if (auto scopes = manifest.find("scopes"); scopes != manifest.end()) {
    if (!scopes->is_array()) return Invalid("Invalid backup ovpack scopes");
    std::set<std::string> seen;
    for (const Json& s : *scopes) {
      if (!s.is_string() || !seen.insert(s.get<std::string>()).second) {
        return Invalid("Invalid backup ovpack scopes");
      }
      root->scopes.push_back(s.get<std::string>());
    }
  }
  return Status::Ok();
}

// The manifest's entries, by path; checks their shape.
Result<std::map<std::string, Json>> ReadEntries(const Json& manifest) {
  auto entries = manifest.find("entries");
  if (entries == manifest.end() || !entries->is_array()) {
    return Invalid("Invalid ovpack manifest: entries must be a list");
  }
  std::map<std::string, Json> by_path;
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json& e = (*entries)[i];
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string()) {
      return Invalid("Invalid ovpack manifest entry path").WithDetail("index", std::to_string(i));
    }
    const std::string path = e["path"].get<std::string>();
    if (!path.empty()) SKALD_RETURN_IF_ERROR(CheckPackRelPath(path));
    const Json kind = e.value("kind", Json());
    if (kind != "file" && kind != "directory") {
      return Invalid("Invalid ovpack manifest entry kind").WithDetail("path", path);
    }
    if (kind == "file" && path.empty()) {
      return Invalid("Invalid ovpack manifest entry kind").WithDetail("path", path);
    }
    if (kind == "file" &&
        (!IsCount(e.value("size", Json())) || !IsSha256Hex(e.value("sha256", Json())))) {
      return Invalid("Invalid ovpack manifest file entry: size and sha256 are required")
          .WithDetail("path", path);
    }
    if (!by_path.emplace(path, e).second) {
      return Invalid("Duplicate ovpack manifest entry").WithDetail("path", path);
    }
  }
  return by_path;
}

// Both ways: what the manifest lists is what the zip holds.
Status MatchEntries(const std::map<std::string, Json>& entries, const Members& m) {
  std::set<std::string> missing_files, unexpected_files, missing_dirs, unexpected_dirs;
  for (const auto& [path, e] : entries) {
    const bool is_file = e["kind"] == "file";
    if (is_file && !m.files.count(path)) missing_files.insert(path);
    if (!is_file && !m.dirs.count(path)) missing_dirs.insert(path);
  }
  for (const auto& [path, bytes] : m.files) {
    auto it = entries.find(path);
    if (it == entries.end() || it->second["kind"] != "file") unexpected_files.insert(path);
  }
  for (const std::string& path : m.dirs) {
    auto it = entries.find(path);
    if (it == entries.end() || it->second["kind"] != "directory") unexpected_dirs.insert(path);
  }
  if (missing_files.empty() && unexpected_files.empty() && missing_dirs.empty() &&
      unexpected_dirs.empty()) {
    return Status::Ok();
  }
  Status st = Invalid("ovpack entries do not match manifest");
  if (!missing_files.empty()) st.WithDetail("missing_files", Joined(missing_files));
  if (!unexpected_files.empty()) st.WithDetail("unexpected_files", Joined(unexpected_files));
  if (!missing_dirs.empty()) st.WithDetail("missing_directories", Joined(missing_dirs));
  if (!unexpected_dirs.empty()) st.WithDetail("unexpected_directories", Joined(unexpected_dirs));
  return st;
}

Status CheckContent(const Json& manifest, const std::map<std::string, Json>& entries,
                    const Members& m) {
  auto digest = manifest.find("content_sha256");
  if (digest == manifest.end() || digest->is_null()) {
    return Invalid("Missing ovpack manifest content_sha256");
  }
  if (!IsSha256Hex(*digest)) return Invalid("Invalid ovpack manifest content_sha256");
  Json list = Json::array();
  for (const auto& [path, e] : entries) {  // std::map: sorted by path
    if (e["kind"] != "file") continue;
    list.push_back({{"path", path},
                    {"sha256", AsciiLower(e["sha256"].get<std::string>())},
                    {"size", e["size"]}});
  }
  if (Sha256Hex(DumpJson(list)) != AsciiLower(digest->get<std::string>())) {
    return Invalid("ovpack manifest content_sha256 mismatch");
  }
  for (const auto& [path, e] : entries) {
    if (e["kind"] != "file") continue;
    const std::string& bytes = m.files.find(path)->second;
    if (e["size"].get<int64_t>() != static_cast<int64_t>(bytes.size())) {
      return Invalid("ovpack file size does not match manifest").WithDetail("path", path);
    }
    if (Sha256Hex(bytes) != AsciiLower(e["sha256"].get<std::string>())) {
      return Invalid("ovpack file sha256 does not match manifest").WithDetail("path", path);
    }
  }
  return Status::Ok();
}

// index.records and index.dense, and the records they describe.
Status ReadIndex(const Json& manifest, const std::map<std::string, Json>& entries, const Members& m,
                 Pack* pack) {
  auto index = manifest.find("index");
  if (index == manifest.end() || !index->is_object()) {
    return Invalid("Missing ovpack index").WithDetail("field", "index");
  }
  auto records = index->find("records");
  if (records == index->end() || !records->is_object()) {
    return Invalid("Missing ovpack index records").WithDetail("field", "index.records");
  }
  if (records->value("path", Json()) != kRecordsPath) {
    return Invalid("Invalid ovpack index records path");
  }
  if (!IsCount(records->value("count", Json()))) {
    return Invalid("Invalid ovpack index records count");
  }
  if (!IsSha256Hex(records->value("sha256", Json()))) {
    return Invalid("Invalid ovpack manifest index.records.sha256");
  }
  const Json* dense = nullptr;
  if (auto d = index->find("dense"); d != index->end() && !d->is_null()) {
    if (!d->is_object() || d->value("path", Json()) != kDensePath ||
        !IsCount(d->value("count", Json())) ||
        !d->value("dimensions", Json()).is_number_integer() ||
        (*d)["dimensions"].get<int64_t>() <= 0 || !IsSha256Hex(d->value("sha256", Json()))) {
      return Invalid("Invalid ovpack dense vector index").WithDetail("field", "index.dense");
    }
    if (d->value("dtype", Json()) != "float32" || d->value("byte_order", Json()) != "little") {
      return Invalid("Unsupported ovpack dense vector encoding");
    }
    dense = &*d;
  }
  // The internal files are exactly these.
  std::set<std::string> expected = {std::string(kManifestPath), std::string(kRecordsPath)};
  if (dense) expected.insert(std::string(kDensePath));
  std::set<std::string> missing, unexpected;
  for (const std::string& name : expected) {
    if (!m.internal.count(name)) missing.insert(name);
  }
  for (const auto& [name, bytes] : m.internal) {
    if (!expected.count(name)) unexpected.insert(name);
  }
  if (!missing.empty() || !unexpected.empty()) {
    Status st = Invalid("ovpack internal entries do not match manifest");
    if (!missing.empty()) st.WithDetail("missing_files", Joined(missing));
    if (!unexpected.empty()) st.WithDetail("unexpected_files", Joined(unexpected));
    return st;
  }
  const std::string& lines = m.internal.find(kRecordsPath)->second;
  if (Sha256Hex(lines) != AsciiLower((*records)["sha256"].get<std::string>())) {
    return Invalid("ovpack index records sha256 does not match manifest");
  }
  std::set<std::string> ids;
  struct Ref {
    int64_t offset, dims;
    size_t record;
  };
  std::vector<Ref> refs;
  for (std::string_view rest = lines; !rest.empty();) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (Trim(line).empty()) continue;
    SKALD_ASSIGN_OR_RETURN(Json r,
                           ParseBounded(line, kMaxRecordLineBytes, "an ovpack index record"));
    const std::string where = std::to_string(pack->records.size() + 1);
    if (!r.is_object()) return Invalid("Invalid ovpack index record").WithDetail("line", where);
    const Json id = r.value("record_id", Json());
    if (!id.is_string() || id.get_ref<const std::string&>().empty() ||
        !ids.insert(id.get<std::string>()).second) {
      return Invalid("Invalid ovpack index record id").WithDetail("line", where);
    }
    const Json path = r.value("path", Json());
    auto entry = path.is_string() ? entries.find(path.get<std::string>()) : entries.end();
    if (entry == entries.end()) {
      return Invalid("ovpack index record path is not in the manifest").WithDetail("line", where);
    }
    if (r.value("kind", Json()) != entry->second["kind"]) {
      return Invalid("ovpack index record kind does not match manifest").WithDetail("line", where);
    }
    const Json level = r.value("level", Json());
    if (!level.is_number_integer()) {
      return Invalid("Invalid ovpack index record level").WithDetail("line", where);
    }
    const Json text = r.value("text", Json());
    const Json scalars = r.value("scalars", Json());
    if ((!text.is_null() && !text.is_string()) || (!scalars.is_null() && !scalars.is_object())) {
      return Invalid("Invalid ovpack index record").WithDetail("line", where);
    }
    PackRecord rec;
    rec.path = path.get<std::string>();
    rec.is_dir = r["kind"] == "directory";
    rec.level = level.get<int>();
    if (text.is_string()) rec.text = text.get<std::string>();
    rec.scalars = scalars;
    if (auto v = r.find("vector"); v != r.end() && !v->is_null()) {
      const Json d = v->is_object() ? v->value("dense", Json()) : Json();
      if (!d.is_object() || !IsCount(d.value("offset", Json())) ||
          !d.value("dimensions", Json()).is_number_integer() ||
          d["dimensions"].get<int64_t>() <= 0) {
        return Invalid("Invalid ovpack index record vector").WithDetail("line", where);
      }
      refs.push_back(
          {d["offset"].get<int64_t>(), d["dimensions"].get<int64_t>(), pack->records.size()});
    }
    pack->records.push_back(std::move(rec));
  }
  if (static_cast<int64_t>(pack->records.size()) != (*records)["count"].get<int64_t>()) {
    return Invalid("ovpack index records count does not match manifest");
  }
  if (!dense) {
    if (!refs.empty())
      return Invalid("ovpack index records reference vectors, but dense data is missing");
    return Status::Ok();
  }
  if (refs.empty()) return Invalid("ovpack dense vector file has no record references");
  const int64_t dims = (*dense)["dimensions"].get<int64_t>();
  if (dims > kMaxDimensions) {
    return Invalid(
        fmt::format("ovpack dense vectors have more than {} dimensions", kMaxDimensions));
  }
  const std::string& floats = m.internal.find(kDensePath)->second;
  const int64_t stored = static_cast<int64_t>(floats.size() / 4);
  std::sort(refs.begin(), refs.end(),
            [](const Ref& a, const Ref& b) { return a.offset < b.offset; });
  int64_t next = 0;
  for (const Ref& ref : refs) {
    // (dims is bounded and next never passes `stored`: no overflow.)
    if (ref.offset != next || ref.dims != dims || dims > stored - next) {
      return Invalid("ovpack dense vector references are not contiguous");
    }
    next += ref.dims;
  }
  if (static_cast<int64_t>(refs.size()) != (*dense)["count"].get<int64_t>() ||
      floats.size() % 4 != 0 || stored != next) {
    return Invalid("ovpack dense vector file does not match manifest");
  }
  if (Sha256Hex(floats) != AsciiLower((*dense)["sha256"].get<std::string>())) {
    return Invalid("ovpack dense vector sha256 does not match manifest");
  }
  for (const Ref& ref : refs) {
    std::vector<float>& out = pack->records[ref.record].vector;
    out.resize(static_cast<size_t>(ref.dims));
    std::memcpy(out.data(), floats.data() + ref.offset * 4, out.size() * 4);
    // A NaN or infinity would poison every search it took part in.
    if (!std::all_of(out.begin(), out.end(), [](float x) { return std::isfinite(x); })) {
      return Invalid("ovpack dense vector holds a non-finite value")
          .WithDetail("path", pack->records[ref.record].path);
    }
  }
  PackEmbedding e;
  const Json meta = dense->value("embedding", Json::object());
  if (meta.is_object()) {
    e.provider =
        meta.value("provider", Json()).is_string() ? meta["provider"].get<std::string>() : "";
    e.model = meta.value("model", Json()).is_string() ? meta["model"].get<std::string>() : "";
  }
  e.dimensions = static_cast<int>(dims);
  pack->embedding = e;
  return Status::Ok();
}

}  // namespace

Status CheckPackRelPath(std::string_view rel) {
  auto unsafe = [&] {
    return Invalid("Unsafe ovpack relative path").WithDetail("path", std::string(rel));
  };
  if (rel.empty() || rel.front() == '/' || rel.find('\\') != std::string_view::npos) {
    return unsafe();
  }
  if (rel.size() >= 2 && rel[1] == ':' && std::isalpha(static_cast<unsigned char>(rel[0]))) {
    return unsafe();
  }
  for (std::string_view rest = rel;;) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part.empty() || part == "." || part == ".." || !VikingUri::IsValidSegment(part)) {
      return unsafe();
    }
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  return Status::Ok();
}

std::string OvpackContentSha256(const std::vector<PackEntry>& entries) {
  std::map<std::string_view, const PackEntry*> files;
  for (const PackEntry& e : entries) {
    if (!e.is_dir) files.emplace(e.path, &e);
  }
  Json list = Json::array();
  for (const auto& [path, e] : files) {
    list.push_back({{"path", path}, {"sha256", Sha256Hex(e->bytes)}, {"size", e->bytes.size()}});
  }
  return Sha256Hex(DumpJson(list));
}

Result<std::string> WriteOvpack(const Pack& pack) {
  const std::string& base = pack.root.name;
  SKALD_RETURN_IF_ERROR(CheckPackRelPath(base));
  if (base.find('/') != std::string::npos) return Invalid("Invalid ovpack root name");
  Json entries = Json::array({{{"path", ""}, {"kind", "directory"}}});
  for (const PackEntry& e : pack.entries) {
    SKALD_RETURN_IF_ERROR(CheckPackRelPath(e.path));
    entries.push_back(EntryJson(e));
  }
  // Records, and their vectors laid end to end.
  std::string lines, floats;
  int dims = 0;
  size_t vectors = 0;
  for (size_t i = 0; i < pack.records.size(); ++i) {
    const PackRecord& r = pack.records[i];
    Json j = {{"record_id", fmt::format("r{:06d}", i + 1)},
              {"path", r.path},
              {"kind", r.is_dir ? "directory" : "file"},
              {"level", r.level}};
    if (!r.text.empty()) j["text"] = r.text;
    if (r.scalars.is_object() && !r.scalars.empty()) j["scalars"] = r.scalars;
    if (!r.vector.empty()) {
      if (dims != 0 && static_cast<int>(r.vector.size()) != dims) {
        return Invalid("Cannot export ovpack vectors with mixed dimensions");
      }
      dims = static_cast<int>(r.vector.size());
      j["vector"] = {{"dense", {{"offset", floats.size() / 4}, {"dimensions", dims}}}};
      floats.append(reinterpret_cast<const char*>(r.vector.data()), r.vector.size() * 4);
      ++vectors;
    }
    lines += DumpJson(j);
    lines += '\n';
  }
  Json root = {{"name", base}, {"uri", pack.root.uri}, {"scope", pack.root.scope}};
  Json manifest = {{"kind", kKind},
                   {"format_version", kOvpackFormatVersion},
                   {"entries", std::move(entries)},
                   {"content_sha256", OvpackContentSha256(pack.entries)}};
  if (pack.root.backup) {
    root["package_type"] = "backup";
    manifest["scopes"] = pack.root.scopes;
  }
  manifest["root"] = std::move(root);
  manifest["index"]["records"] = {
      {"path", kRecordsPath}, {"count", pack.records.size()}, {"sha256", Sha256Hex(lines)}};
  if (vectors > 0) {
    Json embedding = {{"dimensions", dims}};
    if (pack.embedding) {
      if (!pack.embedding->provider.empty()) embedding["provider"] = pack.embedding->provider;
      if (!pack.embedding->model.empty()) embedding["model"] = pack.embedding->model;
    }
    manifest["index"]["dense"] = {{"path", kDensePath},    {"count", vectors},
                                  {"dtype", "float32"},    {"byte_order", "little"},
                                  {"dimensions", dims},    {"sha256", Sha256Hex(floats)},
                                  {"embedding", embedding}};
  }

  ZipOut zip;
  SKALD_RETURN_IF_ERROR(zip.Open());
  const std::string files = base + "/" + std::string(kFilesDir);
  SKALD_RETURN_IF_ERROR(zip.Dir(base));
  SKALD_RETURN_IF_ERROR(zip.Dir(files));
  for (const PackEntry& e : pack.entries) {
    const std::string name = files + "/" + e.path;
    SKALD_RETURN_IF_ERROR(e.is_dir ? zip.Dir(name) : zip.File(name, e.bytes));
  }
  const std::string internal = base + "/" + std::string(kInternalDir);
  SKALD_RETURN_IF_ERROR(zip.Dir(internal));
  SKALD_RETURN_IF_ERROR(zip.File(base + "/" + std::string(kRecordsPath), lines));
  if (vectors > 0) SKALD_RETURN_IF_ERROR(zip.File(base + "/" + std::string(kDensePath), floats));
  SKALD_RETURN_IF_ERROR(zip.File(base + "/" + std::string(kManifestPath), DumpJson(manifest, 2)));
  return zip.Finish();
}

Result<Pack> ReadOvpack(const std::string& path, const ArchiveLimits& limits) {
  Result<MemoryTree> tree = ReadArchive(path, limits);
  if (!tree.ok()) {
    return Status(tree.status().code(), fmt::format("ovpack: {}", tree.status().message()));
  }
  std::string base;
  SKALD_ASSIGN_OR_RETURN(Members members, SortMembers(std::move(tree).value(), &base));
  // A package without a manifest (an old layout) is named as such first.
  SKALD_ASSIGN_OR_RETURN(Json manifest, ReadManifest(members, base));
  if (!members.stray.empty()) {
    return Invalid(fmt::format("Unexpected ovpack {} outside the files directory: {}",
                               members.stray_dir ? "directory" : "member", members.stray))
        .WithDetail("path", members.stray);
  }
  Pack pack;
  SKALD_RETURN_IF_ERROR(ReadRoot(manifest, base, &pack.root));
  SKALD_ASSIGN_OR_RETURN(auto entries, ReadEntries(manifest));
  if (!entries.count("") || entries.at("")["kind"] != "directory") {
    return Invalid("ovpack entries do not match manifest")
        .WithDetail("missing_directories", "(root)");
  }
  SKALD_RETURN_IF_ERROR(MatchEntries(entries, members));
  SKALD_RETURN_IF_ERROR(CheckContent(manifest, entries, members));
  SKALD_RETURN_IF_ERROR(ReadIndex(manifest, entries, members, &pack));
  // Entries in tree order: a path sorts after its parent's.
  for (const auto& [rel, e] : entries) {
    if (rel.empty()) continue;
    PackEntry out;
    out.path = rel;
    out.is_dir = e["kind"] == "directory";
    if (!out.is_dir) out.bytes = std::move(members.files.find(rel)->second);
    pack.entries.push_back(std::move(out));
  }
  return pack;
}

}  // namespace skald
