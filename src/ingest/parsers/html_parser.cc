#include "ingest/parsers/html_parser.h"

#include <gumbo.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "common/strings.h"
#include "ingest/parsers/markdown_output.h"
#include "ingest/text_encoding.h"

namespace skald {
namespace {

// Deeper element nesting than this is read as text only (no recursion
// without bound on hostile input).
constexpr int kMaxDepth = 200;

bool Dropped(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_NAV: case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER: case GUMBO_TAG_ASIDE: case GUMBO_TAG_FORM:
    case GUMBO_TAG_BUTTON: case GUMBO_TAG_SELECT: case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_SVG: case GUMBO_TAG_MATH:
    case GUMBO_TAG_CANVAS: case GUMBO_TAG_HEAD: case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED: case GUMBO_TAG_VIDEO: case GUMBO_TAG_AUDIO:
      return true;
    default:
      return false;
  }
}

int HeadingLevel(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_H1: return 1;
    case GUMBO_TAG_H2: return 2;
    case GUMBO_TAG_H3: return 3;
    case GUMBO_TAG_H4: return 4;
    case GUMBO_TAG_H5: return 5;
    case GUMBO_TAG_H6: return 6;
    default: return 0;
  }
}

bool IsBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P: case GUMBO_TAG_DIV: case GUMBO_TAG_SECTION: case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_MAIN: case GUMBO_TAG_BODY: case GUMBO_TAG_HTML: case GUMBO_TAG_DD:
    case GUMBO_TAG_DT: case GUMBO_TAG_DL: case GUMBO_TAG_FIGURE: case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_CENTER: case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_SUMMARY: case GUMBO_TAG_HR: case GUMBO_TAG_CAPTION:
      return true;
    default:
      return false;
  }
}

// The text of every text node below `node`, whitespace as it is; <br> as
// a line break. Iterative: any depth.
void RawText(const GumboNode* root, std::string* out) {
  std::vector<const GumboNode*> stack = {root};
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE ||
        node->type == GUMBO_NODE_CDATA) {
      *out += node->v.text.text;
      continue;
    }
    if (node->type != GUMBO_NODE_ELEMENT || Dropped(node->v.element.tag)) continue;
    if (node->v.element.tag == GUMBO_TAG_BR) *out += '\n';
    const GumboVector& children = node->v.element.children;
    for (unsigned i = children.length; i > 0; --i) {
      stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
    }
  }
}

class Converter {
 public:
  explicit Converter(int depth = 0) : depth_(depth) {}

  void WalkChildren(const GumboNode* node) {
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      Walk(static_cast<const GumboNode*>(children.data[i]));
    }
  }

  void Walk(const GumboNode* node) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
        inline_ += node->v.text.text;
        return;
      case GUMBO_NODE_WHITESPACE:
        inline_ += ' ';
        return;
      case GUMBO_NODE_DOCUMENT:
      case GUMBO_NODE_COMMENT:
        return;
      default:
        break;
    }
    GumboTag tag = node->v.element.tag;
    if (Dropped(tag)) return;
    if (depth_ > kMaxDepth) {
      RawText(node, &inline_);
      return;
    }
    ++depth_;
    if (int level = HeadingLevel(tag); level > 0) {
      Flush();
      std::string text = InlineText(node);
      if (!text.empty()) AppendBlock(&out_, std::string(static_cast<size_t>(level), '#') + " " + text);
    } else if (tag == GUMBO_TAG_UL || tag == GUMBO_TAG_OL) {
      Flush();
      std::string list;
      List(node, 0, &list);
      AppendBlock(&out_, list);
    } else if (tag == GUMBO_TAG_PRE) {
      Flush();
      std::string code;
      RawText(node, &code);
      std::string fence = code.find("```") == std::string::npos ? "```" : "~~~~";
      while (!code.empty() && code.back() == '\n') code.pop_back();
      if (!Trim(code).empty()) AppendBlock(&out_, fence + "\n" + code + "\n" + fence);
    } else if (tag == GUMBO_TAG_TABLE) {
      Flush();
      std::vector<std::vector<std::string>> rows;
      Rows(node, &rows);
      AppendBlock(&out_, MarkdownTable(rows));
    } else if (tag == GUMBO_TAG_BLOCKQUOTE) {
      Flush();
      Converter inner(depth_);
      inner.WalkChildren(node);
      std::string quoted;
      for (const std::string& line : Split(Trim(inner.Finish()), '\n')) quoted += "> " + line + "\n";
      AppendBlock(&out_, quoted);
    } else if (tag == GUMBO_TAG_CODE || tag == GUMBO_TAG_KBD || tag == GUMBO_TAG_SAMP) {
      std::string code;
      RawText(node, &code);
      std::string text = CollapseWhitespace(code);
      if (!text.empty()) inline_ += " `" + text + "` ";
    } else if (tag == GUMBO_TAG_BR) {
      inline_ += kBreak;
    } else if (IsBlock(tag)) {
      Flush();
      WalkChildren(node);
      Flush();
    } else {
      WalkChildren(node);  // inline: a, span, strong, em, ...
    }
    --depth_;
  }

  // The Markdown so far, the pending paragraph included.
  std::string Finish() {
    Flush();
    return out_;
  }

 private:
  // Stands for <br> in a paragraph until whitespace is collapsed.
  static constexpr char kBreak = '\x01';

  void Flush() {
    std::string text;
    for (const std::string& line : Split(inline_, kBreak)) {
      std::string collapsed = CollapseWhitespace(line);
      if (collapsed.empty()) continue;
      if (!text.empty()) text += '\n';
      text += collapsed;
    }
    inline_.clear();
    if (text.empty()) return;
    // Text that would read as Markdown structure stays text.
    if (text[0] == '#' || text[0] == '>' || text.rfind("---", 0) == 0) text = "\\" + text;
    AppendBlock(&out_, text);
  }

  // The text of `node` on one line.
  std::string InlineText(const GumboNode* node) {
    Converter inner(depth_);
    inner.WalkChildren(node);
    return CollapseWhitespace(inner.Finish());
  }

  void List(const GumboNode* list, int indent, std::string* out) {
    bool ordered = list->v.element.tag == GUMBO_TAG_OL;
    int number = 0;
    const GumboVector& items = list->v.element.children;
    for (unsigned i = 0; i < items.length; ++i) {
      const auto* item = static_cast<const GumboNode*>(items.data[i]);
      if (item->type != GUMBO_NODE_ELEMENT || item->v.element.tag != GUMBO_TAG_LI) continue;
      Converter inner(depth_);
      std::vector<const GumboNode*> nested;
      const GumboVector& parts = item->v.element.children;
      for (unsigned j = 0; j < parts.length; ++j) {
        const auto* part = static_cast<const GumboNode*>(parts.data[j]);
        if (part->type == GUMBO_NODE_ELEMENT &&
            (part->v.element.tag == GUMBO_TAG_UL || part->v.element.tag == GUMBO_TAG_OL)) {
          nested.push_back(part);
        } else {
          inner.Walk(part);
        }
      }
      std::string text = CollapseWhitespace(inner.Finish());
      std::string marker = ordered ? std::to_string(++number) + ". " : "- ";
      *out += std::string(static_cast<size_t>(indent) * 2, ' ') + marker + text + "\n";
      for (const GumboNode* sub : nested) {
        if (depth_ + indent < kMaxDepth) {
          List(sub, indent + 1, out);
          continue;
        }
        std::string deep;  // too deep for more indentation: its text as one item
        RawText(sub, &deep);
        std::string collapsed = CollapseWhitespace(deep);
        if (!collapsed.empty()) *out += std::string(static_cast<size_t>(indent + 1) * 2, ' ') + "- " + collapsed + "\n";
      }
    }
  }

  // Rows of a table (through thead/tbody/tfoot; nested tables are cells).
  void Rows(const GumboNode* node, std::vector<std::vector<std::string>>* rows) {
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (child->type != GUMBO_NODE_ELEMENT) continue;
      GumboTag tag = child->v.element.tag;
      if (tag == GUMBO_TAG_THEAD || tag == GUMBO_TAG_TBODY || tag == GUMBO_TAG_TFOOT) {
        Rows(child, rows);
      } else if (tag == GUMBO_TAG_TR) {
        std::vector<std::string> row;
        const GumboVector& cells = child->v.element.children;
        for (unsigned j = 0; j < cells.length; ++j) {
          const auto* cell = static_cast<const GumboNode*>(cells.data[j]);
          if (cell->type == GUMBO_NODE_ELEMENT &&
              (cell->v.element.tag == GUMBO_TAG_TD || cell->v.element.tag == GUMBO_TAG_TH)) {
            row.push_back(InlineText(cell));
          }
        }
        if (!row.empty()) rows->push_back(std::move(row));
      }
    }
  }

  int depth_;
  std::string out_;
  std::string inline_;
};

const GumboNode* FindTitle(const GumboNode* node, int depth = 0) {
  if (node->type != GUMBO_NODE_ELEMENT || depth > kMaxDepth) return nullptr;
  if (node->v.element.tag == GUMBO_TAG_TITLE) return node;
  if (node->v.element.tag == GUMBO_TAG_BODY) return nullptr;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    if (const GumboNode* t = FindTitle(static_cast<const GumboNode*>(children.data[i]), depth + 1)) {
      return t;
    }
  }
  return nullptr;
}

// Elements that never hold children, or that the parser closes by itself
// when the next one starts: not counted as nesting.
bool NotNesting(std::string_view tag) {
  static const char* const kTags[] = {
      "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
      "source", "track", "wbr", "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup",
      "thead", "tbody", "tfoot", "colgroup", "rb", "rt", "rp", "!doctype"};
  for (const char* t : kTags) {
    if (tag == t) return true;
  }
  return tag.empty() || tag[0] == '!' || tag[0] == '?';
}

// Whether the elements nest deeper than `limit`, judged from the tags the
// way a tree builder would (an end tag closes the nearest open element of
// its name and everything inside it; a stray one is ignored). Checked
// before gumbo runs: its tree building is quadratic in the depth.
bool NestsDeeperThan(std::string_view html, size_t limit) {
  std::vector<std::string> open;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string_view::npos) {
    size_t end = html.find('>', i);
    if (end == std::string_view::npos) break;
    std::string_view tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    bool closing = !tag.empty() && tag[0] == '/';
    if (closing) tag.remove_prefix(1);
    size_t name_end = 0;
    while (name_end < tag.size() && !std::isspace(static_cast<unsigned char>(tag[name_end])) &&
           tag[name_end] != '/') {
      ++name_end;
    }
    std::string name = AsciiLower(tag.substr(0, name_end));
    if (NotNesting(name) || (!tag.empty() && tag.back() == '/')) continue;
    if (closing) {
      for (size_t k = open.size(); k > 0; --k) {
        if (open[k - 1] == name) {
          open.resize(k - 1);
          break;
        }
      }
      continue;
    }
    if (name == "script" || name == "style") {  // their text is not markup
      size_t close = html.find("</", i);
      while (close != std::string_view::npos &&
             AsciiLower(html.substr(close + 2, name.size())) != name) {
        close = html.find("</", close + 2);
      }
      if (close == std::string_view::npos) break;
      i = close;
      continue;
    }
    open.push_back(std::move(name));
    if (open.size() > limit) return true;
  }
  return false;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && AsciiLower(s.substr(0, prefix.size())) == prefix;
}

class HtmlParser : public Parser {
 public:
  std::string_view Name() const override { return "html"; }

  bool Accepts(const FileProbe& probe) const override {
    if (!probe.extension.empty()) {
      return probe.extension == ".html" || probe.extension == ".htm" || probe.extension == ".xhtml";
    }
    std::string_view head = probe.head;
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    head = Trim(head);
    return StartsWithNoCase(head, "<!doctype html") || StartsWithNoCase(head, "<html");
  }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    ParsedDocument doc;
    Utf8Text text = ToUtf8(input.bytes);
    if (!text.charset.empty()) doc.warnings.push_back("transcoded from " + text.charset);
    if (text.repaired) doc.warnings.push_back("invalid UTF-8 bytes replaced");
    SKALD_ASSIGN_OR_RETURN(std::string body, HtmlToMarkdown(text.text, &doc.title));
    if (Trim(body).empty()) return Status::InvalidArgument("the HTML page has no text");
    SetMarkdown(&doc, std::move(body), "HTML");
    return doc;
  }
};

}  // namespace

Result<std::string> HtmlToMarkdown(std::string_view html, std::string* title) {
  if (title != nullptr) title->clear();
  if (NestsDeeperThan(html, kMaxHtmlNesting)) {
    return Status::InvalidArgument(
        fmt::format("the HTML is nested too deeply (over {} levels)", kMaxHtmlNesting));
  }
  GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, html.data(), html.size());
  if (output == nullptr) return Status::InvalidArgument("the HTML cannot be parsed");
  std::unique_ptr<GumboOutput, void (*)(GumboOutput*)> guard(
      output, [](GumboOutput* o) { gumbo_destroy_output(&kGumboDefaultOptions, o); });
  if (title != nullptr) {
    if (const GumboNode* node = FindTitle(output->root)) {
      std::string raw;
      RawText(node, &raw);
      *title = CollapseWhitespace(raw);
    }
  }
  Converter converter;
  converter.Walk(output->root);
  return converter.Finish();
}

std::unique_ptr<Parser> MakeHtmlParser() { return std::make_unique<HtmlParser>(); }

}  // namespace skald
