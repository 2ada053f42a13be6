#include <gtest/gtest.h>

#include "ingest/sidecar.h"

namespace skald {
namespace {

TEST(SidecarTest, RoundTripsFrontmatterAndBody) {
  std::string text = RenderSidecar(SidecarFrontmatter("viking://resources/d", "Mkdir", "mkdir"),
                                   "  An abstract.  \n");
  EXPECT_EQ(text,
            "---\ndirectory: viking://resources/d/\ngenerated_by: {component: Mkdir, trigger: "
            "mkdir}\n---\n\nAn abstract.\n");
  Sidecar parsed = ParseSidecar(text);
  EXPECT_EQ(parsed.body, "An abstract.");
  EXPECT_EQ(RenderSidecar(parsed.frontmatter, parsed.body), text);
}

TEST(SidecarTest, LegacyAndUnterminatedFrontmatterAreAllBody) {
  EXPECT_EQ(ParseSidecar("just text\n").body, "just text");
  EXPECT_EQ(ParseSidecar("---\nkey: v\nno end").body, "---\nkey: v\nno end");
  EXPECT_EQ(ParseSidecar("---\n---\nbody").body, "body");
}

TEST(SidecarTest, Placeholders) {
  EXPECT_EQ(AbstractPlaceholder("viking://resources/x"),
            "# viking://resources/x [Directory abstract is not ready]");
  EXPECT_EQ(OverviewPlaceholder("viking://resources/x"),
            "# viking://resources/x\n\n[Directory overview is not ready]");
}

}  // namespace
}  // namespace skald
