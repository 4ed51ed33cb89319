#!/usr/bin/env python3
"""The test of the layering check: plants each kind of violation in a small tree that mirrors
ours (core, views, app, runtime/launch, tests/bench), compiles nothing but preprocesses it with
the real compiler and include paths of our build, and expects check_layering.py to fail naming
the file and the header. The same tree without a plant must pass.

    test_check_layering.py --build BUILD_DIR
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_layering.py")

CLEAN = {
    "core/c.h": "#pragma once\n#include <vector>\nint coreValue();\n",
    "core/c.cpp": '#include "core/c.h"\nint coreValue() { return 1; }\n',
    "views/v.h": '#pragma once\n#include "core/c.h"\n#include <QString>\nQString viewText();\n',
    "views/v.cpp": '#include "views/v.h"\nQString viewText() { return QString::number(coreValue()); }\n',
    "app/a.h": '#pragma once\n#include "views/v.h"\n',
    "app/a.cpp": '#include "app/a.h"\nint main() { return viewText().size(); }\n',
    "runtime/launch/l.cpp": "#include <QString>\nQString launchText() { return {}; }\n",
    "tests/bench/b.cpp": '#include "core/c.h"\nint benchValue() { return coreValue(); }\n',
}

# name, files changed or added, what the failure must name.
PLANTS = [
    ("core includes views", {"core/c.cpp": '#include "core/c.h"\n#include "views/v.h"\n'},
     ["core/c.cpp (library core) depends on views/v.h (ours)"]),
    ("core includes app", {"core/c.cpp": '#include "app/a.h"\n'},
     ["core/c.cpp (library core) depends on app/a.h (ours)"]),
    ("views includes app", {"views/v.cpp": '#include "views/v.h"\n#include "app/a.h"\n'},
     ["views/v.cpp (library views) depends on app/a.h (ours)"]),
    ("runtime/launch includes MPI", {"runtime/launch/l.cpp": "#include <mpi.h>\n"},
     ["runtime/launch/l.cpp (library launch) depends on", "(package mpi)"]),
    ("tests/bench includes torch", {"tests/bench/b.cpp": "#include <c10/macros/Macros.h>\n"},
     ["tests/bench/b.cpp (library bench) depends on", "(package torch)"]),
    ("an include written with spaces", {"core/c.cpp": "#  include   <QString>\n"},
     ["core/c.cpp (library core) depends on", "QtCore/", "(package qt-core)"]),
    ("an include through a macro", {"core/c.cpp": "#define HEADER <QObject>\n#include HEADER\n"},
     ["core/c.cpp (library core) depends on", "(package qt-core)"]),
    ("a violation two headers deep", {"core/d.h": "#pragma once\n#include <QString>\n",
                                      "core/c.h": '#pragma once\n#include "core/d.h"\n'},
     ["core/c.cpp (library core) depends on", "(package qt-core)"]),
    ("a core header only views include", {"core/only.h": '#pragma once\n#include "app/a.h"\n',
                                          "views/v.cpp": '#include "core/only.h"\n'},
     ["core/only.h (library core) depends on app/a.h (ours)"]),
    ("a third-party header no package claims", {"core/c.cpp": "#include <bzlib.h>\n"},
     ["core/c.cpp (library core) depends on /usr/include/bzlib.h (a header no package of the rules claims)"]),
]


def base_command(build):
    """The compiler and the third-party include flags of one of our runtime objects (it sees
    Qt, MPI and torch), without its own source folder."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    for e in entries:
        if "/runtime/exec/" in e["file"]:
            args = shlex.split(e["command"]) if "command" in e else e["arguments"]
            keep, i = [], 0
            while i < len(args):
                a = args[i]
                if a in ("-isystem", "-D"):
                    keep += [a, args[i + 1]]
                    i += 2
                    continue
                if a.startswith("-D") or a.startswith("-std="):
                    keep.append(a)
                i += 1
            compiler = args[1] if os.path.basename(args[0]) == "ccache" else args[0]
            return [compiler] + keep
    raise SystemExit("test_check_layering: no runtime/exec object in compile_commands.json")


def run_tree(files, base, with_ninja=False):
    """Writes the tree and its compile_commands.json and runs the check on it. With `with_ninja`
    the objects are first made by Ninja (preprocessed only, with -MD), so the check reads the
    dependencies Ninja recorded instead of preprocessing itself."""
    with tempfile.TemporaryDirectory(prefix="tapas-layering-") as root:
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        build = os.path.join(root, "build")
        os.makedirs(build)
        entries = []
        for rel in sorted(files):
            if rel.endswith(".cpp"):
                cmd = base + ["-I" + root, "-o", rel + ".o", "-c", os.path.join(root, rel)]
                entries.append({"directory": build, "file": os.path.join(root, rel), "output": rel + ".o",
                                "command": " ".join(shlex.quote(c) for c in cmd)})
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(entries, f)
        if with_ninja:
            rules = ["rule cxx", "  command = $cmd -E -MD -MF $out.d", "  depfile = $out.d", "  deps = gcc", ""]
            for e in entries:
                rules += [f"build {e['output']}: cxx {e['file']}", f"  cmd = {e['command']}", ""]
            with open(os.path.join(build, "build.ninja"), "w") as f:
                f.write("\n".join(rules))
            made = subprocess.run(["ninja", "-C", build], capture_output=True, text=True)
            if made.returncode != 0:
                return made.returncode, "ninja failed:\n" + made.stdout + made.stderr
        r = subprocess.run([sys.executable, CHECK, "--build", build, "--source", root], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    base = base_command(a.build)
    failures = 0
    rc, out = run_tree(CLEAN, base)
    if rc != 0:
        print(f"FAIL clean tree: the check failed on a tree that keeps the rules:\n{out}")
        failures += 1
    else:
        print("PASS clean tree passes")
    cases = [(name, plant, expected, False) for name, plant, expected in PLANTS]
    # The same check on the dependencies Ninja recorded, as for the real build.
    if shutil.which("ninja"):
        rc, out = run_tree(CLEAN, base, with_ninja=True)
        objects = sum(rel.endswith(".cpp") for rel in CLEAN)
        if rc != 0 or f"({objects} with the dependencies the build recorded, 0 preprocessed)" not in out:
            print(f"FAIL clean tree built by Ninja: expected a pass read from Ninja's dependencies:\n{out}")
            failures += 1
        else:
            print("PASS clean tree built by Ninja passes, read from Ninja's dependencies")
        cases += [(name + " (built by Ninja)", plant, expected, True) for name, plant, expected in PLANTS[:1] + PLANTS[8:9]]
    for name, plant, expected, with_ninja in cases:
        if "bzlib.h" in str(plant) and not os.path.exists("/usr/include/bzlib.h"):
            print(f"SKIP {name}: /usr/include/bzlib.h (libbz2-dev) is not installed")
            continue
        files = dict(CLEAN)
        files.update(plant)
        rc, out = run_tree(files, base, with_ninja)
        line = next((ln for ln in out.splitlines() if all(x in ln for x in expected)), None)
        if rc != 1 or line is None:
            print(f"FAIL {name}: expected exit 1 and a line with {expected}, got exit {rc}:\n{out}")
            failures += 1
        else:
            print(f"PASS {name}: {line[:160]}")
    print(f"{'FAIL' if failures else 'PASS'}: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
