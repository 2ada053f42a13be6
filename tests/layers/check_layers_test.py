#!/usr/bin/env python3
"""Tests of scripts/check-layers on small trees planted in a temporary directory.

Usage: check_layers_test.py <scripts/check-layers> <docs/architecture.md> <case>...
Cases: back_edge (a header of `common` including one of `service`), rules (the
other rules: CMake links, peers, public headers, tests, a missing order).
Each tree is first checked clean (exit 0), then with one planted edge (exit 1
and a message naming file and line), so the script cannot pass by always
failing or always succeeding.
"""

import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT, DOC = sys.argv[1], sys.argv[2]
failures = []

BASE = {
    "src/common/x.h": "#pragma once\n\nint X();\n",
    "src/common/x_test.cc": '#include "common/x.h"\n#include "tests/testutil/temp_dir.h"\n',
    "src/service/y.h": '#pragma once\n\n#include "common/x.h"\n#include "skald/status.h"\n',
    "src/server/s.h": '#pragma once\n#include "service/y.h"\n',
    "src/cli/c.cc": '#include "server/s.h"\n#include <vector>\n#include "httplib.h"\n',
    "src/model/fake_thing.h": '#pragma once\n#include "tests/testutil/temp_dir.h"\n',
    "src/retrieve/r_test.cc": '#include "model/fake_thing.h"\n',
    "include/skald/status.h": "#pragma once\n",
    "include/skald/db.h": '#pragma once\n#include "skald/status.h"\n',
    "tests/testutil/temp_dir.h": "#pragma once\n",
    "src/common/CMakeLists.txt": "add_library(skald_common x.cc)\n",
    "src/service/CMakeLists.txt": (
        "add_library(skald_service y.cc)\n"
        "target_link_libraries(skald_service PUBLIC skald_common  # a comment (with parens)\n"
        "  PRIVATE fmt::fmt)\n"),
    "src/model/CMakeLists.txt": (
        "add_library(skald_model m.cc)\n"
        "add_library(skald_model_testing STATIC fake_thing.cc)\n"
        "skald_add_test(model_test SOURCES m_test.cc\n  LIBS skald_model skald_model_testing)\n"),
}


def run(tree):
    root = tempfile.mkdtemp(prefix="check-layers-")
    try:
        os.makedirs(os.path.join(root, "docs"))
        shutil.copy(DOC, os.path.join(root, "docs", "architecture.md"))
        for rel, text in tree.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if text is None:
                continue
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True,
                           text=True)
        return p.returncode, p.stdout + p.stderr
    finally:
        shutil.rmtree(root)


def expect_clean(name, tree):
    code, out = run(tree)
    if code != 0:
        failures.append(f"{name}: expected exit 0 on a clean tree, got {code}:\n{out}")


def expect_rejected(name, tree, message):
    code, out = run(tree)
    if code != 1:
        failures.append(f"{name}: expected exit 1, got {code}:\n{out}")
    elif message not in out.splitlines():
        failures.append(f"{name}: expected the line {message!r} in:\n{out}")


def case_back_edge():
    expect_clean("clean tree", BASE)
    tree = dict(BASE)
    tree["src/common/x.h"] = '#pragma once\n\n#include "service/y.h"\n\nint X();\n'
    expect_rejected("common includes service", tree,
                    "src/common/x.h:3: common may not include service/y.h (service)")


def case_rules():
    def with_file(rel, text):
        tree = dict(BASE)
        tree[rel] = text
        return tree

    expect_rejected("CMake back-edge", with_file(
        "src/common/CMakeLists.txt",
        "add_library(skald_common x.cc)\ntarget_link_libraries(skald_common\n"
        "  PUBLIC fmt::fmt skald_service)\n"),
        "src/common/CMakeLists.txt:3: common may not link skald_service (service)")
    expect_rejected("server and cli are peers", with_file(
        "src/server/s.h", '#pragma once\n#include "service/y.h"\n#include "cli/c.h"\n'),
        "src/server/s.h:3: server may not include cli/c.h (cli)")
    expect_rejected("public header includes a higher public header", with_file(
        "include/skald/status.h", '#pragma once\n#include "skald/db.h"\n'),
        "include/skald/status.h:2: common may not include skald/db.h (service)")
    expect_rejected("public header includes src", with_file(
        "include/skald/db.h", '#pragma once\n#include "common/x.h"\n'),
        "include/skald/db.h:2: service may not include common/x.h "
        "(common; public headers include only public headers)")
    expect_rejected("src includes a public header of a higher layer", with_file(
        "src/common/x.h", '#pragma once\n#include "skald/db.h"\n'),
        "src/common/x.h:2: common may not include skald/db.h (service)")
    expect_rejected("relative include", with_file(
        "src/common/x.h", '#pragma once\n#include "../service/y.h"\n'),
        "src/common/x.h:2: common may not include ../service/y.h (service)")
    expect_rejected("production code includes tests", with_file(
        "src/common/x.h", '#pragma once\n#include "tests/testutil/temp_dir.h"\n'),
        "src/common/x.h:2: common may not include tests/testutil/temp_dir.h (tests)")
    expect_rejected("production code includes test support", with_file(
        "src/retrieve/r.h", '#pragma once\n#include "model/fake_thing.h"\n'),
        "src/retrieve/r.h:2: retrieve may not include model/fake_thing.h (model test support)")
    expect_rejected("production library links test support", with_file(
        "src/service/CMakeLists.txt",
        "add_library(skald_service y.cc)\n"
        "target_link_libraries(skald_service PUBLIC skald_model_testing)\n"),
        "src/service/CMakeLists.txt:2: service may not link skald_model_testing "
        "(model test support)")
    expect_rejected("a module the order does not know", with_file(
        "src/extra/e.h", "#pragma once\n"),
        "src/extra/e.h:1: src/extra is not a module in docs/architecture.md")

    # The order must be readable: no block is a configuration error (exit 2), not a pass.
    root = tempfile.mkdtemp(prefix="check-layers-")
    try:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "architecture.md"), "w") as f:
            f.write("# No order here\n")
        p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True,
                           text=True)
        if p.returncode != 2:
            failures.append(f"missing order: expected exit 2, got {p.returncode}")
    finally:
        shutil.rmtree(root)


CASES = {"back_edge": case_back_edge, "rules": case_rules}
for case in sys.argv[3:]:
    CASES[case]()
for failure in failures:
    print("FAIL " + failure)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
