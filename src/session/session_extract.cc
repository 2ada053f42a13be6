// SessionStore::LiveForExtraction: the live messages of a session handed to
// memory extraction outside a commit (POST /api/v1/sessions/{id}/extract,
// memory_hook.h MemoryExtraction::ExtractLive).

#include "common/time_util.h"
#include "session/session_store.h"

namespace skald {

Result<ArchiveForExtraction> SessionStore::LiveForExtraction(const Identity& who,
                                                             std::string_view session_id) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(who, session));
  if (!meta) return SessionNotFound(session_id);
  ArchiveForExtraction out;
  // Memories go to the caller's own user space, as a commit's would.
  out.owner = Identity{who.account, who.user, Role::kUser};
  out.session_id = std::string(session_id);
  out.session_uri = session.str();
  out.archive_uri = session.str();  // no archive: the live messages
  SKALD_ASSIGN_OR_RETURN(out.messages, LiveMessages(who, session));
  out.committed_at_ns = NowNanos();
  return out;
}

}  // namespace skald
