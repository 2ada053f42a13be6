#pragma once

// Directory sidecars: `.abstract.md` (L0) and `.overview.md` (L1), markdown
// with an optional YAML frontmatter block (reference internals §2.5):
//
//   ---
//   directory: viking://resources/docs/
//   generated_by: {component: Mkdir, trigger: mkdir}
//   ---
//
//   <body>
//
// Thread safety: pure functions.

#include <string>
#include <string_view>

namespace skald {

inline constexpr std::string_view kAbstractName = ".abstract.md";
inline constexpr std::string_view kOverviewName = ".overview.md";

struct Sidecar {
  std::string frontmatter;  // the lines between the `---` fences, "" when absent
  std::string body;         // the visible markdown, trimmed
};

// Splits a sidecar file; text without a leading `---` fence is all body (legacy).
Sidecar ParseSidecar(std::string_view text);

// Renders a sidecar with the given frontmatter (may be empty) and body.
std::string RenderSidecar(std::string_view frontmatter, std::string_view body);

// Frontmatter for a sidecar of `directory_uri` written by `component`/`trigger`.
std::string SidecarFrontmatter(std::string_view directory_uri, std::string_view component,
                               std::string_view trigger);

// True for the two sidecar names.
bool IsSidecarName(std::string_view name);

// Placeholders returned when a sidecar does not exist yet.
std::string AbstractPlaceholder(std::string_view uri);
std::string OverviewPlaceholder(std::string_view uri);

}  // namespace skald
