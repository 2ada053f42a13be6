#include "cli/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "common/strings.h"

namespace skald::cli {
namespace {

// Non-throwing field access: a missing or mistyped field gives the fallback.
std::string Str(const Json& j, std::string_view key, std::string fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

int64_t Int(const Json& j, std::string_view key, int64_t fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_unsigned()) return static_cast<int64_t>(it->get<uint64_t>());
  if (it->is_number_float()) return static_cast<int64_t>(it->get<double>());
  return fallback;
}

double Number(const Json& j, std::string_view key, double fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<double>();
}

bool Bool(const Json& j, std::string_view key, bool fallback = false) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_boolean()) return fallback;
  return it->get<bool>();
}

const Json& Array(const Json& j, std::string_view key) {
  static const Json kEmpty = Json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return kEmpty;
  return *it;
}

// The strings of the array `key`, joined with ","; "-" when there are none.
std::string StrList(const Json& j, std::string_view key) {
  std::string out;
  for (const Json& item : Array(j, key)) {
    if (!item.is_string()) continue;
    if (!out.empty()) out += ',';
    out += item.get<std::string>();
  }
  return out.empty() ? "-" : out;
}

// Placeholders the server puts where no L0 exists yet carry no information.
bool IsPlaceholderAbstract(std::string_view text) {
  return text.find("[Directory abstract is not ready]") != std::string_view::npos;
}

std::string DisplayUri(const Json& entry) {
  std::string uri = Str(entry, "uri");
  if (Bool(entry, "isDir") && (uri.empty() || uri.back() != '/')) uri.push_back('/');
  return uri;
}

std::string SizeCell(const Json& entry) {
  if (Bool(entry, "isDir")) return "-";
  return FormatSize(static_cast<uint64_t>(std::max<int64_t>(0, Int(entry, "size"))));
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

void Table::Print(std::ostream& out) const {
  bool has_header = std::any_of(columns_.begin(), columns_.end(),
                                [](const Column& c) { return !c.title.empty(); });
  std::vector<size_t> widths(columns_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < columns_.size() && i < cells.size(); ++i) {
      widths[i] = std::max(widths[i], Utf8Length(cells[i]));
    }
  };
  std::vector<std::string> header;
  for (const Column& c : columns_) header.push_back(c.title);
  if (has_header) measure(header);
  for (const auto& row : rows_) measure(row);

  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const std::string& cell = i < cells.size() ? cells[i] : std::string();
      size_t pad = widths[i] - std::min(widths[i], Utf8Length(cell));
      bool last = i + 1 == columns_.size();
      if (i > 0) line += "  ";
      if (columns_[i].align == Align::kRight) {
        line.append(pad, ' ');
        line += cell;
      } else {
        line += cell;
        if (!last) line.append(pad, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  if (has_header) print_row(header);
  for (const auto& row : rows_) print_row(row);
}

std::string FormatSize(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string FormatTime(std::string_view iso) {
  // YYYY-MM-DDTHH:MM:SS[.fff][Z]
  if (iso.size() >= 19 && iso[4] == '-' && iso[7] == '-' && iso[10] == 'T' && iso[13] == ':' &&
      iso[16] == ':') {
    std::string out(iso.substr(0, 19));
    out[10] = ' ';
    return out;
  }
  return std::string(iso);
}

std::string OneLine(std::string_view text, size_t max_chars) {
  std::string_view first = text.substr(0, text.find('\n'));
  first = Trim(first);
  if (Utf8Length(first) <= max_chars) return std::string(first);
  std::string out(Utf8Prefix(first, max_chars > 3 ? max_chars - 3 : 0));
  out += "...";
  return out;
}

void RenderLs(const Json& result, std::ostream& out) {
  if (!result.is_array()) {
    out << DumpJson(result, 2) << '\n';
    return;
  }
  if (!result.empty() && result.front().is_string()) {  // --simple
    for (const Json& uri : result) {
      if (uri.is_string()) out << uri.get<std::string>() << '\n';
    }
    return;
  }
  bool any_abstract = false;
  for (const Json& e : result) {
    std::string abstract = Str(e, "abstract");
    if (!abstract.empty() && !IsPlaceholderAbstract(abstract)) any_abstract = true;
  }
  std::vector<Table::Column> columns{{"SIZE", Table::Align::kRight},
                                     {"MODIFIED", Table::Align::kLeft},
                                     {"URI", Table::Align::kLeft}};
  if (any_abstract) columns.push_back({"ABSTRACT", Table::Align::kLeft});
  Table table(std::move(columns));
  for (const Json& e : result) {
    std::vector<std::string> row{SizeCell(e), FormatTime(Str(e, "modTime")), DisplayUri(e)};
    if (any_abstract) {
      std::string abstract = Str(e, "abstract");
      row.push_back(IsPlaceholderAbstract(abstract) ? "" : OneLine(abstract, 60));
    }
    table.AddRow(std::move(row));
  }
  if (table.size() == 0) {
    out << "(empty)\n";
    return;
  }
  table.Print(out);
}

void RenderTree(const Json& result, std::string_view root_uri, std::ostream& out) {
  if (!result.is_array()) {
    out << DumpJson(result, 2) << '\n';
    return;
  }
  std::string root(root_uri);
  if (root.empty() || root.back() != '/') root.push_back('/');
  out << root << '\n';

  // The Db returns the tree depth-first, parents first; depth comes from rel_path.
  std::vector<int> depth;
  std::vector<std::string> name;
  for (const Json& e : result) {
    std::string rel = Str(e, "rel_path");
    if (rel.empty()) {
      std::string uri = Str(e, "uri");
      rel = uri.rfind(root, 0) == 0 ? uri.substr(root.size()) : uri;
    }
    depth.push_back(static_cast<int>(std::count(rel.begin(), rel.end(), '/')));
    size_t slash = rel.rfind('/');
    name.push_back(slash == std::string::npos ? rel : rel.substr(slash + 1));
  }
  Table table({{"", Table::Align::kLeft}, {"", Table::Align::kRight}, {"", Table::Align::kLeft}});
  std::vector<bool> ancestor_is_last;  // per depth: does that ancestor's branch end
  for (size_t i = 0; i < result.size(); ++i) {
    int d = depth[i];
    bool last = true;
    for (size_t j = i + 1; j < result.size(); ++j) {
      if (depth[j] < d) break;
      if (depth[j] == d) {
        last = false;
        break;
      }
    }
    ancestor_is_last.resize(static_cast<size_t>(d) + 1, true);
    std::string prefix;
    for (int k = 0; k < d; ++k)
      prefix += ancestor_is_last[static_cast<size_t>(k)] ? "    " : "│   ";
    prefix += last ? "└── " : "├── ";
    ancestor_is_last[static_cast<size_t>(d)] = last;
    const Json& e = result[i];
    std::string label = prefix + name[i] + (Bool(e, "isDir") ? "/" : "");
    table.AddRow({label, Bool(e, "isDir") ? "" : SizeCell(e), FormatTime(Str(e, "modTime"))});
  }
  table.Print(out);
}

void RenderStat(const Json& result, std::string_view uri, std::ostream& out) {
  Table table({{"", Table::Align::kLeft}, {"", Table::Align::kLeft}});
  table.AddRow({"uri", Str(result, "uri", std::string(uri))});
  table.AddRow({"name", Str(result, "name")});
  bool is_dir = Bool(result, "isDir");
  table.AddRow({"type", is_dir ? "directory" : "file"});
  int64_t size = Int(result, "size");
  table.AddRow({"size", is_dir ? "-" : fmt::format("{} ({} bytes)", FormatSize(size), size)});
  table.AddRow({"mode", fmt::format("{:04o}", Int(result, "mode") & 07777)});
  table.AddRow({"modified", FormatTime(Str(result, "modTime"))});
  table.AddRow({"locked", Bool(result, "isLocked") ? "yes" : "no"});
  if (result.is_object()) {
    for (const auto& [key, value] : result.items()) {
      if (key == "uri" || key == "name" || key == "isDir" || key == "size" || key == "mode" ||
          key == "modTime" || key == "isLocked") {
        continue;
      }
      table.AddRow({key, value.is_string() ? value.get<std::string>() : DumpJson(value)});
    }
  }
  table.Print(out);
}

void RenderText(const Json& result, std::ostream& out) {
  if (result.is_string()) {
    out << result.get_ref<const std::string&>();
  } else if (!result.is_null()) {
    out << DumpJson(result, 2) << '\n';
  }
}

void RenderMkdir(const Json& result, std::ostream& out) {
  out << "created " << Str(result, "uri") << '\n';
}

void RenderRm(const Json& result, std::ostream& out) {
  int64_t count = Int(result, "estimated_deleted_count", -1);
  if (count == 0) {
    out << "nothing to remove at " << Str(result, "uri") << '\n';
  } else if (count > 0) {
    out << "removed " << Str(result, "uri") << " (" << Plural(count, "node", "nodes") << ")\n";
  } else {
    out << "removed " << Str(result, "uri") << '\n';
  }
}

void RenderMv(const Json& result, std::ostream& out) {
  out << "moved " << Str(result, "from") << " -> " << Str(result, "to") << '\n';
}

void RenderWrite(const Json& result, std::ostream& out) {
  out << "wrote " << Plural(Int(result, "written_bytes"), "byte", "bytes") << " to "
      << Str(result, "uri") << " (" << Str(result, "mode", "replace")
      << (Bool(result, "content_updated", true) ? "" : ", content unchanged") << ")\n";
}

void RenderGet(const Json& result, std::ostream& out) {
  out << "saved " << Str(result, "uri") << " to " << Str(result, "path") << " ("
      << Plural(Int(result, "bytes"), "byte", "bytes") << ")\n";
}

void RenderGlob(const Json& result, std::ostream& out) {
  const Json& matches = Array(result, "matches");
  for (const Json& m : matches) {
    if (m.is_string()) out << m.get<std::string>() << '\n';
  }
  int64_t count = Int(result, "count", static_cast<int64_t>(matches.size()));
  out << "(" << Plural(count, "match", "matches") << ")\n";
}

void RenderGrep(const Json& result, std::ostream& out) {
  const Json& matches = Array(result, "matches");
  // A TAGS column when the matches carry tags (a tags filter or include_tags).
  const bool with_tags = std::any_of(matches.begin(), matches.end(), [](const Json& m) {
    return m.is_object() && m.contains("tags") && m["tags"].is_array();
  });
  std::vector<Table::Column> columns = {{"URI", Table::Align::kLeft},
                                        {"LINE", Table::Align::kRight},
                                        {"CONTENT", Table::Align::kLeft}};
  if (with_tags) columns.push_back({"TAGS", Table::Align::kLeft});
  Table table(std::move(columns));
  for (const Json& m : matches) {
    std::vector<std::string> row = {Str(m, "uri"), std::to_string(Int(m, "line")),
                                    Str(m, "content")};
    if (with_tags) row.push_back(StrList(m, "tags"));
    table.AddRow(std::move(row));
  }
  if (table.size() > 0) table.Print(out);
  auto shown = static_cast<int64_t>(matches.size());
  int64_t total = Int(result, "match_count", shown);
  std::string summary = fmt::format("({} in {} scanned", Plural(total, "match", "matches"),
                                    Plural(Int(result, "files_scanned"), "file", "files"));
  if (total > shown) summary += fmt::format("; showing {}, raise -n to see more", shown);
  out << summary << ")\n";
}

void RenderFsck(const Json& result, std::ostream& out) {
  const Json& issues = Array(result, "issues");
  int64_t checked = Int(result, "nodes_checked");
  if (issues.empty()) {
    out << "fsck: " << Plural(checked, "node", "nodes") << " checked, workspace is clean\n";
    return;
  }
  Table table({{"KIND", Table::Align::kLeft},
               {"ACCOUNT", Table::Align::kLeft},
               {"URI", Table::Align::kLeft},
               {"REPAIRED", Table::Align::kLeft},
               {"DETAIL", Table::Align::kLeft}});
  int64_t repaired = 0;
  for (const Json& issue : issues) {
    bool fixed = Bool(issue, "repaired");
    repaired += fixed ? 1 : 0;
    table.AddRow({Str(issue, "kind"), Str(issue, "account"), Str(issue, "uri"),
                  fixed ? "yes" : "no", Str(issue, "detail")});
  }
  table.Print(out);
  out << "fsck: " << Plural(checked, "node", "nodes") << " checked, "
      << Plural(static_cast<int64_t>(issues.size()), "issue", "issues") << ", " << repaired
      << " repaired";
  if (repaired < static_cast<int64_t>(issues.size())) out << " (run `skald fsck --repair` to fix)";
  out << '\n';
}

void RenderReindex(const Json& result, std::ostream& out) {
  out << "reindex " << Str(result, "uri") << " (" << Str(result, "mode")
      << "): " << Str(result, "status") << '\n';
  const std::string task_id = Str(result, "task_id");
  if (!task_id.empty()) {
    out << "  task " << task_id << "; `skald task " << task_id << "` shows its progress\n";
    return;
  }
  auto count = [&](const char* key) {
    auto it = result.is_object() ? result.find(key) : result.end();
    return it != result.end() && it->is_number() ? it->get<int64_t>() : int64_t{0};
  };
  out << "  scanned " << count("scanned_records") << ", rebuilt " << count("rebuilt_records")
      << ", deleted " << count("deleted_records") << ", would delete "
      << count("would_delete_records") << ", unsupported " << count("unsupported_records")
      << ", failed " << count("failed_records") << '\n';
  for (const Json& warning : Array(result, "warnings")) {
    out << "  warning: " << (warning.is_string() ? warning.get<std::string>() : DumpJson(warning))
        << '\n';
  }
}

void RenderAddResource(const Json& result, std::ostream& out) {
  out << "added " << Str(result, "root_uri");
  const std::string task_id = Str(result, "task_id");
  const bool waited = result.is_object() && result.contains("queue_status");
  if (!task_id.empty()) {
    out << " (" << (waited ? "still running: " : "") << "task " << task_id << "; `skald task "
        << task_id << "` shows its progress)";
  } else if (waited) {
    out << " (completed)";
  }
  out << '\n';
  for (const Json& error : Array(result, "errors")) {
    out << "  error: " << (error.is_string() ? error.get<std::string>() : DumpJson(error)) << '\n';
  }
  for (const Json& warning : Array(result, "warnings")) {
    out << "  warning: " << (warning.is_string() ? warning.get<std::string>() : DumpJson(warning))
        << '\n';
  }
}

namespace {

// THINKING's trajectory as an indented tree: each visited directory under
// its parent, with the order it was expanded in and the score it was
// expanded with ("#2 0.412").
void RenderTrajectory(const Json& trace, std::ostream& out) {
  struct Step {
    std::string uri;
    double score = 0;
    size_t order = 0;
  };
  std::vector<Step> steps;
  for (const Json& step : Array(trace, "trajectory")) {
    steps.push_back({Str(step, "uri"), Number(step, "score"), steps.size() + 1});
  }
  if (steps.empty()) return;
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.uri < b.uri; });
  auto depth = [](const std::string& uri) {
    return static_cast<size_t>(std::count(uri.begin(), uri.end(), '/'));
  };
  size_t top = depth(steps.front().uri);
  for (const Step& s : steps) top = std::min(top, depth(s.uri));
  out << "trajectory (expansion order, score):\n";
  for (const Step& s : steps) {
    const size_t indent = depth(s.uri) - top;
    const std::string name = indent == 0 ? s.uri : s.uri.substr(s.uri.rfind('/') + 1) + "/";
    out << std::string(2 + 2 * indent, ' ') << name << fmt::format("  #{} {:.3f}", s.order, s.score)
        << '\n';
  }
}

}  // namespace

void RenderFind(const Json& result, std::ostream& out) {
  int64_t shown = 0;
  for (const char* group : {"memories", "resources", "skills"}) {
    for (const Json& hit : Array(result, group)) {
      out << fmt::format("{:.3f}  {}", Number(hit, "score"), Str(hit, "uri")) << '\n';
      const std::string abstract = OneLine(Str(hit, "abstract"), 100);
      if (!abstract.empty()) out << "       " << abstract << '\n';
      ++shown;
    }
  }
  if (shown == 0) out << "no matches\n";
  auto trace = result.is_object() ? result.find("provenance") : result.end();
  if (result.is_object() && trace != result.end() && trace->is_object()) {
    out << fmt::format("trace: mode {}, {} round(s), {} kept, {} dropped, {}reranked, {:.1f} ms",
                       Str(*trace, "mode"), Int(*trace, "rounds"), Int(*trace, "candidates_kept"),
                       Int(*trace, "candidates_dropped"), Bool(*trace, "reranked") ? "" : "not ",
                       Number(*trace, "latency_ms"));
    const std::string stop = Str(*trace, "stop_reason");
    if (!stop.empty()) out << ", stopped: " << stop;
    out << '\n';
    const std::string warning = Str(*trace, "rerank_warning");
    if (!warning.empty()) out << "trace: " << warning << '\n';
    RenderTrajectory(*trace, out);
  }
}

void RenderTasks(const Json& result, std::ostream& out) {
  if (!result.is_array()) {
    out << DumpJson(result, 2) << '\n';
    return;
  }
  if (result.empty()) {
    out << "(no tasks)\n";
    return;
  }
  Table table({{"TASK_ID", Table::Align::kLeft},
               {"TYPE", Table::Align::kLeft},
               {"STATUS", Table::Align::kLeft},
               {"UPDATED", Table::Align::kLeft},
               {"STAGE", Table::Align::kLeft},
               {"RESOURCE", Table::Align::kLeft}});
  for (const Json& task : result) {
    table.AddRow({Str(task, "task_id"), Str(task, "task_type"), Str(task, "status"),
                  FormatTime(Str(task, "updated_at_iso")), OneLine(Str(task, "stage"), 40),
                  Str(task, "resource_id")});
  }
  table.Print(out);
}

void RenderTask(const Json& result, std::ostream& out) {
  Table table({{"", Table::Align::kLeft}, {"", Table::Align::kLeft}});
  table.AddRow({"task_id", Str(result, "task_id")});
  table.AddRow({"type", Str(result, "task_type")});
  table.AddRow({"status", Str(result, "status")});
  table.AddRow({"stage", Str(result, "stage")});
  table.AddRow({"resource", Str(result, "resource_id")});
  table.AddRow({"created", FormatTime(Str(result, "created_at_iso"))});
  table.AddRow({"updated", FormatTime(Str(result, "updated_at_iso"))});
  const std::string error = Str(result, "error");
  if (!error.empty()) table.AddRow({"error", error});
  if (result.is_object()) {
    if (auto it = result.find("result"); it != result.end() && !it->is_null()) {
      table.AddRow({"result", DumpJson(*it)});
    }
  }
  table.Print(out);
}

}  // namespace skald::cli
