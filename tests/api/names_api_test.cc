// Names on disk and identities: two URIs never share storage, and ids too
// long for the file system are refused up front with a 400, not a 500.

#include <set>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class NamesApiTest : public ApiTest {
 protected:
  std::set<std::string> LsSimple(const std::string& uri) {
    Reply r = Get("/api/v1/fs/ls?simple=1&uri=" + Q(uri));
    EXPECT_EQ(r.status, 200) << r.raw;
    std::set<std::string> out;
    for (const auto& e : r.json["result"]) out.insert(e.get<std::string>());
    return out;
  }
  std::string ReadText(const std::string& uri) {
    Reply r = Get("/api/v1/content/read?uri=" + Q(uri));
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"].is_string() ? r.json["result"].get<std::string>() : "";
  }
};

TEST_F(NamesApiTest, LongSegmentAndNamesThatLookLikeItsShortFormStayDistinct) {
  const std::string long_name(300, 'a');
  // What earlier versions stored the long name as: 246 bytes, '_', the first
  // 8 hex digits of SHA-256("a" x 300). Also an ordinary name.
  const std::string old_short_form = std::string(246, 'a') + "_9835fa6b";
  const std::string cut = long_name.substr(0, 255);  // the longest plain name
  for (const std::string& name : {long_name, old_short_form, cut}) {
    Mkdir(Root() + "/" + name);
    Create(Root() + "/" + name + "/f.md", "in " + std::to_string(name.size()));
  }
  EXPECT_EQ(ReadText(Root() + "/" + long_name + "/f.md"), "in 300");
  EXPECT_EQ(ReadText(Root() + "/" + old_short_form + "/f.md"), "in 255");
  EXPECT_EQ(ReadText(Root() + "/" + cut + "/f.md"), "in 255");
  Create(Root() + "/" + cut + "/g.md", "only in the cut one");
  EXPECT_EQ(LsSimple(Root()), (std::set<std::string>{Root() + "/" + long_name,
                                                      Root() + "/" + old_short_form,
                                                      Root() + "/" + cut}));
  EXPECT_EQ(LsSimple(Root() + "/" + long_name), (std::set<std::string>{
                                                    Root() + "/" + long_name + "/f.md"}));
  EXPECT_EQ(LsSimple(Root() + "/" + old_short_form),
            (std::set<std::string>{Root() + "/" + old_short_form + "/f.md"}));

  // Names are shortened today as "<prefix>\<hash>": the backslash is refused
  // in every URI, so no one can name a node like a shortened name.
  Reply mimic = PostJson("/api/v1/fs/mkdir",
                         {{"uri", Root() + "/" + std::string(222, 'a') + "\\" +
                                      std::string(32, '0')}});
  EXPECT_EQ(mimic.status, 403) << mimic.raw;
  EXPECT_EQ(mimic.Code(), "PERMISSION_DENIED");
  EXPECT_NE(mimic.raw.find("backslash"), std::string::npos) << mimic.raw;
}

TEST_F(NamesApiTest, OverlongIdentityHeadersAre400WithoutAPath) {
  const std::string huge(300, 'a');
  for (const char* header : {"X-OpenViking-Account", "X-OpenViking-User"}) {
    Reply r = Get("/api/v1/fs/ls?uri=" + Q("viking://resources"), {{header, huge}});
    EXPECT_EQ(r.status, 400) << header << ": " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
    std::string message = r.json["error"].value("message", "");
    EXPECT_NE(message.find(header), std::string::npos) << message;
    EXPECT_NE(message.find("128"), std::string::npos) << message;
    EXPECT_EQ(r.raw.find(workspace_->path()), std::string::npos) << r.raw;
    EXPECT_EQ(r.raw.find("/content/"), std::string::npos) << r.raw;
  }
  // At the limit the id works.
  Reply ok = Get("/api/v1/fs/ls?uri=" + Q("viking://resources"),
                 {{"X-OpenViking-Account", std::string(128, 'b')}});
  EXPECT_EQ(ok.status, 200) << ok.raw;
  ExpectHealthy();
}

}  // namespace
}  // namespace skald::apitest
