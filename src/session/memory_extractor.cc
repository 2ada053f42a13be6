#include "session/memory_extractor.h"

#include <re2/re2.h>

#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "common/strings.h"
#include "session/date_resolver.h"
#include "session/memory_merge.h"
#include "session/statement_text.h"

namespace skald {
namespace {

// How a matched rule turns into a candidate.
enum class RuleKind {
  kPlain,     // capture 1 is the value
  kFavorite,  // capture 1 names the category, capture 2 the value
  kVerb,      // capture 1 is a verb, capture 2 the rest: value = both
  kWhole,     // no useful capture: the value is the whole sentence
};

struct Rule {
  std::unique_ptr<RE2> re;
  MemoryType type;
  std::string attribute;
  bool negated;
  RuleKind kind;
};

std::unique_ptr<RE2> Compile(const std::string& pattern) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  return std::make_unique<RE2>(pattern, options);
}

// The rules for statements by the user side, in priority order: the first
// rule that matches a sentence decides its type and attribute.
std::vector<Rule> BuildUserRules() {
  const std::string adv = R"((?:really |absolutely |just |also |totally |still |truly |actually )?)";
  const std::string event_verbs =
      "went|visited|attended|took|started|finished|completed|got|won|passed|graduated|joined|"
      "adopted|bought|signed up|ran|made|painted|met|received|published|launched|lost|quit|"
      "tried|learned|celebrated|traveled|travelled|hosted|organized|volunteered|gave|wrote|"
      "saw|watched|played|performed|built|created|found|decided|moved|applied|became|spent|"
      "baked|cooked|drew|camped|hiked|presented|participated|raised|donated|helped|did|"
      "had|began|taught|sang|danced|climbed|swam|explored|picked up|felt|ate|thought|heard|told|"
      "came|left|kept|knew|wore|sent|drove|flew|fell|rode|sold|brought|caught|loved|enjoyed";
  struct Spec {
    std::string pattern;
    MemoryType type;
    std::string attribute;
    bool negated;
    RuleKind kind;
  };
  const std::vector<Spec> specs = {
      {R"(\bmy name is ([A-Za-z][\w'-]*))", MemoryType::kIdentity, "name", false, RuleKind::kPlain},
      {R"(\bi(?:'m| am) (?:a |an )?((?:proud )?(?:transgender|trans|gay|lesbian|bisexual|queer|non-?binary|asexual|pansexual)\b.*))",
       MemoryType::kIdentity, "identity", false, RuleKind::kPlain},
      {R"(\bi (?:currently )?(?:work|am working|'m working) as (?:an? )?(.+))", MemoryType::kProfile,
       "occupation", false, RuleKind::kPlain},
      {R"(\bmy (?:job|career|profession) is (?:an? )?(.+))", MemoryType::kProfile, "occupation",
       false, RuleKind::kPlain},
      {R"(\bi (?:currently )?(?:work|am working|'m working) (?:at|for) (.+))", MemoryType::kProfile,
       "works_at", false, RuleKind::kPlain},
      {R"(\bi (?:currently )?(?:live|am living|'m living) in (.+))", MemoryType::kProfile,
       "lives_in", false, RuleKind::kPlain},
      {R"(\bi (?:just |recently )?(?:moved|relocated) (?:to|into) (.+))", MemoryType::kProfile,
       "lives_in", false, RuleKind::kPlain},
      {R"(\bi(?:'m| am) (?:originally )?from (.+))", MemoryType::kProfile, "from", false,
       RuleKind::kPlain},
      {R"(\bi (?:grew up|was born|was raised) in (.+))", MemoryType::kProfile, "from", false,
       RuleKind::kPlain},
      {R"(\bi(?:'m| am) (\d+ years old))", MemoryType::kProfile, "age", false, RuleKind::kPlain},
      {R"(\bi(?:'m| am) (?:currently |now )?(?:studying|majoring in|enrolled in|taking classes in) (.+))",
       MemoryType::kProfile, "studies", false, RuleKind::kPlain},
      {R"(\bi(?:'m| am) (?:happily |now )?(married|single|divorced|engaged|widowed)\b)",
       MemoryType::kProfile, "relationship_status", false, RuleKind::kPlain},
      {R"(\bi(?:'ve| have) (?:got )?((?:a|an|one|two|three|four|five|\d+) (?:kids?|children|sons?|daughters?|dogs?|cats?|pets?|brothers?|sisters?|siblings)\b.*))",
       MemoryType::kProfile, "family", false, RuleKind::kPlain},
      {R"(\bi(?:'m| am) (?:a |an )?(?:big |huge )?fan of (.+))", MemoryType::kPreferences, "likes",
       false, RuleKind::kPlain},
      {R"(\bi )" + adv +
           R"((?:don't|do not|no longer|never|didn't|can't|cannot) (?:really )?(?:like|love|enjoy|stand) (.+))",
       MemoryType::kPreferences, "likes", true, RuleKind::kPlain},
      {R"(\bi )" + adv + R"((?:hate|dislike|despise|can't stand) (.+))", MemoryType::kPreferences,
       "likes", true, RuleKind::kPlain},
      {R"(\b(?:i|we) )" + adv + R"((?:love|like|enjoy|adore|prefer) (.+))", MemoryType::kPreferences, "likes",
       false, RuleKind::kPlain},
      {R"(\bi(?:'m| am) (?:really |so |very |super )?(?:into|passionate about|obsessed with|keen on|fond of) (.+))",
       MemoryType::kPreferences, "likes", false, RuleKind::kPlain},
      {R"(\bmy (?:all-time )?favou?rite ([a-z][a-z ]{0,30}?) (?:is|are|was|has to be) (.+))",
       MemoryType::kPreferences, "favorite", false, RuleKind::kFavorite},
      {R"(\b(?:i|we) (?:usually|always|often|normally|regularly|sometimes|frequently|tend to|try to) (.+))",
       MemoryType::kPreferences, "habit", false, RuleKind::kPlain},
      {R"(\b([a-z]+)(?:'s| is) my (?:fave|favou?rite)\b)", MemoryType::kPreferences, "likes", false,
       RuleKind::kPlain},
      {R"(\bi find (?:it|them|that) (?:so |really |very )?(.+))", MemoryType::kPreferences, "finds",
       false, RuleKind::kPlain},
      {R"(\b(.+?) (?:is|are|means|mean) (?:so |really |very |super )?(?:important|special|meaningful|precious|dear) to (?:me|us)\b)",
       MemoryType::kPreferences, "values", false, RuleKind::kPlain},
      {R"(\bi (?:really |truly |also )?(?:appreciate|value|cherish|admire) (.+))",
       MemoryType::kPreferences, "values", false, RuleKind::kPlain},
      {R"(^(?:just )?been ([a-z]+ing)\b(.*))", MemoryType::kEvents, "event", false, RuleKind::kVerb},
      {R"(\b(?:i|we)(?:'ve| have) always (?:had |been )?(.+))", MemoryType::kPreferences, "habit",
       false, RuleKind::kPlain},
      {R"(\b(?:i|we) used to (.+))", MemoryType::kProfile, "used_to", false, RuleKind::kPlain},
      {R"(\b(?:i|we) (play|paint|run|swim|write|volunteer|teach|read|cook|bake|draw|sing|dance|hike|collect|practice|go|make|keep|spend|listen to|watch|work on)\b(.+))",
       MemoryType::kPreferences, "activity", false, RuleKind::kVerb},
      {R"(\b(?:every|each) (?:morning|day|night|evening|week|weekend|month|year|summer|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)",
       MemoryType::kPreferences, "habit", false, RuleKind::kWhole},
      {R"(\b(?:i(?:'m| am)|we(?:'re| are)) (?:going|planning|hoping|about|thinking of|thinking about|considering|looking forward to) (?:to )?(.+))",
       MemoryType::kEvents, "plan", false, RuleKind::kPlain},
      {R"(\b(?:i'm|i am|we're|we are) (?:so |really |super )?(?:thrilled|excited|stoked|happy|ready|eager|off|determined|gonna) to (.+))",
       MemoryType::kEvents, "plan", false, RuleKind::kPlain},
      {R"(\b(?:i'm|i am|we're|we are) gonna (.+))", MemoryType::kEvents, "plan", false,
       RuleKind::kPlain},
      {R"(\bmy (?:love|passion) (?:of|for) (.+))", MemoryType::kPreferences, "likes", false,
       RuleKind::kPlain},
      {R"(\b(?:i|we) (?:will|plan to|want to|hope to|intend to|am gonna|gonna|would like to|would love to) (.+))",
       MemoryType::kEvents, "plan", false, RuleKind::kPlain},
      {R"(\b(?:i'll|we'll|i'd love to|i'd like to) (.+))", MemoryType::kEvents, "plan", false,
       RuleKind::kPlain},
      {R"(^(?:gonna|going to|planning to) (.+))", MemoryType::kEvents, "plan", false,
       RuleKind::kPlain},
      {R"(\b(?:i|we|[a-z]+ and i) (?:just |finally |recently |also |actually |even |once )?()" +
           event_verbs + R"()\b(.*))",
       MemoryType::kEvents, "event", false, RuleKind::kVerb},
      {R"(^(?:just |recently |finally |also )?()" + event_verbs + R"()\b(.*))", MemoryType::kEvents,
       "event", false, RuleKind::kVerb},
      {R"(\b(?:i|we)(?:'ve| have) (?:just |finally |recently |also |been )?(been|started|finished|completed|got|gotten|won|joined|adopted|bought|taken|made|painted|learned|read|seen|met|visited|volunteered|written|decided|tried|begun|signed up|raised|done|found|had|loved|enjoyed|spent|worked|lived|known|kept)\b(.*))",
       MemoryType::kEvents, "event", false, RuleKind::kVerb},
      {R"(\b(?:i|we) (?:just |finally |recently |also |actually |even )?([a-z]+ed)\b(.*))",
       MemoryType::kEvents, "event", false, RuleKind::kVerb},
      {R"(\bi(?:'m| am) (?:an? )(.+))", MemoryType::kProfile, "is_a", false, RuleKind::kPlain},
      {R"(\bmy ((?:son|daughter|kids?|children|husband|wife|partner|family|dad|father|mom|mother|sister|brother|friends?|dog|cat|pets?|grandma|grandpa|parents|boss|job|home|house)\b.+))",
       MemoryType::kEntities, "family", false, RuleKind::kPlain},
  };
  std::vector<Rule> rules;
  for (const Spec& s : specs) {
    rules.push_back({Compile(s.pattern), s.type, s.attribute, s.negated, s.kind});
  }
  return rules;
}

// Assistant-side statements: solutions (cases), standing guidance (patterns),
// tools and skills.
std::vector<Rule> BuildAssistantRules() {
  std::vector<Rule> rules;
  rules.push_back({Compile(R"(\busing the `?([\w.-]+)`? skill\b)"), MemoryType::kSkills, "skill",
                   false, RuleKind::kPlain});
  rules.push_back({Compile(R"(\b(?:ran|called|used|invoked|executed) (?:the )?`?([\w.-]+)`? (?:tool|command|script)\b)"),
                   MemoryType::kTools, "tool", false, RuleKind::kPlain});
  rules.push_back({Compile(R"(\b(?:to (?:fix|solve|resolve|avoid|handle)|the (?:fix|solution|cause|problem|issue) (?:is|was))\b(.*))"),
                   MemoryType::kCases, "case", false, RuleKind::kPlain});
  rules.push_back({Compile(R"(\b(?:always|never|make sure|best practice|you should|it's better to)\b(.*))"),
                   MemoryType::kPatterns, "pattern", false, RuleKind::kPlain});
  return rules;
}

struct Rules {
  std::vector<Rule> user = BuildUserRules();
  std::vector<Rule> assistant = BuildAssistantRules();
  std::unique_ptr<RE2> relation = Compile(
      R"(\bmy (?:(?:little|big|older|younger|best|oldest|youngest|new) )?(sister|brother|mom|mother|dad|father|son|daughter|wife|husband|partner|friend|boyfriend|girlfriend|boss|coworker|colleague|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|nephew|dog|cat|puppy|kitten|pet|neighbor|mentor|teacher),? ((?-i:[A-Z][a-z]+))\b)");
};

const Rules& GetRules() {
  static const Rules kRules;
  return kRules;
}

struct Found {
  MemoryType type;
  std::string attribute;
  std::string value;
  bool negated;
};

std::optional<Found> MatchRules(const std::vector<Rule>& rules, const std::string& sentence) {
  for (const Rule& rule : rules) {
    std::string a;
    std::string b;
    bool hit = false;
    switch (rule.kind) {
      case RuleKind::kPlain:
        hit = RE2::PartialMatch(sentence, *rule.re, &a);
        break;
      case RuleKind::kFavorite:
      case RuleKind::kVerb:
        hit = RE2::PartialMatch(sentence, *rule.re, &a, &b);
        break;
      case RuleKind::kWhole:
        hit = RE2::PartialMatch(sentence, *rule.re);
        a = sentence;
        break;
    }
    if (!hit) continue;
    Found f{rule.type, rule.attribute, "", rule.negated};
    if (rule.kind == RuleKind::kFavorite) {
      f.attribute = "favorite_" + Slug(a, 2);
      f.value = ValuePhrase(b);
    } else if (rule.kind == RuleKind::kVerb) {
      f.value = ValuePhrase(AsciiLower(a) + b);
    } else {
      f.value = ValuePhrase(a);
    }
    if (rule.attribute == "likes" && IsReactionObject(f.value)) continue;
    if (rule.attribute == "is_a") {
      std::string first = AsciiLower(f.value.substr(0, f.value.find(' ')));
      if (first == "bit" || first == "little" || first == "lot" || first == "huge" ||
          first == "big" || f.value.empty()) {
        continue;
      }
    }
    if (f.value.empty() && rule.kind != RuleKind::kWhole) continue;
    // "Yes, I did." / "I love to." / "I appreciate it.": no object, no fact.
    if (rule.kind == RuleKind::kVerb && f.value.find(' ') == std::string::npos) continue;
    if (rule.kind == RuleKind::kPlain && (MatchTerms(f.value).empty() ||
                                          (f.type == MemoryType::kPreferences && IsReactionObject(f.value)))) {
      continue;
    }
    return f;
  }
  return std::nullopt;
}

bool IsFirstPerson(std::string_view lower) {
  static const std::unique_ptr<RE2> kRe = Compile(R"(\b(?:i|i'm|i've|i'd|i'll|my|me|we|our|us|we're|we've)\b)");
  return RE2::PartialMatch(lower, *kRe);
}

}  // namespace

std::vector<MemoryCandidate> ExtractMemories(const std::vector<ConversationMessage>& messages,
                                             const SessionContext& context,
                                             const ExtractorOptions& options) {
  const Rules& rules = GetRules();
  std::vector<MemoryCandidate> out;
  std::map<std::string, size_t> by_id;

  std::optional<CivilDateTime> session_time;
  if (Result<CivilDateTime> t = ParseDateTime(context.session_time); t.ok()) session_time = *t;

  // Speaker names are not entities of their own statements.
  std::unordered_set<std::string> speakers;
  for (const ConversationMessage& m : messages) {
    if (!m.speaker.empty()) speakers.insert(AsciiLower(m.speaker));
  }

  // The last question asked (its sentence and asker): a reply that states no
  // fact of its own is kept as the answer to it ("Luna and Oliver!").
  std::string question;
  std::string asker;
  for (const ConversationMessage& message : messages) {
    if (message.role == "system") continue;
    bool assistant = message.role == "assistant";
    std::string speaker = message.speaker;
    if (speaker.empty()) {
      speaker = assistant ? (context.assistant_name.empty() ? "Assistant" : context.assistant_name)
                          : (context.user_name.empty() ? "User" : context.user_name);
    }
    std::optional<CivilDateTime> when = session_time;
    if (!message.time.empty()) {
      if (Result<CivilDateTime> t = ParseDateTime(message.time); t.ok()) when = *t;
    }
    std::string time = when ? when->ToString() : message.time;
    std::string speaker_key = AsciiLower(speaker);

    size_t emitted = 0;
    std::vector<std::string> statements;
    for (const std::string& sentence : SplitSentences(message.text)) {
      for (std::string& clause : SplitClauses(sentence)) statements.push_back(std::move(clause));
    }
    for (const std::string& sentence : statements) {
      if (options.max_per_message > 0 && emitted >= options.max_per_message) break;
      if (sentence.back() == '?') continue;
      if (WordCount(sentence) < options.min_words) continue;
      std::string lower = AsciiLower(sentence);
      bool first_person = IsFirstPerson(lower);
      std::vector<ResolvedDate> dates;
      if (when) dates = FindDates(sentence, when->date);

      std::optional<Found> found = MatchRules(assistant ? rules.assistant : rules.user, sentence);
      if (found && !first_person && !assistant && found->type != MemoryType::kEvents) found.reset();
      // A dated statement is an event even without "I": "Here's to the café last weekend".
      if (!found && !assistant && !dates.empty() && (first_person || WordCount(sentence) >= 5)) {
        found = Found{MemoryType::kEvents, "event", ValuePhrase(sentence), false};
      }

      std::vector<MemoryCandidate> here;
      auto make = [&](MemoryType type, std::string subject, std::string attribute,
                      std::string value, bool negated, std::string text) {
        MemoryCandidate c;
        c.type = type;
        c.subject = std::move(subject);
        c.attribute = std::move(attribute);
        c.value = std::move(value);
        c.negated = negated;
        c.text = CutText(std::move(text), options.max_text_bytes);
        c.speaker = speaker;
        c.session_id = context.session_id;
        c.message_ids = {message.id};
        AddQuotes({message.line}, &c.quotes);
        c.time = time;
        if (!dates.empty()) c.event_date = dates.front().ToString();
        here.push_back(std::move(c));
      };
      std::string rendered = ThirdPerson(InsertDates(sentence, dates), speaker);
      if (rendered.find(speaker) == std::string::npos) rendered = speaker + ": " + rendered;

      if (found) {
        std::string subject = speaker_key + "/" + found->attribute;
        if (found->type == MemoryType::kEvents) {
          std::string day = !dates.empty() ? dates.front().ToString()
                                           : (when ? when->date.ToString() : std::string());
          subject += "/" + day + "/" + Slug(found->value, 3);
        } else if (!IsSingleValuedAttribute(found->attribute)) {
          subject += "/" + Slug(found->value, 2);
        }
        make(found->type, subject, found->attribute, found->value, found->negated, rendered);
      }

      if (!assistant) {
        // "my sister Anna …": Anna is an entity whose relation to the speaker is known.
        std::string relation;
        std::string name;
        if (RE2::PartialMatch(sentence, *rules.relation, &relation, &name) &&
            speakers.count(AsciiLower(name)) == 0 && !IsCommonCapitalized(name)) {
          make(MemoryType::kEntities, "entity/" + AsciiLower(name), "relation",
               AsciiLower(relation), false,
               name + " is " + speaker + "'s " + AsciiLower(relation) + ". " + rendered);
        } else if (!found) {
          std::vector<std::string> names = NamedEntities(sentence, speakers);
          if (!names.empty() && (first_person || WordCount(sentence) >= 6)) {
            make(MemoryType::kEntities, "entity/" + AsciiLower(names.front()), "entity",
                 names.front(), false, rendered);
          }
        }
      }

      for (MemoryCandidate& c : here) {
        c.id = MemoryStableId(c.type, c.subject, c.text);
        auto it = by_id.find(c.id);
        if (it != by_id.end()) {
          std::vector<std::string>& ids = out[it->second].message_ids;
          if (std::find(ids.begin(), ids.end(), message.id) == ids.end()) ids.push_back(message.id);
          continue;
        }
        by_id.emplace(c.id, out.size());
        out.push_back(std::move(c));
        ++emitted;
      }
    }

    if (emitted == 0 && !assistant && !question.empty() && asker != speaker) {
      std::string answer;
      bool names = false;
      for (const std::string& st : SplitSentences(message.text)) {
        if (st.back() == '?' || WordCount(answer) + WordCount(st) > 40) break;
        if (WordCount(st) <= 4 && IsInterjection(st)) continue;  // "Thanks, Mel!"
        names = names || !NamedEntities(st, speakers).empty() ||
                (std::isupper(static_cast<unsigned char>(st[0])) && WordCount(st) <= 3 &&
                 !IsInterjection(st));
        answer += (answer.empty() ? "" : " ") + st;
      }
      if (!answer.empty() && (names || (IsFirstPerson(AsciiLower(answer)) && WordCount(answer) >= 6))) {
        std::vector<ResolvedDate> dates;
        if (when) dates = FindDates(answer, when->date);
        std::string q = AddressedTo(ThirdPerson(question, asker), speaker);
        MemoryCandidate c;
        c.type = !dates.empty() || AsciiLower(question).find("when") != std::string::npos
                     ? MemoryType::kEvents
                     : (names ? MemoryType::kEntities : MemoryType::kProfile);
        c.attribute = "answer";
        c.value = ValuePhrase(answer);
        c.subject = speaker_key + "/answer/" + Slug(question, 3);
        c.text = CutText(asker + " asked: " + q + " " + speaker + ": " +
                             ThirdPerson(InsertDates(answer, dates), speaker),
                         options.max_text_bytes);
        c.speaker = speaker;
        c.session_id = context.session_id;
        c.message_ids = {message.id};
        AddQuotes({message.line}, &c.quotes);
        c.time = time;
        if (!dates.empty()) c.event_date = dates.front().ToString();
        c.id = MemoryStableId(c.type, c.subject, c.text);
        if (by_id.emplace(c.id, out.size()).second) out.push_back(std::move(c));
      }
    }
    question.clear();
    if (!statements.empty() && statements.back().back() == '?') {
      question = statements.back();
      asker = speaker;
    }
  }
  return out;
}

}  // namespace skald
