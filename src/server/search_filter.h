#pragma once

// The `filter` of find and search: OpenViking's filter DSL (reference
// §2.4, internals §3.3), applied to a FindRequest as the conditions Skald's
// indexes evaluate while they search. Understood:
//
//   {"op":"and","conds":[...]}
//   {"op":"or","conds":[...]}            musts on one field: any of their values
//   {"op":"must","field":F,"conds":[...]} any of the values, F one of
//       context_type, search_tags (one tag per must), level, owner_user_id,
//       account_id, uri (a subtree; "para":"-d=N" keeps N levels below it,
//       "-d=0" the node itself)
//   {"op":"range","field":F,"gte"|"gt"|"lte"|"lt":...}  F created_at or
//       updated_at (times as `since`/`until` take them) or level (numbers)
//   {"op":"time_range","field":F,"gte"?,"lte"?}  the same for times
//   {"op":"prefix","field":"uri","prefix":U}     the subtree of U
//
// Conditions combine with those of the request's own fields (all must
// hold). Anything else — another op (must_not, contains, regex, ...), a
// field Skald does not keep, a value of the wrong type — is 400
// INVALID_FILTER naming it, never a silently wrong answer.
//
// Thread safety: a free function over values.

#include <cstdint>
#include <string_view>

#include "common/json_util.h"
#include "skald/options.h"
#include "skald/status.h"

namespace skald::server {

// Applies `filter` to `request` for a caller of `account`; `now_ns` anchors
// relative times ("2h").
Status ApplyFilter(const Json& filter, std::string_view account, int64_t now_ns,
                   FindRequest* request);

}  // namespace skald::server
