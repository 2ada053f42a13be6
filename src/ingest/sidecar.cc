#include "ingest/sidecar.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace skald {

Sidecar ParseSidecar(std::string_view text) {
  Sidecar out;
  if (text.substr(0, 4) == "---\n" || text.substr(0, 5) == "---\r\n") {
    size_t start = text.find('\n') + 1;
    size_t pos = start;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      std::string_view line =
          text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
      if (Trim(line) == "---") {
        out.frontmatter = std::string(text.substr(start, pos - start));
        out.body = std::string(Trim(eol == std::string_view::npos ? "" : text.substr(eol + 1)));
        return out;
      }
      if (eol == std::string_view::npos) break;
      pos = eol + 1;
    }
  }
  out.body = std::string(Trim(text));  // legacy: no (closed) frontmatter
  return out;
}

std::string RenderSidecar(std::string_view frontmatter, std::string_view body) {
  std::string out;
  if (!frontmatter.empty()) {
    out += "---\n";
    out += frontmatter;
    if (frontmatter.back() != '\n') out += '\n';
    out += "---\n\n";
  }
  out += Trim(body);
  out += '\n';
  return out;
}

std::string SidecarFrontmatter(std::string_view directory_uri, std::string_view component,
                               std::string_view trigger) {
  return fmt::format("directory: {}/\ngenerated_by: {{component: {}, trigger: {}}}\n",
                     directory_uri, component, trigger);
}

bool IsSidecarName(std::string_view name) { return name == kAbstractName || name == kOverviewName; }

std::string AbstractPlaceholder(std::string_view uri) {
  return fmt::format("# {} [Directory abstract is not ready]", uri);
}

std::string OverviewPlaceholder(std::string_view uri) {
  return fmt::format("# {}\n\n[Directory overview is not ready]", uri);
}

}  // namespace skald
