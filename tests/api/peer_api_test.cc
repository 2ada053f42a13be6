// X-OpenViking-Actor-Peer: a caller acting as one peer does not see the
// other peers' spaces (viking://user/{uid}/peers/{other}/...) through any
// route; a header that is not one safe segment is a 400.

#include <set>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class PeerApiTest : public ApiTest {
 protected:
  // Imports one Markdown file as note.md into directory `dir` (a peer's
  // resources) and waits.
  void AddPeerResource(const std::string& dir, const std::string& text) {
    const std::string id = UploadTemp(text, "note.md");
    Reply r =
        PostJson("/api/v1/resources", {{"temp_file_id", id}, {"to", dir + "/"}, {"wait", true}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  httplib::Headers As(const std::string& peer) { return {{"X-OpenViking-Actor-Peer", peer}}; }
  std::set<std::string> Found(const std::string& query, const httplib::Headers& headers) {
    Reply r = Post("/api/v1/search/find", Json{{"query", query}, {"limit", 50}}.dump(),
                   "application/json", headers);
    EXPECT_EQ(r.status, 200) << r.raw;
    std::set<std::string> uris;
    for (const char* kind : {"resources", "memories", "skills"}) {
      for (const Json& hit : r.json["result"][kind]) uris.insert(hit["uri"]);
    }
    return uris;
  }
};

TEST_F(PeerApiTest, OtherPeersSpacesAreHiddenFromAnActorPeer) {
  const std::string peers = "viking://user/default/peers";
  AddPeerResource(peers + "/bot1/resources/otters", "# Otters\n\nSea otters hold hands.\n");
  AddPeerResource(peers + "/bot2/resources/beavers", "# Beavers\n\nBeavers build dams.\n");
  const std::string b2 = peers + "/bot2/resources/beavers";

  // Without the header: both peers.
  std::set<std::string> all = Found("otters hands beavers dams", {});
  auto under = [](const std::set<std::string>& uris, const std::string& prefix) {
    return std::any_of(uris.begin(), uris.end(),
                       [&](const std::string& u) { return u.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(under(all, peers + "/bot1/")) << Json(all).dump();
  EXPECT_TRUE(under(all, peers + "/bot2/")) << Json(all).dump();

  // As bot1: bot2's space is absent from find and listings, denied to reads
  // and writes.
  std::set<std::string> mine = Found("otters hands beavers dams", As("bot1"));
  EXPECT_TRUE(under(mine, peers + "/bot1/")) << Json(mine).dump();
  EXPECT_FALSE(under(mine, peers + "/bot2/")) << Json(mine).dump();
  Reply ls = Get("/api/v1/fs/ls?uri=" + Q(peers), As("bot1"));
  ASSERT_EQ(ls.status, 200) << ls.raw;
  std::set<std::string> listed;
  for (const Json& e : ls.json["result"]) listed.insert(e.value("uri", ""));
  EXPECT_EQ(listed.count(peers + "/bot1"), 1u) << ls.raw;
  EXPECT_EQ(listed.count(peers + "/bot2"), 0u) << ls.raw;
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(b2), As("bot1")).status, 403);
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(b2), {}).status, 200);
  Reply grep = Post("/api/v1/search/grep",
                    Json{{"uri", "viking://user/default"}, {"pattern", "dams"}}.dump(),
                    "application/json", As("bot1"));
  ASSERT_EQ(grep.status, 200) << grep.raw;
  EXPECT_EQ(grep.raw.find("bot2"), std::string::npos) << grep.raw;

  // A recursive set_tags as bot1 leaves bot2's records alone.
  Reply tagged = Post("/api/v1/fs/attrs/set_tags",
                      Json{{"uri", peers}, {"tags", {"seen=bot1"}}, {"recursive", true}}.dump(),
                      "application/json", As("bot1"));
  ASSERT_EQ(tagged.status, 200) << tagged.raw;
  EXPECT_EQ(tagged.raw.find("bot2"), std::string::npos) << tagged.raw;
  Reply b2_attrs = Get("/api/v1/fs/attrs?uri=" + Q(b2 + "/note.md"));
  ASSERT_EQ(b2_attrs.status, 200) << b2_attrs.raw;
  EXPECT_EQ(b2_attrs.json["result"]["attrs"]["tags"], Json::array()) << b2_attrs.raw;
  Reply b1_attrs = Get("/api/v1/fs/attrs?uri=" + Q(peers + "/bot1/resources/otters/note.md"));
  EXPECT_EQ(b1_attrs.json["result"]["attrs"]["tags"], Json({"seen=bot1"})) << b1_attrs.raw;

  // Subtree changes that would reach the hidden peers are refused.
  Reply rm = ToReply(client_->Delete("/api/v1/fs?recursive=true&uri=" + Q(peers), As("bot1")));
  EXPECT_EQ(rm.status, 403) << rm.raw;
  Reply mv = Post("/api/v1/fs/mv", Json{{"from_uri", peers}, {"to_uri", peers + "2"}}.dump(),
                  "application/json", As("bot1"));
  EXPECT_EQ(mv.status, 403) << mv.raw;
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(b2), {}).status, 200) << "bot2's space is intact";
  // The trace of a thinking find names no directory of bot2's.
  Reply traced = Post("/api/v1/search/find",
                      Json{{"query", "beavers dams otters"}, {"include_provenance", true}}.dump(),
                      "application/json", As("bot1"));
  ASSERT_EQ(traced.status, 200) << traced.raw;
  EXPECT_EQ(traced.raw.find("bot2"), std::string::npos) << traced.raw;

  // A header that is not one safe segment.
  Reply bad = Post("/api/v1/search/find", Json{{"query", "x"}}.dump(), "application/json",
                   As("bad/peer"));
  EXPECT_EQ(bad.status, 400) << bad.raw;
  EXPECT_NE(bad.raw.find("path separators"), std::string::npos) << bad.raw;
  EXPECT_EQ(Post("/api/v1/search/find", Json{{"query", "x"}}.dump(), "application/json",
                 As("  ")).status,
            200);
  ExpectHealthy();
}

// Other peers' spaces are left out of the search itself, not cut from its
// results: a find as bot1 returns `limit` hits of bot1's even when bot2's
// would rank first.
TEST_F(PeerApiTest, AnActorPeersFindFillsItsLimitFromWhatItSees) {
  const std::string peers = "viking://user/default/peers";
  for (int i = 0; i < 4; ++i) {
    AddPeerResource(peers + "/bot2/resources/b" + std::to_string(i),
                    "# Beavers and dams\n\nBeavers build dams. Beavers gnaw; dams of beavers.\n");
  }
  for (int i = 0; i < 4; ++i) {
    AddPeerResource(peers + "/bot1/resources/r" + std::to_string(i),
                    "# River notes " + std::to_string(i) +
                        "\n\nOtters, herons and one beaver live on the river.\n");
  }
  Reply r = Post("/api/v1/search/find", Json{{"query", "beavers dams"}, {"limit", 3}}.dump(),
                 "application/json", As("bot1"));
  ASSERT_EQ(r.status, 200) << r.raw;
  size_t hits = 0;
  for (const char* kind : {"resources", "memories", "skills"}) {
    for (const Json& hit : r.json["result"][kind]) {
      ++hits;
      EXPECT_EQ(hit["uri"].get<std::string>().rfind(peers + "/bot1/", 0), 0u) << r.raw;
    }
  }
  EXPECT_EQ(hits, 3u) << r.raw;
  // Without the header, bot2's documents rank first (the case above is real).
  Reply all = Post("/api/v1/search/find", Json{{"query", "beavers dams"}, {"limit", 3}}.dump(),
                   "application/json");
  ASSERT_EQ(all.status, 200) << all.raw;
  EXPECT_NE(all.raw.find("/bot2/"), std::string::npos) << all.raw;
}

}  // namespace
}  // namespace skald::apitest
