#pragma once

// The L0/L1 of a committed archive without a model: who spoke (roles and
// peers with message counts), when (first and last message time), topics
// (the most frequent content words) and key statements (the leading
// sentence of the most informative messages, in order), plus the extractive
// summarizer's summary of the transcript.
//
// Thread safety: pure functions (the summarizer is safe for concurrent use).

#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "text/summarizer.h"

namespace skald {

struct ArchiveSummary {
  std::string overview;  // L1 markdown: "# …", a description paragraph, then sections
  std::string abstract;  // L0: the description paragraph (AbstractFromOverview)
};

// `messages` are stored messages (session/message.h), oldest first.
ArchiveSummary SummarizeArchive(Summarizer& summarizer, std::string_view session_id,
                                std::string_view archive_name, const std::vector<Json>& messages);

}  // namespace skald
