#include "ingest/source_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "common/file_util.h"
#include "common/hash.h"
#include "common/strings.h"
#include "common/two_threads.h"
#include "ingest/parser.h"
#include "ingest/text_encoding.h"
#include "uri/glob_pattern.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

// What is read of a picture, recording or video too large to store: its
// header, which the description needs (dimensions).
constexpr size_t kMediaHeadBytes = 256 * 1024;

// Build output, dependencies and tool state: never worth indexing
// (OpenViking's IGNORE_DIRS has the same spirit).
const std::set<std::string, std::less<>>& BuiltInIgnoredDirs() {
  static const std::set<std::string, std::less<>> dirs = {
      "node_modules", "__pycache__", "venv", "env",    "dist",          "build",    "target",
      "bin",          "obj",         "out",  "vendor", "site-packages", "coverage", "htmlcov"};
  return dirs;
}

bool IsMarkdownExtension(std::string_view ext) {
  return ext == ".md" || ext == ".markdown" || ext == ".mdown" || ext == ".mkd" || ext == ".txt" ||
         ext == ".text";
}

// Formats Skald has no parser for: named in the warning instead of being
// mistaken for text. (Images, audio and video have the media parser.)
bool IsUnsupportedFormat(std::string_view ext) {
  static const std::set<std::string, std::less<>> exts = {
      ".doc", ".xls", ".ppt", ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar"};
  return exts.count(ext) > 0;
}

std::string LowerExtension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// Errors name no path: the caller names the file by its source-relative
// name, and the host path (an upload's lives in the workspace) stays in the
// server log.
// At most `limit` bytes (0 = all).
Result<std::string> ReadLocalFile(const fs::path& path, size_t limit = 0) {
  // No access-time update (relatime writes one on the first read after a
  // change: an inode dirtied and journaled per file of a fresh source).
  // O_NOATIME needs the file's owner; anyone else reads it plainly.
  auto open_file = [&](int flags) {
    int fd = -1;
    do {
      fd = ::open(path.c_str(), flags);
    } while (fd < 0 && errno == EINTR);
    return fd;
  };
  FdCloser file(open_file(O_RDONLY | O_CLOEXEC | O_NOATIME));
  if (file.fd < 0 && errno == EPERM) file.Reset(open_file(O_RDONLY | O_CLOEXEC));
  if (file.fd < 0) {
    spdlog::warn("import: cannot open {}", path.string());
    return Status::IOError("cannot read the file");
  }
  struct stat st {};
  const size_t size_hint = ::fstat(file.fd, &st) == 0 && st.st_size > 0 ? st.st_size : 0;
  std::string bytes;
  // The size read first (one byte more, to see the end at once); a file
  // that grows meanwhile is read to its end.
  bytes.resize(limit > 0 ? limit : (size_hint > 0 ? size_hint + 1 : 4096));
  size_t got = 0;
  while (true) {
    if (got == bytes.size()) {
      if (limit > 0) break;
      bytes.resize(bytes.size() * 2);
    }
    const ssize_t n = ::read(file.fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      spdlog::warn("import: read error in {}", path.string());
      return Status::IOError("error reading the file");
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  // Held for the whole import: no spare capacity from a guessed size.
  if (bytes.capacity() > got + got / 8 + 64) bytes.shrink_to_fit();
  return bytes;
}

// The bytes of a file held in memory, moved out; its first `limit` bytes
// only when limit > 0 (as ReadLocalFile).
std::string TakeHeld(std::string* held, size_t limit) {
  if (limit > 0 && held->size() > limit) return held->substr(0, limit);
  return std::move(*held);
}

// What one source file adds to the plan. Made on any thread (the files of
// a directory are read, parsed and split two at a time), then committed to
// the plan in source order.
struct FilePart {
  std::vector<std::string> warnings;
  std::vector<std::string> dirs;    // relative directories, in the order met
  std::vector<ImportFile> outputs;  // paths before de-duplication
  uint64_t text_bytes = 0;          // counted against max_total_bytes
  uint64_t source_bytes = 0;
  std::optional<std::string> root_name;  // a single-file import's root
  // A picture, recording or video kept whole: its bytes (in `outputs`),
  // and what replaces it past the import's media budget (Commit): its
  // description as `{stem}_{ext}.md`.
  uint64_t media_bytes = 0;
  std::optional<ImportFile> media_description;
  std::string media_source;
};

// A file found by the walk, or a warning the walk made (when `warning` is set).
struct WalkItem {
  std::string warning;
  fs::path path;
  std::string rel_source;
  std::string rel_dir;
  std::string* bytes = nullptr;  // a file held in memory (MemoryTree): taken, not read
};

// Files read and split side by side, then committed; a bound on what the
// plan holds beyond max_total_bytes before the check at commit stops it.
constexpr size_t kFilesAtOnce = 32;

class Planner {
 public:
  Planner(const ImportOptions& options, ImportPlan* plan) : options_(options), plan_(plan) {}

  Status Compile() {
    for (const std::string& p : options_.include) {
      SKALD_ASSIGN_OR_RETURN(GlobPattern g, GlobPattern::Compile(p));
      include_.push_back(std::move(g));
    }
    for (const std::string& p : options_.exclude) {
      SKALD_ASSIGN_OR_RETURN(GlobPattern g, GlobPattern::Compile(p));
      exclude_.push_back(std::move(g));
    }
    return Status::Ok();
  }

  // Whether a file of a directory import passes `include` and `exclude`.
  bool Wanted(std::string_view rel_source) const {
    if (!include_.empty() &&
        std::none_of(include_.begin(), include_.end(),
                     [&](const GlobPattern& g) { return g.Matches(rel_source); })) {
      return false;
    }
    return std::none_of(exclude_.begin(), exclude_.end(),
                        [&](const GlobPattern& g) { return g.Matches(rel_source); });
  }

  // The file's content at rel_dir, into `out`. `single`: the whole import
  // is this one file, so a split document fills the root directory itself.
  // Documents with a parser (ingest/parser.h) become Markdown and take the
  // Markdown path; text that is not UTF-8 is transcoded or repaired.
  // `held`: the file's bytes in memory (moved from), instead of `path`.
  // Safe to call from several threads at once (on different files).
  Status ReadContent(const fs::path& path, std::string* held, const std::string& name,
                     std::string_view rel_source, std::string_view rel_dir, bool single,
                     FilePart* out) const {
    // A file that cannot be read (permissions, removed during the walk) is
    // named in a warning; the rest of the import goes on.
    std::error_code ec;
    uint64_t size = held != nullptr ? held->size() : fs::file_size(path, ec);
    if (ec) {
      out->warnings.push_back(fmt::format("{}: skipped ({})", rel_source, ec.message()));
      return Status::Ok();
    }
    if (size == 0) {
      out->warnings.push_back(fmt::format("{}: skipped (empty file)", rel_source));
      return Status::Ok();
    }
    std::string ext = LowerExtension(fs::path(name));
    if (IsUnsupportedFormat(ext)) {
      out->warnings.push_back(
          fmt::format("{}: skipped (no parser for {} files yet)", rel_source, ext));
      return Status::Ok();
    }
    const Parser* parser = IsMarkdownExtension(ext) ? nullptr : parsers_.Find(FileProbe{ext, {}});
    size_t head_only = parser != nullptr ? parser->HeadBytes() : 0;
    // A picture, recording or video over the size limit is not stored: its
    // description is, as a Markdown file `{stem}_{ext}.md`, from its header.
    const bool describe_only =
        parser != nullptr && parser->KeepsOriginal() && size > options_.max_file_bytes;
    if (describe_only) head_only = kMediaHeadBytes;
    if (head_only == 0 && size > options_.max_file_bytes) {
      out->warnings.push_back(fmt::format("{}: skipped ({} bytes, over the {} byte limit)",
                                          rel_source, size, options_.max_file_bytes));
      return Status::Ok();
    }
    Result<std::string> read =
        held != nullptr ? TakeHeld(held, head_only) : ReadLocalFile(path, head_only);
    if (!read.ok()) {
      out->warnings.push_back(fmt::format("{}: skipped ({})", rel_source, read.status().message()));
      return Status::Ok();
    }
    std::string bytes = std::move(*read);
    bool text = LooksLikeText(bytes);
    if (parser == nullptr && !IsMarkdownExtension(ext) && (ext.empty() || !text)) {
      parser = parsers_.Find(FileProbe{{}, std::string_view(bytes).substr(0, kProbeBytes)});
    }
    if (describe_only) {
      out->warnings.push_back(fmt::format(
          "{}: {} bytes, over the {} byte limit: its description is stored, not the file",
          rel_source, size, options_.max_file_bytes));
      return ReadParsed(*parser, bytes, size, name, rel_source, rel_dir, single, out);
    }
    if (parser != nullptr && parser->KeepsOriginal()) {
      return ReadOriginal(*parser, std::move(bytes), name, rel_source, rel_dir, single, out);
    }
    if (parser != nullptr) {
      return ReadParsed(*parser, bytes, size, name, rel_source, rel_dir, single, out);
    }
    if (!text) {
      if (!PlausiblyText(bytes)) {
        out->warnings.push_back(fmt::format("{}: skipped (binary file)", rel_source));
        return Status::Ok();
      }
      Utf8Text utf8 = ToUtf8(bytes);
      out->warnings.push_back(
          utf8.repaired
              ? fmt::format("{}: not valid UTF-8; invalid bytes replaced with U+FFFD", rel_source)
              : fmt::format("{}: transcoded from {} to UTF-8", rel_source, utf8.charset));
      bytes = std::move(utf8.text);
    }
    SKALD_RETURN_IF_ERROR(CheckBytes(bytes.size()));
    out->text_bytes += bytes.size();
    out->source_bytes += bytes.size();
    if (!IsMarkdownExtension(ext)) {
      out->outputs.push_back(ImportFile{JoinPath(rel_dir, SegmentFor(name)), std::move(bytes)});
      return Status::Ok();
    }
    return SplitInto(std::move(bytes), StemOf(name), ext == ".md" ? name : "", rel_dir, single,
                     out);
  }

  // A file stored as it is (media): at rel_dir under its own name, or, when
  // it is the whole source, as the one file of a directory `{stem}_{ext}`
  // (the parser's stem: OpenViking's layout for a lone picture, recording
  // or video). The indexer describes it (SemanticIndexer::SummarizeFile).
  Status ReadOriginal(const Parser& parser, std::string bytes, const std::string& name,
                      std::string_view rel_source, std::string_view rel_dir, bool single,
                      FilePart* out) const {
    Result<ParsedDocument> described = [&] {
      std::lock_guard lock(parse_mu_);
      return parser.Parse(ParseInput{name, bytes, bytes.size()});
    }();
    if (!described.ok()) {
      out->warnings.push_back(
          fmt::format("{}: skipped ({})", rel_source, described.status().message()));
      return Status::Ok();
    }
    out->source_bytes += bytes.size();
    out->media_bytes = bytes.size();
    out->media_source = std::string(rel_source);
    const std::string stem = described->stem.empty() ? StemOf(name) : described->stem;
    out->media_description =
        ImportFile{JoinPath(rel_dir, SegmentFor(stem + ".md")), std::move(described->markdown)};
    if (single) out->root_name = SegmentFor(stem);
    out->outputs.push_back(ImportFile{JoinPath(rel_dir, SegmentFor(name)), std::move(bytes)});
    return Status::Ok();
  }

  // A document a parser takes: its Markdown at rel_dir, or a warning saying
  // why it was skipped. Parsers run one at a time (not every library they
  // use is known to be safe on several threads).
  Status ReadParsed(const Parser& parser, std::string_view bytes, uint64_t size,
                    const std::string& name, std::string_view rel_source, std::string_view rel_dir,
                    bool single, FilePart* out) const {
    Result<ParsedDocument> parsed = [&] {
      std::lock_guard lock(parse_mu_);
      return parser.Parse(ParseInput{name, bytes, size});
    }();
    if (!parsed.ok()) {
      out->warnings.push_back(
          fmt::format("{}: skipped ({})", rel_source, parsed.status().message()));
      return Status::Ok();
    }
    for (const std::string& warning : parsed->warnings) {
      out->warnings.push_back(fmt::format("{}: {}", rel_source, warning));
    }
    SKALD_RETURN_IF_ERROR(CheckBytes(parsed->markdown.size()));
    out->text_bytes += parsed->markdown.size();
    out->source_bytes += size;
    std::string stem = parsed->stem.empty() ? StemOf(name) : parsed->stem;
    return SplitInto(std::move(parsed->markdown), stem, "", rel_dir, single, out);
  }

  // Markdown through the splitter: one file `{stem}.md` (or `keep_name`)
  // at rel_dir when it fits, else a directory `{stem}/` of sections.
  Status SplitInto(std::string markdown, const std::string& stem, const std::string& keep_name,
                   std::string_view rel_dir, bool single, FilePart* out) const {
    SKALD_ASSIGN_OR_RETURN(MarkdownSplit split, SplitMarkdown(markdown, stem, options_.split));
    if (single) {
      out->root_name = split.root_name;
      for (const std::string& dir : split.dirs) out->dirs.push_back(dir);
      for (SplitFile& file : split.files) {
        out->outputs.push_back(ImportFile{file.path, std::move(file.content)});
      }
      return Status::Ok();
    }
    if (split.files.size() == 1 && split.dirs.empty()) {
      // A document that fits one file keeps its name and place.
      std::string name = SegmentFor(keep_name.empty() ? stem + ".md" : keep_name);
      out->outputs.push_back(
          ImportFile{JoinPath(rel_dir, name), std::move(split.files[0].content)});
      return Status::Ok();
    }
    std::string doc_dir = JoinPath(rel_dir, SegmentFor(stem));
    out->dirs.push_back(doc_dir);
    for (const std::string& dir : split.dirs) out->dirs.push_back(JoinPath(doc_dir, dir));
    for (SplitFile& file : split.files) {
      out->outputs.push_back(ImportFile{JoinPath(doc_dir, file.path), std::move(file.content)});
    }
    return Status::Ok();
  }

  // Adds a file's part to the plan, counting its bytes against max_total_bytes.
  Status Commit(FilePart part) {
    for (std::string& warning : part.warnings) plan_->warnings.push_back(std::move(warning));
    if (part.media_bytes > 0) {
      // Media kept whole are held in memory until written: past the
      // import's media budget (in source order), their descriptions are.
      if (media_bytes_ + part.media_bytes > options_.max_media_bytes ||
          total_bytes_ + part.media_bytes > options_.max_total_bytes) {
        plan_->warnings.push_back(fmt::format(
            "{}: over the {} bytes of pictures, recordings and videos one import keeps whole: "
            "its description is stored, not the file",
            part.media_source, std::min(options_.max_media_bytes, options_.max_total_bytes)));
        part.text_bytes = part.media_description->content.size();
        part.outputs = {std::move(*part.media_description)};
      } else {
        media_bytes_ += part.media_bytes;
        part.text_bytes += part.media_bytes;
      }
    }
    SKALD_RETURN_IF_ERROR(CountBytes(part.text_bytes));
    plan_->source_bytes += part.source_bytes;
    if (part.root_name) plan_->root_name = std::move(*part.root_name);
    for (const std::string& dir : part.dirs) AddDir(dir);
    for (ImportFile& file : part.outputs) AddOutput(std::move(file));
    return Status::Ok();
  }

  // Reads the walk's files two at a time and commits them in source order.
  Status ReadAll(const std::vector<WalkItem>& items) {
    for (size_t begin = 0; begin < items.size(); begin += kFilesAtOnce) {
      const size_t end = std::min(items.size(), begin + kFilesAtOnce);
      std::vector<FilePart> parts(end - begin);
      std::vector<Status> results(end - begin);
      ForEachOnTwoThreads(options_.helpers, begin, end, [&](size_t i) {
        const WalkItem& item = items[i];
        if (!item.warning.empty()) return;
        const std::string name = item.bytes != nullptr ? std::string(BaseName(item.rel_source))
                                                       : item.path.filename().string();
        FilePart& part = parts[i - begin];
        results[i - begin] = ReadContent(item.path, item.bytes, name, item.rel_source, item.rel_dir,
                                         /*single=*/false, &part);
        if (item.bytes != nullptr) std::string().swap(*item.bytes);  // read or skipped: freed
        // Hashed here, two at a time: the import compares and stores the
        // hashes of what it writes.
        for (ImportFile& file : part.outputs) file.sha256_hex = Sha256Hex(file.content);
        if (part.media_description) {
          part.media_description->sha256_hex = Sha256Hex(part.media_description->content);
        }
      });
      for (size_t i = begin; i < end; ++i) {
        if (!items[i].warning.empty()) {
          plan_->warnings.push_back(items[i].warning);
          continue;
        }
        SKALD_RETURN_IF_ERROR(results[i - begin]);
        SKALD_RETURN_IF_ERROR(Commit(std::move(parts[i - begin])));
      }
    }
    return Status::Ok();
  }

  // The walk's files read into the plan, which is then finished;
  // InvalidArgument naming the source (`name`) when it holds no text.
  Status ReadWalked(const std::vector<WalkItem>& items, std::string_view name) {
    SKALD_RETURN_IF_ERROR(ReadAll(items));
    if (plan_->files.empty()) {
      return Status::InvalidArgument(
          fmt::format("nothing to import from {}: no text files found ({} files looked at)", name,
                      plan_->source_files));
    }
    FinishDirs();
    return Status::Ok();
  }

  // One file's bytes against max_total_bytes, before it is split (the sum
  // is checked at commit).
  Status CheckBytes(uint64_t n) const {
    if (total_bytes_ + n > options_.max_total_bytes) return TooMuchText();
    return Status::Ok();
  }

  // Counts bytes the plan will hold against max_total_bytes.
  Status CountBytes(uint64_t n) {
    if (total_bytes_ + n > options_.max_total_bytes) return TooMuchText();
    total_bytes_ += n;
    return Status::Ok();
  }

  Status TooMuchText() const {
    return Status::ResourceExhausted(
        fmt::format("the source holds more than {} bytes of text; import it in parts",
                    options_.max_total_bytes));
  }

  void AddDir(const std::string& rel) {
    if (dirs_seen_.insert(rel).second) plan_->dirs.push_back(rel);
  }

  bool IgnoredDir(std::string_view name) const {
    if (BuiltInIgnoredDirs().count(name)) return true;
    return std::find(options_.ignore_dirs.begin(), options_.ignore_dirs.end(), name) !=
           options_.ignore_dirs.end();
  }

  // Walks `dir` (its resource path `rel_dir`, its source path `rel_source`),
  // appending its files and warnings to `items` in source order.
  Status Walk(const fs::path& dir, const std::string& rel_source, const std::string& rel_dir,
              std::vector<WalkItem>* items) {
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(*it);
    }
    if (ec) {
      if (rel_source.empty()) {
        spdlog::warn("import: cannot list {}: {}", dir.string(), ec.message());
        return Status::IOError(fmt::format("cannot list the source directory: {}", ec.message()));
      }
      WalkItem skipped;
      skipped.warning = fmt::format("{}/: skipped ({})", rel_source, ec.message());
      items->push_back(std::move(skipped));
      return Status::Ok();
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.path().filename() < b.path().filename();
    });
    for (const fs::directory_entry& entry : entries) {
      std::string name = entry.path().filename().string();
      if (name.empty() || name[0] == '.') continue;  // hidden entries, as OpenViking
      if (entry.is_symlink(ec)) continue;            // never follow links out of the tree
      std::string child_source = JoinPath(rel_source, name);
      if (entry.is_directory(ec)) {
        if (IgnoredDir(name)) continue;
        std::string child_rel = JoinPath(rel_dir, SegmentFor(name));
        // Directories are created for the files below them only (FinishDirs).
        SKALD_RETURN_IF_ERROR(Walk(entry.path(), child_source, child_rel, items));
        continue;
      }
      if (!entry.is_regular_file(ec)) continue;
      SKALD_RETURN_IF_ERROR(CountFound(dir.string(), "import a smaller directory"));
      if (Wanted(child_source)) items->push_back(WalkItem{{}, entry.path(), child_source, rel_dir});
    }
    return Status::Ok();
  }

  // The files of `tree` below `dir` ("" = the root; its resource path
  // `rel_dir`, its source path `rel_source`), as Walk finds those of a
  // directory on disk: in name order, hidden entries and ignored
  // directories left out. `children` lists each directory's entries.
  Status WalkHeld(MemoryTree* tree,
                  const std::map<std::string, std::map<std::string, bool>>& children,
                  const std::string& dir, const std::string& rel_source, const std::string& rel_dir,
                  std::vector<WalkItem>* items) {
    auto listed = children.find(dir);
    if (listed == children.end()) return Status::Ok();
    for (const auto& [name, is_dir] : listed->second) {
      if (name.empty() || name[0] == '.') continue;  // hidden entries, as on disk
      std::string child = JoinPath(dir, name);
      std::string child_source = JoinPath(rel_source, name);
      if (is_dir) {
        if (IgnoredDir(name)) continue;
        SKALD_RETURN_IF_ERROR(WalkHeld(tree, children, child, child_source,
                                       JoinPath(rel_dir, SegmentFor(name)), items));
        continue;
      }
      SKALD_RETURN_IF_ERROR(CountFound("the archive", "import it in parts"));
      if (Wanted(child_source)) {
        WalkItem item{{}, {}, child_source, rel_dir};
        item.bytes = &tree->files.find(child)->second;
        items->push_back(std::move(item));
      }
    }
    return Status::Ok();
  }

  // Counts one more file a walk found against max_files; the error names
  // the source (`source`) and says what to do (`advice`).
  Status CountFound(std::string_view source, std::string_view advice) {
    if (plan_->source_files >= options_.max_files) {
      return Status::ResourceExhausted(
          fmt::format("{} has more than {} files; {}", source, options_.max_files, advice));
    }
    ++plan_->source_files;
    return Status::Ok();
  }

  // Directories of the outputs, parents first (only those that hold files).
  void FinishDirs() {
    for (const ImportFile& file : plan_->files) {
      std::string_view path = file.path;
      size_t pos = 0;
      while ((pos = path.find('/', pos)) != std::string_view::npos) {
        AddDir(std::string(path.substr(0, pos)));
        ++pos;
      }
    }
    std::stable_sort(plan_->dirs.begin(), plan_->dirs.end(), [](const auto& a, const auto& b) {
      return std::count(a.begin(), a.end(), '/') < std::count(b.begin(), b.end(), '/');
    });
  }

 private:
  void AddOutput(ImportFile file) {
    // Two sources may map to one name (sanitizing, "a.md" + split "a/"):
    // suffix until unique.
    const std::string& path = file.path;
    std::string unique = path;
    for (int n = 2; !paths_seen_.insert(unique).second; ++n) {
      size_t slash = path.rfind('/');
      size_t dot = path.rfind('.');
      if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        dot = path.size();
      unique = fmt::format("{}_{}{}", path.substr(0, dot), n, path.substr(dot));
    }
    file.path = std::move(unique);
    plan_->files.push_back(std::move(file));
  }

  const ImportOptions& options_;
  ImportPlan* plan_;
  const ParserRegistry parsers_ = ParserRegistry::BuiltIn();
  mutable std::mutex parse_mu_;
  std::vector<GlobPattern> include_;
  std::vector<GlobPattern> exclude_;
  uint64_t total_bytes_ = 0;
  uint64_t media_bytes_ = 0;  // of media kept whole
  std::set<std::string> dirs_seen_;
  std::set<std::string> paths_seen_;
};

}  // namespace

Status ImportOptions::Validate() const {
  SKALD_RETURN_IF_ERROR(split.Validate());
  if (max_file_bytes == 0) return Status::InvalidArgument("max_file_bytes must be > 0");
  if (max_files == 0) return Status::InvalidArgument("max_files must be > 0");
  return Status::Ok();
}

bool LooksLikeText(std::string_view bytes) {
  return bytes.find('\0') == std::string_view::npos && IsValidUtf8(bytes);
}

std::string StemOf(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == 0 || dot == std::string_view::npos) return std::string(name);
  return std::string(name.substr(0, dot));
}

std::string SegmentFor(std::string_view name) {
  if (VikingUri::IsValidSegment(name) && name.size() <= 255 && !name.empty() && name[0] != '.') {
    return std::string(name);
  }
  return SanitizePathSegment(name);
}

Result<ImportPlan> PlanImport(const std::string& source_path, std::string_view display_name,
                              const ImportOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  std::error_code ec;
  fs::path path(source_path);
  fs::file_status status = fs::status(path, ec);
  // Messages name the source by its display name, never by its host path
  // (which for an upload is a file in the workspace); the log has the path.
  std::string name = display_name.empty() ? path.filename().string() : std::string(display_name);
  if (name.empty()) {
    std::error_code canon_ec;
    name = fs::weakly_canonical(path, canon_ec).filename().string();
  }
  if (ec || !fs::exists(status)) {
    spdlog::warn("import: source path does not exist: {}", source_path);
    return Status::NotFound(fmt::format("source does not exist: {}", name));
  }
  ImportPlan plan;
  Planner planner(options, &plan);
  SKALD_RETURN_IF_ERROR(planner.Compile());
  if (fs::is_regular_file(status)) {
    ++plan.source_files;
    plan.root_name = SegmentFor(StemOf(name));
    FilePart part;
    SKALD_RETURN_IF_ERROR(
        planner.ReadContent(path, nullptr, name, name, "", /*single=*/true, &part));
    SKALD_RETURN_IF_ERROR(planner.Commit(std::move(part)));
    if (plan.files.empty()) {
      return Status::InvalidArgument(
          fmt::format("nothing to import from {}: {}", name,
                      plan.warnings.empty() ? "no content" : plan.warnings.front()));
    }
    planner.FinishDirs();
    return plan;
  }
  if (!fs::is_directory(status)) {
    return Status::InvalidArgument(
        fmt::format("{} is neither a regular file nor a directory", name));
  }
  plan.root_name = SegmentFor(name);
  std::vector<WalkItem> items;
  SKALD_RETURN_IF_ERROR(planner.Walk(path, "", "", &items));
  SKALD_RETURN_IF_ERROR(planner.ReadWalked(items, name));
  return plan;
}

Result<ImportPlan> PlanImport(MemoryTree tree, std::string_view root_name,
                              const ImportOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  // Each directory's entries by name (true: a directory), as a listing of
  // the expanded tree on disk would give them.
  std::map<std::string, std::map<std::string, bool>> children;
  auto add = [&](const std::string& path, bool is_dir) {
    const size_t slash = path.rfind('/');
    const std::string parent = slash == std::string::npos ? "" : path.substr(0, slash);
    children[parent][path.substr(slash == std::string::npos ? 0 : slash + 1)] = is_dir;
  };
  for (const std::string& dir : tree.dirs) add(dir, true);
  for (const auto& [path, bytes] : tree.files) add(path, false);
  ImportPlan plan;
  Planner planner(options, &plan);
  SKALD_RETURN_IF_ERROR(planner.Compile());
  plan.root_name = SegmentFor(root_name);
  std::vector<WalkItem> items;
  SKALD_RETURN_IF_ERROR(planner.WalkHeld(&tree, children, "", "", "", &items));
  SKALD_RETURN_IF_ERROR(planner.ReadWalked(items, root_name));
  return plan;
}

}  // namespace skald
