# Model-free memory extraction, date resolution, dedup/merge decisions and the
# memory file format (pure library code; the session store and commit job
# live in the main session target and call into this one).
add_library(skald_session_memory
  date_resolver.cc
  memory_types.cc
  memory_extractor.cc
  memory_merge.cc
  statement_text.cc
)
target_link_libraries(skald_session_memory PUBLIC skald_common PRIVATE PkgConfig::RE2)

if(SKALD_BUILD_TESTS)
  skald_add_test(session_memory_test
    SOURCES date_resolver_test.cc memory_extractor_test.cc memory_merge_test.cc
    LIBS skald_session_memory)
endif()
