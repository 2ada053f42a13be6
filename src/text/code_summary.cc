// Code files for the extractive summarizer: the language table, the leading
// comment or docstring, and the top-level definitions (code_summary.h).

#include "text/code_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "text/text_util.h"

namespace skald {

namespace {

// An outline lists at most kMaxDefinitions distinct definitions, and names
// at most kMaxNamesPerKind of each kind ("and 3 more" for the rest).
constexpr size_t kMaxDefinitions = 100;
constexpr size_t kMaxNamesPerKind = 12;

constexpr CodeLanguage kLanguages[] = {
    {" c ", "C", "//", true, false, true},
    {" cc cpp cxx c++ ipp ", "C++", "//", true, false, true},
    {" h hpp hh hxx ", "C/C++ header", "//", true, false, true},
    {" m mm ", "Objective-C", "//", true, false, true},
    {" py pyi ", "Python", "#", false, true, false},
    {" js mjs cjs jsx ", "JavaScript", "//", true, false, false},
    {" ts tsx mts cts ", "TypeScript", "//", true, false, false},
    {" go ", "Go", "//", true, false, false},
    {" rs ", "Rust", "//", true, false, false},
    {" java ", "Java", "//", true, false, false},
    {" kt kts ", "Kotlin", "//", true, false, false},
    {" scala ", "Scala", "//", true, false, false},
    {" swift ", "Swift", "//", true, false, false},
    {" cs ", "C#", "//", true, false, false},
    {" dart ", "Dart", "//", true, false, false},
    {" php ", "PHP", "//", true, false, false},
    {" rb ", "Ruby", "#", false, false, false},
    {" sh bash zsh ", "Shell", "#", false, false, false},
    {" pl pm ", "Perl", "#", false, false, false},
    {" r ", "R", "#", false, false, false},
    {" jl ", "Julia", "#", false, false, false},
    {" ex exs ", "Elixir", "#", false, false, false},
    {" lua ", "Lua", "--", false, false, false},
    {" hs ", "Haskell", "--", false, false, false},
    {" erl ", "Erlang", "%", false, false, false},
    {" cmake cmakelists.txt ", "CMake", "#", false, false, false},
};

bool LooksLikeLicense(std::string_view comment) {
  std::string lower = AsciiLower(comment);
  return lower.find("copyright") != std::string::npos ||
         lower.find("license") != std::string::npos || lower.find("spdx-") != std::string::npos;
}

// Text of a comment line without its markers ("///", "//!", "# ", " * ").
std::string_view StripCommentMarkers(std::string_view t, std::string_view line_comment) {
  t = Trim(t);
  if (!line_comment.empty() && t.starts_with(line_comment)) {
    t.remove_prefix(line_comment.size());
    while (!t.empty() && (t.front() == line_comment.back() || t.front() == '!')) t.remove_prefix(1);
  }
  if (t.starts_with("/*")) t.remove_prefix(2);
  if (t.ends_with("*/")) t.remove_suffix(2);
  while (!t.empty() && t.front() == '*') t.remove_prefix(1);
  return Trim(t);
}

// The first comment block or docstring before the code starts, skipping a
// shebang, blank lines and license headers; empty if none.
std::string LeadingComment(std::string_view text, const CodeLanguage& language) {
  std::vector<std::string_view> lines = [&] {
    std::vector<std::string_view> out;
    for (size_t pos = 0; pos < text.size() && out.size() < 400;) {
      size_t nl = text.find('\n', pos);
      size_t end = nl == std::string_view::npos ? text.size() : nl;
      out.push_back(text.substr(pos, end - pos));
      pos = end + 1;
    }
    return out;
  }();
  size_t i = 0;
  if (!lines.empty() && lines[0].starts_with("#!")) ++i;
  while (i < lines.size()) {
    const size_t block_start = i;
    std::string_view t = Trim(lines[i]);
    if (t.empty() || t.starts_with("# -*-") || t.starts_with("#pragma") || t == "\"use strict\";" ||
        t == "'use strict';") {
      ++i;
      continue;
    }
    std::string block;
    auto add = [&](std::string_view piece) {
      piece = Trim(piece);
      if (piece.empty() || piece.find_first_not_of("=-*#/~+_ ") == std::string_view::npos) return;
      block += ' ';
      block.append(piece);
    };
    if (language.docstrings && (t.starts_with("\"\"\"") || t.starts_with("'''") ||
                                t.starts_with("r\"\"\"") || t.starts_with("r'''"))) {
      std::string_view quote = t.substr(t.front() == 'r' ? 1 : 0, 3);
      std::string_view first = t.substr(t.find(quote) + 3);
      size_t close = first.find(quote);
      if (close != std::string_view::npos) {
        add(first.substr(0, close));
        ++i;
      } else {
        add(first);
        for (++i; i < lines.size(); ++i) {
          size_t c = lines[i].find(quote);
          add(lines[i].substr(0, c));
          if (c != std::string_view::npos) {
            ++i;
            break;
          }
        }
      }
    } else if (language.block_comments && t.starts_with("/*")) {
      for (; i < lines.size(); ++i) {
        std::string_view l = lines[i];
        bool closes = l.find("*/") != std::string_view::npos;
        std::string_view prose = StripCommentMarkers(l, "");
        if (prose.starts_with("@") && !closes) {  // Javadoc tags end the prose
          for (; i < lines.size() && lines[i].find("*/") == std::string_view::npos; ++i) {
          }
          ++i;
          break;
        }
        if (!prose.starts_with("@")) add(prose);
        if (closes) {
          ++i;
          break;
        }
      }
    } else if (t.starts_with(language.line_comment)) {
      for (; i < lines.size(); ++i) {
        std::string_view l = Trim(lines[i]);
        if (!l.starts_with(language.line_comment) || l.starts_with("#!")) break;
        add(StripCommentMarkers(l, language.line_comment));
      }
    } else {
      return "";  // code before any comment
    }
    // Collapsed: the summarizer's sentence splitting expects collapsed text.
    if (!block.empty() && !LooksLikeLicense(block)) return CollapseSpace(block);
    if (i == block_start) ++i;  // a line no branch consumed ("#!" past the first line)
  }
  return "";
}

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Reads an identifier (letters, digits, '_', '$', and "::" or '.' joints
// when `qualified`) from the front of `t`.
std::string_view TakeIdentifier(std::string_view t, bool qualified = false) {
  size_t n = 0;
  while (n < t.size()) {
    if (IsIdentifierChar(t[n])) {
      ++n;
    } else if (qualified && t.substr(n, 2) == "::" && n + 2 < t.size() &&
               IsIdentifierChar(t[n + 2])) {
      n += 2;
    } else if (qualified && t[n] == '.' && n > 0 && n + 1 < t.size() &&
               IsIdentifierChar(t[n + 1])) {
      n += 1;
    } else {
      break;
    }
  }
  return t.substr(0, n);
}

struct Definition {
  std::string_view kind;  // "class", "function", ...
  std::string name;
};

// Kind of a definition keyword: nullopt for other words, empty for
// containers (namespace, impl) that are not worth listing.
std::optional<std::string_view> KindOfKeyword(std::string_view word) {
  static const std::pair<std::string_view, std::string_view> kKeywords[] = {
      {"def", "function"},     {"fn", "function"},         {"func", "function"},
      {"fun", "function"},     {"function", "function"},   {"class", "class"},
      {"struct", "struct"},    {"enum", "enum"},           {"union", "union"},
      {"trait", "trait"},      {"interface", "interface"}, {"protocol", "protocol"},
      {"type", "type"},        {"typealias", "type"},      {"impl", ""},
      {"mod", "module"},       {"module", "module"},       {"namespace", ""},
      {"object", "object"},    {"record", "record"},       {"extension", "extension"},
      {"defmodule", "module"}, {"defp", "function"},       {"macro_rules!", "macro"},
  };
  for (const auto& [keyword, kind] : kKeywords) {
    if (keyword == word) return kind;
  }
  return std::nullopt;
}

bool IsModifier(std::string_view word) {
  static const std::string_view kModifiers[] = {
      "export",   "default", "pub",      "public",  "private", "protected", "internal",
      "static",   "async",   "abstract", "final",   "sealed",  "open",      "data",
      "inline",   "extern",  "unsafe",   "partial", "virtual", "override",  "declare",
      "readonly", "local",   "const",    "let",     "var"};
  return std::find(std::begin(kModifiers), std::end(kModifiers), word) != std::end(kModifiers) ||
         word.starts_with("pub(");
}

bool IsAllCaps(std::string_view name) {
  bool letter = false;
  for (char c : name) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    letter |= std::isupper(static_cast<unsigned char>(c)) != 0;
  }
  return letter;
}

// A top-level definition on a line that starts in column 0, if any.
std::optional<Definition> DefinitionOnLine(std::string_view line, const CodeLanguage& language) {
  if (line.empty() || IsSpace(line.front())) return std::nullopt;
  std::string_view rest = Trim(line);
  bool exported = false;
  std::string_view binding;  // "const" / "let" / "var" seen among the modifiers
  while (true) {
    size_t space = rest.find_first_of(" \t");
    std::string_view word = rest.substr(0, space);
    if (space == std::string_view::npos || !IsModifier(word)) break;
    exported |= word == "export" || word == "pub" || word.starts_with("pub(") || word == "public";
    if (word == "const" || word == "let" || word == "var") binding = word;
    rest = Trim(rest.substr(space));
  }
  // `enum class X` / `async function* x`
  size_t space = rest.find_first_of(" \t(<{:*");
  std::string_view keyword = rest.substr(0, space);
  std::optional<std::string_view> keyword_kind = KindOfKeyword(keyword);
  if (keyword_kind && keyword_kind->empty()) return std::nullopt;
  if (keyword_kind && space != std::string_view::npos) {
    std::string_view kind = *keyword_kind;
    std::string_view after = Trim(rest.substr(space));
    if (kind == "enum" && after.starts_with("class ")) after = Trim(after.substr(6));
    while (!after.empty() && after.front() == '*') after = Trim(after.substr(1));
    if (after.starts_with("(")) {  // Go method receiver: func (s *T) Name(
      size_t close = after.find(')');
      if (close == std::string_view::npos) return std::nullopt;
      after = Trim(after.substr(close + 1));
    }
    if (after.starts_with("<")) {  // impl<T> Name
      size_t close = after.find('>');
      if (close == std::string_view::npos) return std::nullopt;
      after = Trim(after.substr(close + 1));
    }
    std::string_view name = TakeIdentifier(after, true);
    if (name.empty()) return std::nullopt;
    // Forward declarations ("class Foo;") define nothing.
    if ((kind == "class" || kind == "struct") && Trim(after.substr(name.size())) == ";") {
      return std::nullopt;
    }
    return Definition{kind, std::string(name)};
  }
  if (!binding.empty() && exported) {  // export const NAME = ...
    std::string_view name = TakeIdentifier(rest);
    if (!name.empty()) return Definition{"constant", std::string(name)};
    return std::nullopt;
  }
  if (!language.c_functions) return std::nullopt;
  // C-family function: "type name(" at column 0; declarations only in
  // headers (the API), never control statements or macros.
  static const std::string_view kNotTypes[] = {
      "return", "if",      "else",     "for",  "while",  "switch", "case", "do",
      "using",  "typedef", "template", "goto", "sizeof", "delete", "new",  "throw"};
  size_t paren = rest.find('(');
  if (paren == std::string_view::npos || paren == 0) return std::nullopt;
  char first = rest.front();
  if (first == '#' || first == '/' || first == '*' || first == '}' || first == '{') {
    return std::nullopt;
  }
  std::string_view first_word = TakeIdentifier(rest);
  if (std::find(std::begin(kNotTypes), std::end(kNotTypes), first_word) != std::end(kNotTypes)) {
    return std::nullopt;
  }
  std::string_view before = Trim(rest.substr(0, paren));
  if (before.find('=') != std::string_view::npos) return std::nullopt;
  size_t start = before.size();
  while (start > 0 && (IsIdentifierChar(before[start - 1]) || before[start - 1] == ':' ||
                       before[start - 1] == '~')) {
    --start;
  }
  std::string_view name = before.substr(start);
  if (start == 0 || name.empty() || IsAllCaps(name) || name.find(":::") != std::string_view::npos) {
    return std::nullopt;  // no return type, or a macro call like TEST(...)
  }
  return Definition{"function", std::string(name)};
}

// "Functions", "Classes", ...
std::string PluralKind(std::string_view kind) {
  std::string plural(kind);
  plural[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(plural[0])));
  return plural + (kind.ends_with("s") ? "es" : "s");
}

}  // namespace

const CodeLanguage* CodeLanguageOf(std::string_view file_name) {
  size_t dot = file_name.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= file_name.size()) return nullptr;
  // By extension, or by whole name ("CMakeLists.txt").
  for (std::string_view key : {file_name.substr(dot + 1), file_name}) {
    std::string padded = " " + AsciiLower(key) + " ";
    for (const CodeLanguage& language : kLanguages) {
      if (language.extensions.find(padded) != std::string_view::npos) return &language;
    }
  }
  return nullptr;
}

CodeOutline OutlineCode(std::string_view text, const CodeLanguage& language) {
  CodeOutline outline;
  std::vector<Definition> definitions;
  std::unordered_set<std::string> seen;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    ++outline.lines;
    if (definitions.size() < kMaxDefinitions) {
      if (auto def = DefinitionOnLine(text.substr(pos, end - pos), language)) {
        if (seen.insert(fmt::format("{}:{}", def->kind, def->name)).second) {
          definitions.push_back(std::move(*def));
        }
      }
    }
    pos = end + 1;
  }

  outline.leading_comment = LeadingComment(text, language);
  // Definitions grouped by kind, types before functions before the rest.
  static constexpr std::string_view kKindOrder[] = {
      "class", "interface", "trait",    "protocol", "struct",   "record", "object",   "enum",
      "type",  "module",    "function", "macro",    "constant", "union",  "extension"};
  for (std::string_view kind : kKindOrder) {
    std::string names;
    size_t count = 0;
    for (const Definition& d : definitions) {
      if (d.kind != kind) continue;
      if (++count > kMaxNamesPerKind) continue;
      if (!names.empty()) names += ", ";
      names += d.name;
    }
    if (count == 0) continue;
    if (count > kMaxNamesPerKind) names += fmt::format(" and {} more", count - kMaxNamesPerKind);
    if (!outline.definitions.empty()) outline.definitions += ' ';
    outline.definitions += fmt::format("{}: {}.", PluralKind(kind), names);
  }
  return outline;
}

}  // namespace skald
