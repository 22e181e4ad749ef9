"""The C ABI (docs/c-api.md#the-c-abi): CANN's headers (include/) and the libraries CANN
programs link (libascendcl.so, libnnopbase.so, libopapi.so), built on first use into the
kernel cache, keyed by their sources, the compiler and the Python they embed.

    npu-emu build-capi                 build (or find) the libraries, print their folder
    npu-emu config --cflags --libs     the compiler and linker flags (rpath included)

`g++ sample.cpp $(npu-emu config --cflags --libs) -o sample && ./sample` runs a CANN sample.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
INCLUDE = HERE / "include"
SOURCE = HERE / "npu_emu_capi.c"
LIBRARIES = ("libascendcl.so", "libnnopbase.so", "libopapi.so")
# libascendcl.so holds every function; the other two are thin libraries that depend on it,
# so a program may link any of the three names CANN's samples link.
MAIN, THIN = LIBRARIES[0], LIBRARIES[1:]
PC_NAME = "npu_emu"


class CapiBuildError(RuntimeError):
    """The C libraries cannot be built (no C compiler, no shared libpython)."""


def compiler() -> str:
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"


def cxx_compiler() -> str | None:
    """The C++ compiler the examples and tests use (CXX, else g++/c++), or None."""
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def _libpython() -> tuple[str, str]:
    """(folder, link name) of the shared libpython of this interpreter."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise CapiBuildError(f"{sys.executable} has no shared libpython (it was built without "
                             f"--enable-shared): the C libraries embed Python and need one")
    libdir = sysconfig.get_config_var("LIBDIR")
    ldlib = sysconfig.get_config_var("LDLIBRARY") or ""
    name = ldlib[3:].split(".so")[0] if ldlib.startswith("lib") else f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return libdir, name


def _root() -> str:
    """The folder holding the npu_emu package the libraries forward into."""
    return str(HERE.parent.parent)


def _compiler_version(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        raise CapiBuildError(f"no C compiler: {cc} cannot run ({exc}); set CC") from None
    return (out.stdout.splitlines() or [""])[0]


def _sources() -> list[Path]:
    return [SOURCE, HERE / "npu_emu_capi_ops.inc"] + sorted(INCLUDE.rglob("*.h"))


def build_key() -> str:
    cc = compiler()
    h = hashlib.sha256()
    for part in (cc, _compiler_version(cc), sys.executable, sys.version, _root(), *_libpython()):
        h.update(part.encode() + b"\0")
    for path in _sources():
        h.update(str(path.relative_to(HERE)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:20]


def library_dir() -> Path:
    """Where the libraries of the current sources live (built or not)."""
    from ..runtime.base import cache_dir
    return cache_dir() / f"capi-{build_key()}"


def _run(cmd: list[str]) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise CapiBuildError(f"building the C libraries failed:\n  {shlex.join(cmd)}\n{r.stderr.strip()}")


def _pc_text(libdir: Path) -> str:
    return (f"prefix={libdir}\nincludedir={INCLUDE}\nlibdir={libdir}\n\n"
            f"Name: {PC_NAME}\nDescription: CANN's acl/aclnn C API on npu_emu\n"
            f"Version: {_version()}\nCflags: -I${{includedir}}\n"
            f"Libs: -L${{libdir}} -Wl,-rpath,${{libdir}} -lascendcl -lnnopbase -lopapi\n")


def _version() -> str:
    from .. import __version__
    return __version__


def build(force: bool = False) -> Path:
    """Build the libraries (unless built already) and return their folder. Concurrent builds
    are safe: each builds in a fresh folder and the first to finish is kept."""
    final = library_dir()
    if (final / MAIN).is_file() and not force:
        return final
    cc = compiler()
    libdir, pyname = _libpython()
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=final.name + ".tmp-", dir=final.parent))
    try:
        py_include = sysconfig.get_paths()["include"]
        _run([cc, "-O2", "-std=gnu11", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall",
              f"-I{INCLUDE}", f"-I{HERE}", f"-I{py_include}",
              f'-DNPU_EMU_PYTHON="{sys.executable}"', f'-DNPU_EMU_ROOT="{_root()}"',
              str(SOURCE), "-o", str(tmp / MAIN), f"-Wl,-soname,{MAIN}",
              f"-L{libdir}", f"-l{pyname}", f"-Wl,-rpath,{libdir}", "-lpthread"])
        empty = tmp / "thin.c"
        empty.write_text("/* a thin library: every function is in libascendcl.so */\n")
        for name in THIN:
            _run([cc, "-shared", "-fPIC", str(empty), "-o", str(tmp / name), f"-Wl,-soname,{name}",
                  f"-L{tmp}", "-Wl,--no-as-needed", "-lascendcl", "-Wl,-rpath,$ORIGIN"])
        empty.unlink()
        (tmp / "pkgconfig").mkdir()
        (tmp / "pkgconfig" / f"{PC_NAME}.pc").write_text(_pc_text(final))
        if force and final.exists():
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:        # another process finished first: keep its build
            if not (final / MAIN).is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def cflags() -> list[str]:
    return [f"-I{INCLUDE}"]


def libs(libdir: Path | None = None) -> list[str]:
    d = libdir or build()
    return [f"-L{d}", f"-Wl,-rpath,{d}", "-lascendcl", "-lnnopbase", "-lopapi"]


# ------------------------------------------------------------------------ command line

def _cmd_build(args: argparse.Namespace) -> int:
    try:
        print(build(force=args.force))
    except CapiBuildError as exc:
        print(f"npu-emu build-capi: {exc}", file=sys.stderr)
        return 1
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    try:
        parts: list[str] = []
        if args.cflags:
            parts += cflags()
        if args.libs:
            parts += libs()
        if args.pkgconfig_dir:
            parts.append(str(build() / "pkgconfig"))
        if not (args.cflags or args.libs or args.pkgconfig_dir):
            print("npu-emu config: give --cflags, --libs or --pkgconfig-dir", file=sys.stderr)
            return 2
    except CapiBuildError as exc:
        print(f"npu-emu config: {exc}", file=sys.stderr)
        return 1
    print(" ".join(shlex.quote(p) for p in parts))
    return 0


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    """Register `build-capi` and `config` on npu-emu's command line."""
    p = sub.add_parser("build-capi", help="build the C libraries (libascendcl.so, ...) for CANN programs")
    p.add_argument("--force", action="store_true", help="rebuild even if built already")
    p.set_defaults(func=_cmd_build)
    p = sub.add_parser("config", help="compiler and linker flags for CANN C/C++ programs")
    p.add_argument("--cflags", action="store_true", help="the include flags")
    p.add_argument("--libs", action="store_true", help="the link flags (with an rpath)")
    p.add_argument("--pkgconfig-dir", action="store_true",
                   help=f"the folder of {PC_NAME}.pc (for PKG_CONFIG_PATH)")
    p.set_defaults(func=_cmd_config)


# ----------------------------------------------------------------------- the examples

def examples_dir() -> Path | None:
    for candidate in (HERE.parent.parent / "examples" / "c", HERE.parent / "examples" / "c"):
        if candidate.is_dir():
            return candidate
    return None


def compile_example(source: Path, out_dir: Path | None = None, extra: list[str] | None = None,
                    name: str | None = None) -> Path:
    """Compile one C++ program (or, with -shared in `extra`, a library) against the C
    libraries; the output's path: out_dir/name (name defaults to the source's stem), or, with
    no out_dir, a file in the libraries' folder keyed by the source, the headers beside it,
    the flags and the compiler (compiled once, as the kernels are)."""
    cxx = cxx_compiler()
    if cxx is None:
        raise CapiBuildError("no C++ compiler (set CXX)")
    libdir = build()
    flags = [*cflags(), *libs(libdir), *(extra or [])]
    if out_dir is None:
        h = hashlib.sha256("\0".join([cxx, _compiler_version(cxx), *flags]).encode())
        for path in [source, *sorted(source.parent.glob("*.h"))]:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
        out_dir = libdir / "programs"
        out_dir.mkdir(exist_ok=True)
        exe = out_dir / f"{name or source.stem}-{h.hexdigest()[:16]}"
        if exe.is_file():
            return exe
    else:
        exe = out_dir / (name or source.stem)
    tmp = exe.with_name(f".{exe.name}.{os.getpid()}.tmp")
    try:
        _run([cxx, "-O1", "-std=c++17", str(source), *flags, "-o", str(tmp)])
        os.replace(tmp, exe)
    finally:
        tmp.unlink(missing_ok=True)
    return exe


def run_examples(only: str | None = None, jobs: int = 1) -> tuple[int, int]:
    """`npu-emu demo`'s part: compile every examples/c program when a C++ compiler is
    present, then run them, `jobs` at a time, each one's output printed whole and in order
    (_ordered.run_in_order); (ran, failed). Nothing runs (0, 0) without a compiler or the
    examples."""
    from .._ordered import run_in_order
    folder = examples_dir()
    if folder is None or cxx_compiler() is None:
        print("\n(examples/c skipped: " + ("no C++ compiler" if folder else "not installed") + ")")
        return 0, 0
    sources = sorted(p for p in folder.glob("*.cpp") if not only or only in p.name)
    failed = 0
    built = []
    for src in sources:
        try:
            built.append((src, compile_example(src)))
        except CapiBuildError as exc:
            print(f"\n===== examples/c/{src.name} " + "=" * max(0, 58 - len(src.name)))
            print(exc)
            failed += 1
    codes = run_in_order([[str(exe)] for _, exe in built],
                         lambda i: f"\n===== examples/c/{built[i][0].name} "
                                   + "=" * max(0, 58 - len(built[i][0].name)), jobs)
    for (src, _), rc in zip(built, codes):
        if rc != 0:
            print(f"examples/c/{src.name} exited with {rc}")
            failed += 1
    print(f"\nnpu-emu demo: {len(sources) - failed}/{len(sources)} C++ examples ran (examples/c)")
    return len(sources), failed
