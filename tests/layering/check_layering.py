#!/usr/bin/env python3
"""The dependency rules between Tapas Studio's libraries, checked on what the compiler includes.

Each library owns folders and has an allow-list: the folders of ours and the third-party
packages its files may include. The includes come from the compiler, not from reading
#include lines: the dependency lists Ninja recorded from each object's compile (`ninja -t
deps`), or for an object without them a real preprocessor pass (`-M`) with the object's own
command from compile_commands.json. A dependency list is transitive, so a file breaks its
library's rule whether it includes a forbidden header itself or through another header.
A header no object of its own library reaches is preprocessed alone, with the command of one
of that library's objects, so a core header used only by views is still held to core's rule.

    check_layering.py --build BUILD_DIR [--source SOURCE_DIR]

Prints one line per violation naming the file, the header and the rule, and exits 1 if any.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

realpath = lru_cache(maxsize=None)(os.path.realpath)

# Third-party packages by the path their headers live under (longest prefix wins). A header
# under none of them is an error: a new dependency is added here on purpose.
PACKAGES = [
    ("/usr/include/c++/", "system"),
    ("/usr/include/x86_64-linux-gnu/c++/", "system"),
    ("/usr/lib/gcc/", "system"),
    ("/usr/include/x86_64-linux-gnu/bits/", "system"),
    ("/usr/include/x86_64-linux-gnu/gnu/", "system"),
    ("/usr/include/x86_64-linux-gnu/sys/", "system"),
    ("/usr/include/x86_64-linux-gnu/asm/", "system"),
    ("/usr/include/linux/", "system"),
    ("/usr/include/asm-generic/", "system"),
    ("/usr/include/nlohmann/", "json"),
    ("/usr/include/onnx/", "onnx"),
    ("/usr/include/google/protobuf/", "protobuf"),
    ("/usr/include/graphviz/", "graphviz"),
    ("/usr/include/coin/", "cbc"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtCore/", "qt-core"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtGui/", "qt-gui"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtWidgets/", "qt-widgets"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtNetwork/", "qt-network"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtConcurrent/", "qt-concurrent"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtCharts/", "qt-charts"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtSvg/", "qt-svg"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtOpenGL/", "qt-widgets"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtOpenGLWidgets/", "qt-widgets"),
    ("/usr/include/x86_64-linux-gnu/qt6/QtTest/", "qt-test"),
    ("/usr/include/GL/", "gl"),
    ("/usr/include/KHR/", "gl"),
    ("/usr/include/EGL/", "gl"),
    ("/usr/include/vulkan/", "gl"),
    ("/usr/include/xkbcommon/", "gl"),
    ("/usr/lib/x86_64-linux-gnu/openmpi/include/", "mpi"),
    ("/usr/include/x86_64-linux-gnu/openmpi/", "mpi"),
    ("/usr/include/x86_64-linux-gnu/mpich/", "mpi"),
    ("/usr/include/torch/", "torch"),
    ("/usr/include/ATen/", "torch"),
    ("/usr/include/c10/", "torch"),
    ("/usr/include/caffe2/", "torch"),
    ("/usr/include/gloo/", "torch"),
    ("/usr/include/tensorpipe/", "torch"),
    ("/usr/include/fmt/", "torch"),
    ("/usr/include/pybind11/", "torch"),
    ("/usr/include/glog/", "torch"),
    ("/usr/include/gflags/", "torch"),
    ("/usr/local/cuda", "cuda"),
]
# Single headers at the top of /usr/include that belong to a package, not to libc.
TOP_LEVEL = {"mpi.h": "mpi", "mpi_portable_platform.h": "mpi", "nccl.h": "cuda", "zlib.h": "zlib", "zconf.h": "zlib"}

# What allowing a package brings along (its own headers include these).
IMPLIES = {"qt-gui": {"qt-core", "gl"}, "qt-widgets": {"qt-gui", "qt-core", "gl"}, "qt-network": {"qt-core"},
           "qt-concurrent": {"qt-core"}, "qt-charts": {"qt-widgets", "qt-gui", "qt-core", "gl"},
           "qt-svg": {"qt-gui", "qt-core", "gl"}, "qt-test": {"qt-core", "qt-gui", "qt-widgets", "gl"},
           "onnx": {"protobuf"}, "torch": {"protobuf"}}

QT_ALL = {"qt-core", "qt-gui", "qt-widgets", "qt-network", "qt-concurrent", "qt-charts", "qt-svg"}

# name, folders it owns, folders it may include ("!" excludes a subfolder), packages it may include.
# A file belongs to the library with the longest owned folder that contains it.
LIBRARIES = [
    ("core", ["core"], ["core"], {"system", "json", "onnx", "protobuf", "graphviz", "cbc"}),
    ("protocol", ["runtime/protocol"], ["core", "runtime/protocol"], {"system", "json"}),
    ("launch", ["runtime/launch"], ["core", "runtime/protocol", "runtime/launch"],
     {"system", "json", "qt-core", "qt-network"}),
    ("cuda", ["runtime/cuda"], ["runtime/cuda"], {"system", "cuda"}),
    # zlib: the worker reads Fashion-MNIST's gzip'd IDX files.
    ("runtime", ["runtime"], ["core", "runtime", "!runtime/launch"],
     {"system", "json", "mpi", "torch", "cuda", "qt-core", "qt-gui", "zlib"}),
    ("views", ["views"], ["core", "runtime/protocol", "views"], {"system", "json"} | QT_ALL),
    ("app", ["app"], ["core", "runtime/protocol", "runtime/launch", "views", "app", "tests/bench/bench.h"],
     {"system", "json"} | QT_ALL),
    # The benchmarks time the graphs the tests build (a Relu chain) and run the real models the
    # tests train (one table of workloads): those fixtures, not the rest of tests/common.
    ("bench", ["tests/bench"], ["core", "runtime/protocol", "runtime/launch", "views", "app", "tests/bench",
                                "tests/common/chain_graph.h", "tests/common/real_model_workloads.h"],
     {"system", "json"} | QT_ALL),
    ("tests/core", ["tests/core", "tests/fuzz"], ["core", "tests/core", "tests/fuzz", "tests/common"],
     {"system", "json", "onnx", "protobuf", "qt-test"}),
    ("tests/views", ["tests/views"], ["core", "runtime/protocol", "views", "tests/views", "tests/common"],
     {"system", "json", "qt-test"} | QT_ALL),
    ("tests/launch", ["tests/launch"], ["core", "runtime/protocol", "runtime/launch", "tests/launch", "tests/common"],
     {"system", "json", "qt-test", "qt-core", "qt-network"}),
    ("tests/app", ["tests/app"],
     ["core", "runtime/protocol", "runtime/launch", "views", "app", "tests/app", "tests/views", "tests/common",
      "tests/core/onnx_test_models.h"],
     {"system", "json", "qt-test", "onnx", "protobuf"} | QT_ALL),
    ("tests/runtime", ["tests/runtime", "tests/gpu"], ["core", "runtime", "tests/runtime", "tests/gpu", "tests/common"],
     {"system", "json", "qt-test", "mpi", "torch", "cuda", "zlib"} | QT_ALL),
    ("tests/common", ["tests/common"], ["core", "runtime/protocol", "tests/common"], {"system", "json", "qt-test"} | QT_ALL),
]


def closure(packages):
    out = set(packages)
    while True:
        more = set().union(*(IMPLIES.get(p, set()) for p in out)) - out
        if not more:
            return out
        out |= more


def library_of(rel):
    best = None
    for lib in LIBRARIES:
        for folder in lib[1]:
            if (rel == folder or rel.startswith(folder + "/")) and (best is None or len(folder) > len(best[1])):
                best = (lib, folder)
    return best[0] if best else None


def folder_allowed(lib, rel):
    allowed = False
    best = -1
    for rule in lib[2]:
        neg = rule.startswith("!")
        folder = rule[1:] if neg else rule
        if (rel == folder or rel.startswith(folder + "/")) and len(folder) > best:
            best, allowed = len(folder), not neg
    return allowed


_LIBC = None


def libc_headers():
    """The headers of libc and the kernel's user API (Debian's libc6-dev and linux-libc-dev):
    a set of paths, or True (anything under /usr/include counts) on a system without dpkg."""
    global _LIBC
    if _LIBC is None:
        try:
            listing = subprocess.run(["dpkg", "-L", "libc6-dev", "linux-libc-dev"], capture_output=True, text=True,
                                     check=True).stdout
            _LIBC = {p for p in listing.split() if p.startswith("/usr/include/")}
        except (OSError, subprocess.CalledProcessError):
            _LIBC = True
    return _LIBC


def package_of(path):
    best = None
    for prefix, pkg in PACKAGES:
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, pkg)
    if best:
        return best[1]
    if os.path.dirname(path) == "/usr/include" and os.path.basename(path) in TOP_LEVEL:
        return TOP_LEVEL[os.path.basename(path)]
    libc = libc_headers()
    if path.startswith("/usr/include/") and (libc is True or path in libc):
        return "system"
    return None


class Checker:
    def __init__(self, source, build):
        self.source = realpath(source)
        self.build = realpath(build)
        self.problems = []
        self.seen = set()

    def rel(self, path):
        p = realpath(path)
        return os.path.relpath(p, self.source) if p.startswith(self.source + "/") else None

    def in_build(self, path):
        return realpath(path).startswith(self.build + "/")

    # Checks the dependency list of `owner` (a path of ours) against its library's rule.
    def check(self, owner_rel, deps, via=None):
        lib = library_of(owner_rel)
        if lib is None:
            return
        packages = closure(lib[3])
        for dep in deps:
            real = realpath(dep)
            if real == realpath(os.path.join(self.source, owner_rel)) or self.in_build(real):
                continue  # itself, or generated code (moc, resources, configured files)
            rel = self.rel(real)
            if rel is not None:
                if folder_allowed(lib, rel):
                    continue
                what = key = f"{rel} (ours)"
            else:
                pkg = package_of(real)
                if pkg in packages:
                    continue
                # One line per forbidden package (its first header), not one per header.
                what = f"{real} (package {pkg})" if pkg else f"{real} (a header no package of the rules claims)"
                key = pkg or real
            key = (owner_rel, key)
            if key in self.seen:
                continue
            self.seen.add(key)
            how = f" through {via}" if via and via != owner_rel else ""
            self.problems.append(f"layering: {owner_rel} (library {lib[0]}) depends on {what}{how}; "
                                 f"{lib[0]} may include {', '.join(lib[2])} and the packages "
                                 f"{', '.join(sorted(lib[3]))}")


def parse_make_deps(text):
    """The prerequisites of the one rule `-M` prints (escaped spaces kept in names)."""
    _, _, rest = text.replace("\\\n", " ").partition(": ")
    return [t.replace("\\ ", " ") for t in re.split(r"(?<!\\)\s+", rest.strip()) if t]


def ninja_deps(build):
    try:
        text = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    deps, current = {}, None
    for line in text.splitlines():
        if not line.strip():
            current = None
        elif not line.startswith(" "):
            obj = line.split(":")[0]
            current = [] if "(VALID)" in line else None
            if current is not None:
                deps[os.path.normpath(os.path.join(build, obj))] = current
        elif current is not None:
            current.append(os.path.normpath(os.path.join(build, line.strip())))
    return deps


def command_of(entry):
    return shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])


def object_of(entry):
    """The object file an entry compiles to (its "output", or the argument after -o)."""
    if "output" in entry:
        return entry["output"]
    args = command_of(entry)
    return args[args.index("-o") + 1] if "-o" in args[:-1] else ""


def preprocessor_deps(entry, source_file=None):
    """Runs the entry's compiler as a preprocessor (-M) on its source, or on `source_file`."""
    args = command_of(entry)
    cmd, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a == entry["file"] or os.path.basename(a) == "ccache":
            continue
        cmd.append(a)
    target = source_file or entry["file"]
    # A header alone: a missing include (CUDA's, on a machine without it) is taken as generated.
    lone = ["-x", "c++", "-MG"] if source_file and source_file.endswith(".h") else []
    r = subprocess.run(cmd + ["-M"] + lone + [target], cwd=entry["directory"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[:3]
    return [os.path.normpath(os.path.join(entry["directory"], d)) for d in parse_make_deps(r.stdout)], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    ck = Checker(a.source, a.build)
    with open(os.path.join(a.build, "compile_commands.json")) as f:
        entries = json.load(f)
    recorded = ninja_deps(ck.build)

    def deps_of(e):
        obj = os.path.normpath(os.path.join(e["directory"], object_of(e)))
        if obj in recorded:
            return e, recorded[obj], None, True
        d, err = preprocessor_deps(e)
        return e, d, err, False

    reached = {}  # header (rel) -> libraries whose objects reach it
    lib_entry = {}
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(deps_of, entries))
    checked = from_build = 0
    for e, deps, err, recorded_by_build in results:
        src = ck.rel(os.path.join(e["directory"], e["file"]))
        if err:
            ck.problems.append(f"layering: cannot preprocess {src or e['file']}: {' '.join(err)}")
            continue
        # A generated source (moc, resources) is held to the rule of the library whose object it is.
        owner = src
        if owner is None and ck.in_build(os.path.join(e["directory"], e["file"])):
            continue
        lib = library_of(owner) if owner else None
        if lib is None:
            continue
        checked += 1
        from_build += recorded_by_build
        lib_entry.setdefault(lib[0], e)
        ck.check(owner, deps)
        for d in deps:
            r = ck.rel(d)
            if r is not None and r.endswith(".h"):
                reached.setdefault(r, set()).add(lib[0])
    # Headers of ours that no object of their own library reaches: preprocess them alone.
    orphans = []
    for root, dirs, files in os.walk(ck.source):
        dirs[:] = [d for d in dirs if not d.startswith(".") and os.path.join(root, d) != ck.build
                   and not realpath(os.path.join(root, d)).startswith(ck.build)]
        for name in files:
            if not name.endswith(".h"):
                continue
            rel = ck.rel(os.path.join(root, name))
            lib = library_of(rel) if rel else None
            if lib is None or lib[0] in reached.get(rel, set()):
                continue
            # A library without objects of its own (headers only) borrows the command with the
            # most include paths.
            orphans.append((rel, lib_entry.get(lib[0]) or max(entries, key=lambda e: len(e.get("command", "")))))

    def orphan_deps(item):
        rel, e = item
        d, err = preprocessor_deps(e, os.path.join(ck.source, rel))
        return rel, d, err

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for rel, deps, err in pool.map(orphan_deps, orphans):
            if err:
                ck.problems.append(f"layering: cannot preprocess {rel} alone: {' '.join(err)}")
            else:
                ck.check(rel, deps)
    for p in ck.problems:
        print(p)
    where = (f"{checked} objects ({from_build} with the dependencies the build recorded, {checked - from_build} "
             f"preprocessed) and {len(orphans)} headers no object of their library includes")
    if ck.problems:
        print(f"layering: {len(ck.problems)} violation(s) in {where}")
        return 1
    print(f"layering: {where} keep every library's allow-list")
    return 0


if __name__ == "__main__":
    sys.exit(main())
