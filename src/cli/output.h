#pragma once

// Human-readable rendering of command results. Every renderer takes the
// `result` JSON of the wire format (the same value `--json` prints), so the
// output does not depend on whether the command ran embedded or remote.
// Renderers never throw: missing or mistyped fields render as blanks.
//
// Thread safety: pure functions writing to the given stream.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"

namespace skald::cli {

// Column-aligned text table. Columns are separated by two spaces; the last
// column is not padded. Widths count UTF-8 code points.
class Table {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string title;  // "" for every column = no header line
    Align align = Align::kLeft;
  };

  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // REQUIRES: cells.size() == number of columns.
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  size_t size() const { return rows_.size(); }
  void Print(std::ostream& out) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// "0 B", "999 B", "1.5 KiB", "12.0 MiB".
std::string FormatSize(uint64_t bytes);
// "2026-11-30T03:32:01.123Z" -> "2026-11-30 03:32:01" (UTC); other text unchanged.
std::string FormatTime(std::string_view iso);
// First line of `text` cut to `max_chars` code points ("..." when cut).
std::string OneLine(std::string_view text, size_t max_chars);

// ls: a table SIZE MODIFIED URI ABSTRACT (directories end in "/"), or one
// URI per line for a `simple` (string list) result.
void RenderLs(const Json& result, std::ostream& out);
// tree: `root_uri` then the entries drawn as a tree with sizes.
void RenderTree(const Json& result, std::string_view root_uri, std::ostream& out);
// stat: one "key  value" line per field.
void RenderStat(const Json& result, std::string_view uri, std::ostream& out);
// read/abstract/overview: the string exactly as returned.
void RenderText(const Json& result, std::ostream& out);
void RenderMkdir(const Json& result, std::ostream& out);
void RenderRm(const Json& result, std::ostream& out);
void RenderMv(const Json& result, std::ostream& out);
void RenderWrite(const Json& result, std::ostream& out);
// get: {uri, path, bytes} as built by the CLI.
void RenderGet(const Json& result, std::ostream& out);
void RenderGlob(const Json& result, std::ostream& out);
void RenderGrep(const Json& result, std::ostream& out);
void RenderFsck(const Json& result, std::ostream& out);
// add-resource: "added <root_uri>" with the task id (not waited) or the
// final task status (waited), then any errors and warnings.
void RenderAddResource(const Json& result, std::ostream& out);
// reindex: "reindex <uri> (<mode>): <status>" with the record counts, the
// task id when it has not completed, then any warnings.
void RenderReindex(const Json& result, std::ostream& out);
// find/search: one "score  uri" line per hit (memories, resources, skills),
// each followed by an indented one-line abstract when there is one; then the
// trace when the result carries `provenance`. "no matches" when empty.
void RenderFind(const Json& result, std::ostream& out);
// tasks: a table TASK_ID TYPE STATUS UPDATED STAGE RESOURCE, "(no tasks)" when empty.
void RenderTasks(const Json& result, std::ostream& out);
// task: one "key  value" line per field of a task dict.
void RenderTask(const Json& result, std::ostream& out);

}  // namespace skald::cli
