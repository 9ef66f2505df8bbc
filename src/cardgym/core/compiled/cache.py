"""Where cardgym's compiled kernels are cached on disk, keeping that cache consistent with the sources,
and saying so when kernels compile.

Where (first that applies):

1. ``NUMBA_CACHE_DIR`` when set (numba's own setting; every numba user in the process shares it);
2. the package folder's ``__pycache__`` folders when the package folder is writable (a source checkout,
   an editable or a per-user install);
3. a per-user cache folder (``platformdirs.user_cache_dir("cardgym")`` when platformdirs is installed,
   else ``$XDG_CACHE_HOME/cardgym`` or ``~/.cache/cardgym``) when the package folder is read-only
   (a system or container install);
4. a folder in the temporary directory (``cardgym-cache-<uid>``) when even that is not writable
   (no writable home): the cache then lasts as long as the temporary directory.

Layout: in case 2 numba's own in-tree layout (``__pycache__`` beside each source file). In cases 1, 3
and 4 cardgym's kernels (and those of its registered games) are laid out by *content*, not by path:
``<folder>/<package>-<stamp>/<subpackage>/``, where ``<stamp>`` is the first 16 hex digits of the
package's content stamp (below), by a numba cache locator (`CardgymCacheLocator`) that answers only for
the source files of cardgym and of its registered games (other numba users in the process keep numba's
defaults, which name a folder by the sha1 of its absolute path). So a content-identical copy of the
package anywhere (a Docker ``COPY``, a reinstall of the same version, a CI checkout at another path)
finds the kernels a previous install compiled into the same ``NUMBA_CACHE_DIR``.

Staleness: numba invalidates a cached function when *its own* file's content changes, not when a
function it calls from another file does (a documented limitation). cardgym's kernels call across
files (games -> shared helpers -> rng; ``core/compiled/bound.py`` -> every game), so on import we compare a stamp
of every source file that compiled code depends on (`_relevant`: the files with kernels and the modules
they import, whose constants are frozen into the machine code; its path inside the package and the
sha256 of its content) with the one saved beside the cache, and drop cardgym's cached kernels when they differ, in whichever folder
above is used (in cases 1, 3 and 4 a changed stamp also names a new folder: the old one is removed).
Modification times play no part: a copy that changes them keeps the cache. Reading every source on
every import is avoided by a memo saved with the stamp: a file whose (size, mtime, ctime) are those
recorded is not read again (a copy or an edit changes its ctime, so it is hashed again). Every game
package registered from outside cardgym (an entry point, ``CARDGYM_GAMES``, ``registry.add``) is stamped
the same way when it is registered (`watch`), its stamp covering its own kernel files and cardgym's (its
kernels call cardgym's). The templates bound once per game (``core/compiled/bound.py``, the search loop) cache in
cardgym's folders, so their cache entries are named by the game *and* a hash of its package's sources
that compiled code depends on (`source_tag`): an edited game gets new entries, never the old machine
code, and an edit of a file no kernel imports (a ``scene.py``, a ``text.py``) compiles nothing.

Damage: an entry numba cannot read (a zero-length, truncated or garbled ``.nbi`` or ``.nbc`` file, a
folder in its place) or that holds another function's code (an ``.nbc`` copied over from another
function or game) is dropped and recompiled with one line on stderr
(`cardgym.core.compiled.numba_hooks.guard_damaged_entries`). A read-only cache folder is still the one
read (`CardgymCacheLocator`); what misses there is compiled and kept in memory.

Compile notice: a numba compile-event listener prints one line on stderr, once per game per process,
when a cardgym kernel actually compiles (a cache miss; loading from the cache prints nothing).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAMP = ROOT / "__pycache__" / "numba-sources.stamp"


#: (path, size, mtime_ns, ctime_ns) -> (holds kernels, sha256 hex of the content, module-level imports):
#: each file is read at most once per process while it stays unchanged
_DIGESTS: dict = {}
#: package root -> its current content stamp, as the last `refresh` found it
_STAMPS: dict = {}


#: names whose use (a decorator, a call) compiles a function: numba's compilers and cardgym's template
#: binders (a game's ``search.py`` binds the search loop with its constants); a file that uses one holds
#: kernels
_JIT_NAMES = frozenset({"njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc", "overload",
                        "register_jitable", "intrinsic", "load_template", "bind_search", "budget_bot"})


def _parse(data: bytes) -> tuple:
    """``(holds kernels, imports)`` of a source: whether it compiles functions (it names a numba
    compiler, ``njit`` and the like, outside its imports: a decorator or a call; a docstring or comment
    that mentions one does not count), and the modules it imports at module level (where a kernel finds
    its globals): dotted names, relative ones with their leading dots; for ``from m import a`` both ``m``
    and ``m.a`` (``a`` may be a submodule). A source that does not parse counts as holding kernels when
    its bytes name ``njit``."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return b"njit" in data, []
    out: set = set()

    def visit(body):
        for node in body:
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                out.add(base)
                sep = "" if base.endswith(".") else "."
                out.update(base + sep + a.name for a in node.names if a.name != "*")
            elif isinstance(node, (ast.If, ast.Try)):
                for part in (node.body, node.orelse, getattr(node, "finalbody", []),
                             *(h.body for h in getattr(node, "handlers", []))):
                    visit(part)

    visit(tree.body)
    kernels = any((isinstance(n, ast.Name) and n.id in _JIT_NAMES)
                  or (isinstance(n, ast.Attribute) and n.attr in _JIT_NAMES) for n in ast.walk(tree))
    return kernels, sorted(out)


def _digest(path: Path, memo: dict | None = None, key: str | None = None, out: dict | None = None) -> tuple:
    """``(holds kernels, sha256 hex, imports)`` of one source file, read only when neither this process
    nor the saved memo ``memo[key]`` (``[size, mtime_ns, ctime_ns, kernels, sha, imports]``) knows it at
    its current (size, mtime, ctime); the entry goes into ``out[key]``."""
    st = path.stat()
    sig = [st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    d = _DIGESTS.get((str(path), *sig))
    if d is None:
        seen = memo.get(key) if memo and key else None
        if isinstance(seen, list) and len(seen) == 6 and seen[:3] == sig and isinstance(seen[5], list):
            d = (bool(seen[3]), str(seen[4]), tuple(seen[5]))
        else:
            data = path.read_bytes()
            kernels, imports = _parse(data)
            d = (kernels, hashlib.sha256(data).hexdigest(), tuple(imports))
        _DIGESTS[(str(path), *sig)] = d
    if out is not None and key:
        out[key] = [*sig, d[0], d[1], list(d[2])]
    return d


def _roots(root: Path) -> list:
    return [root] if Path(root).resolve() == ROOT else [ROOT, root]


def _relevant(bases: list, memo: dict | None = None, out: dict | None = None) -> list:
    """``[(base, rel, sha)]``, in order, of the source files under the package folders ``bases`` that
    compiled code depends on: every file that holds kernels and every module of these packages that
    such a file imports, directly or not (its constants and the helpers it calls are frozen into the
    machine code). A file no kernel imports (a game's ``scene.py``, ``text.py``) is not one of them."""
    files: list = []
    modules: dict = {}
    for k, base in enumerate(bases):
        for path in sorted(Path(base).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(base).as_posix()
            kernels, sha, imports = _digest(path, memo, f"{k}:{rel}", out)
            parts = [Path(base).name, *rel[:-3].split("/")]
            package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if package else parts)
            files.append((base, rel, sha, kernels, imports, name, package))
            modules[name] = len(files) - 1
    todo = [i for i, f in enumerate(files) if f[3]]
    keep = set(todo)
    while todo:
        _, _, _, _, imports, name, package = files[todo.pop()]
        here = name.split(".") if package else name.split(".")[:-1]
        for ref in imports:
            level = len(ref) - len(ref.lstrip("."))
            if level:
                if level - 1 > len(here):
                    continue
                rest = ref[level:]
                ref = ".".join(here[:len(here) - (level - 1)] + ([rest] if rest else []))
            i = modules.get(ref)
            if i is None:  # an absolute import of a package whose parents are outside ``bases``
                for k, base in enumerate(bases):
                    cut = ref.find(f".{Path(base).name}.")
                    if cut >= 0 and (i := modules.get(ref[cut + 1:])) is not None:
                        break
            if i is not None and i not in keep:
                keep.add(i)
                todo.append(i)
    return [(base, rel, sha) for i, (base, rel, sha, *_) in enumerate(files) if i in keep]


def _scan(root: Path, memo: dict | None = None) -> tuple:
    """``(stamp, memo)``: the content stamp of the package at ``root`` (see `sources_stamp`) and the memo
    to save with it."""
    h = hashlib.sha256()
    out: dict = {}
    for base, rel, sha in _relevant(_roots(root), memo, out):
        h.update(f"{Path(base).name}/{rel}:{sha}\n".encode())
    return h.hexdigest(), out


def sources_stamp(root: Path = ROOT) -> str:
    """A stamp of the content of every source file that compiled kernels depend on (`_relevant`: the files
    that hold kernels and the modules they import; the others cannot make a cache stale): each one's path
    inside its package and the sha256 of its bytes, under ``root`` and, for a game package outside
    cardgym, under cardgym's own folder too. Where the package lives and when its files were written
    play no part."""
    return _scan(Path(root))[0]


_TAGS: dict = {}


def source_tag(package: str, folder=None) -> str:
    """A short hash of the files of the game package ``package`` (its folder ``folder``, found without
    importing it when not given) that its compiled code depends on (`_relevant`: its kernel files and
    the modules of the package they import, not its ``scene.py`` or ``text.py``): what names a game's
    bindings of the shared templates in the kernel cache, so that editing the game's rules never reuses
    the machine code of the old ones, and editing anything else recompiles nothing."""
    tag = _TAGS.get(package)
    if tag is None:
        if folder is None:
            folder = package_folder(package)
        h = hashlib.sha256()
        if folder is not None:
            for _, rel, sha in _relevant([Path(folder)]):
                h.update(f"{rel}\0{sha}\0".encode())
        tag = _TAGS[package] = h.hexdigest()[:12]
    return tag


def package_folder(package: str):
    """The folder of package ``package`` (imports its parent packages only), None if it has none."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    locations = list(getattr(spec, "submodule_search_locations", None) or [])
    return Path(locations[0]).resolve() if locations else None


def _kernel_files(root: Path) -> list:
    return [p for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts and _digest(p)[0]]


def _writable_dir(path: Path) -> bool:
    """Whether ``path`` exists or can be created, and files can be written in it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def user_cache_dir() -> Path:
    """The platform's per-user cache folder for cardgym (not created here)."""
    try:
        import platformdirs
    except ImportError:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "cardgym"
    return Path(platformdirs.user_cache_dir("cardgym", appauthor=False))


def _temp_cache_dir() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    return Path(tempfile.gettempdir()) / f"cardgym-cache-{uid}"


def _numba_cache_dir() -> str:
    """``NUMBA_CACHE_DIR`` as numba reads it (from the environment; without importing numba)."""
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:
        return numba_config.CACHE_DIR or ""
    return os.environ.get("NUMBA_CACHE_DIR", "")


def choose(root: Path = ROOT) -> tuple:
    """``(kind, folder)`` of the cache cardgym's kernels use: ``("NUMBA_CACHE_DIR", dir)``,
    ``("in-tree", root)``, ``("user", dir)``, ``("temp", dir)``, or ``("none", None)`` when nothing
    is writable (numba then refuses to compile cached functions)."""
    env = _numba_cache_dir()
    if env:
        return "NUMBA_CACHE_DIR", Path(env)
    if _writable_dir(root / "__pycache__"):
        return "in-tree", root
    user = user_cache_dir()
    if _writable_dir(user):
        return "user", user
    tmp = _temp_cache_dir()
    if _writable_dir(tmp):
        return "temp", tmp
    return "none", None


def tree_name(root: Path, stamp: str) -> str:
    """The folder (under a ``NUMBA_CACHE_DIR``, per-user or temporary cache root) that holds the cached
    kernels of the package at ``root`` whose content stamp is ``stamp``."""
    return f"{Path(root).name}-{stamp[:16]}"


def leaf_name(root: Path, folder: Path) -> str:
    """The folder name, inside `tree_name`, of the kernels of the source folder ``folder`` of the package
    at ``root``: its path inside the package, dotted (``games.NAME``), or the package's name."""
    rel = Path(folder).relative_to(root).as_posix()
    return Path(root).name if rel in ("", ".") else rel.replace("/", ".")


def cache_folders(kind: str, folder, root: Path = ROOT, stamp: str | None = None) -> list:
    """Every folder holding cached kernels of the package at ``root`` for a `choose` result (for a cache
    laid out by content, those of the content stamp ``stamp``, by default the sources' current one)."""
    if folder is None:
        return []
    dirs = sorted({p.parent for p in _kernel_files(root)})
    if kind == "in-tree":
        return [d / "__pycache__" for d in dirs]
    tree = Path(folder) / tree_name(root, stamp or _STAMPS.get(Path(root)) or sources_stamp(root))
    return [tree / leaf_name(root, d) for d in dirs]


def stamp_file(kind: str, folder, root: Path = ROOT) -> Path:
    if kind == "in-tree":
        return root / "__pycache__" / "numba-sources.stamp"
    tag = hashlib.sha1(str(root).encode()).hexdigest()[:16]
    return Path(folder) / f"cardgym-sources-{tag}.stamp"


#: the saved stamp's format, which names how kernel files are told apart (`_JIT_NAMES`): a stamp of
#: another format (an older cardgym) is not trusted, its memo is not used and the cache it describes is
#: dropped
_FORMAT = "2-" + hashlib.sha256(" ".join(sorted(_JIT_NAMES)).encode()).hexdigest()[:8]


def _read_stamp(stamp: Path) -> dict:
    """The saved ``{"format": _FORMAT, "stamp": ..., "files": memo}`` (empty when missing, unreadable or of
    another format, e.g. the older one-line one)."""
    try:
        data = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return {}
    ok = isinstance(data, dict) and data.get("format") == _FORMAT and isinstance(data.get("files"), dict)
    return data if ok else {}


def _write_stamp(stamp: Path, now: str, memo: dict) -> None:
    stamp.parent.mkdir(parents=True, exist_ok=True)
    tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"format": _FORMAT, "stamp": now, "files": memo}, separators=(",", ":")))
    tmp.replace(stamp)


def refresh(root: Path = ROOT, stamp: Path | None = None, folders: list | None = None,
            choice: tuple | None = None) -> bool:
    """Drop stale cached kernels; returns True when the cache was cleared.

    By default it checks the folders `choose` picks (or ``choice``, a `choose` result); ``stamp``/
    ``folders`` override them (tests)."""
    root = Path(root)
    kind, folder = choice if choice is not None else choose(root)
    if stamp is None:
        if folder is None:
            return False
        stamp = stamp_file(kind, folder, root)
    try:
        saved = _read_stamp(stamp)
        now, memo = _scan(root, saved.get("files"))
        _STAMPS[root] = now
        if saved.get("stamp") == now:
            if memo != saved["files"]:  # files copied or touched, same content: remember their new times
                _write_stamp(stamp, now, memo)
            return False
        old = saved.get("stamp")
        if folders is None:
            if kind == "in-tree":
                folders = cache_folders(kind, folder, root)
            elif old and folder is not None:
                folders = cache_folders(kind, folder, root, old)
            else:
                folders = []
        for d in folders:
            if d.is_dir():
                for pattern in ("*.nbi", "*.nbc"):
                    for path in d.glob(pattern):
                        path.unlink(missing_ok=True)
                if kind not in ("in-tree", "none"):
                    for empty in (d, d.parent):
                        try:
                            empty.rmdir()
                        except OSError:
                            pass
        _write_stamp(stamp, now, memo)
        return True
    except OSError:
        return False


# ------------------------------------------------------------------ numba locator for read-only installs
#: package folder (cardgym's own, a watched game's) -> ``(kind, folder)``, the `choose` result for it
#: when its kernels are laid out by content (``NUMBA_CACHE_DIR``, per-user or temporary folder)
_FALLBACKS: dict = {}


def _place(py_file) -> tuple | None:
    """``(package root, cache root)`` for a source file of cardgym or of a watched game whose cache is
    laid out by content; None for any other file."""
    try:
        path = Path(py_file).resolve()
    except OSError:
        return None
    for root, (kind, folder) in _FALLBACKS.items():
        if path.is_relative_to(root):
            env = _numba_cache_dir()
            if kind == "NUMBA_CACHE_DIR":
                return (root, Path(env)) if env else None
            return None if env else (root, folder)
    return None


def _make_locator():
    from cardgym.core.compiled.numba_hooks import locator_base

    class CardgymCacheLocator(*locator_base()):
        """Caches the kernels of cardgym and of its registered games by content, under
        ``<cache root>/<package>-<content stamp>/<subpackage>/`` (see the module doc), when the cache
        root is ``NUMBA_CACHE_DIR`` or the per-user or temporary folder of a read-only install. Answers
        for nothing else."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            root, base = _place(py_file)
            stamp = _STAMPS.get(root) or sources_stamp(root)
            leaf = leaf_name(root, Path(py_file).resolve().parent)
            self._cache_path = os.path.join(str(base), tree_name(root, stamp), leaf)

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _FALLBACKS or _place(py_file) is None or not os.path.exists(py_file):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                # a read-only cache (baked into an image): still the place to read from. numba's other
                # locators would compile into the package's __pycache__ or ~/.cache/numba, outside the
                # content stamp; a kernel missing here is compiled and kept in memory
                # (numba_hooks.guard_damaged_entries says so once)
                pass
            return self

    return CardgymCacheLocator


_CHOICE: tuple | None = None


def install(root: Path = ROOT) -> tuple:
    """Pick the cache folder (see the module doc) and drop stale kernels there. Called once by
    ``import cardgym``; imports nothing heavy. Returns the `choose` result."""
    global _CHOICE
    kind, folder = _install_root(Path(root).resolve())
    _CHOICE = (kind, folder)
    return kind, folder


def _install_root(root: Path) -> tuple:
    kind, folder = choose(root)
    if kind in ("NUMBA_CACHE_DIR", "user", "temp"):
        _FALLBACKS[root] = (kind, folder)
    if folder is not None:
        refresh(root, choice=(kind, folder))
    return kind, folder


#: folder of a watched game package -> the `choose` result for it
_WATCHED: dict = {}


def watch(package: str, folder=None):
    """Keep the kernel cache of the game package ``package`` (outside cardgym) consistent with its
    sources and cardgym's: pick its cache folder and drop its cached kernels when its stamp changed (as
    `install` does for cardgym). The registry calls it for every game it registers from outside
    ``cardgym.games``. Returns the `choose` result, None for a package inside cardgym or without a
    folder."""
    folder = Path(folder).resolve() if folder is not None else package_folder(package)
    if folder is None or folder.is_relative_to(ROOT):
        return None
    if folder not in _WATCHED:
        _WATCHED[folder] = _install_root(folder)
    return _WATCHED[folder]


_HOOKED = False


def hook_numba() -> None:
    """What must be in place before the first cardgym kernel is *defined*: the cache locator of
    read-only installs, the compile notice and `cardgym.core.compiled.fastcall.plain_call_types`. Called by
    ``cardgym.core.compiled.rng`` (which every kernel file imports) right after it imports numba."""
    global _HOOKED
    if _HOOKED:
        return
    _HOOKED = True
    if _CHOICE is None:
        install()
    from cardgym.core.compiled import numba_hooks

    numba_hooks.check_version()
    # always in place: a watched game's folder may be read-only where cardgym's is not
    numba_hooks.insert_locator(_make_locator)
    numba_hooks.guard_damaged_entries(_owns)
    _install_notice()
    numba_hooks.plain_call_types()


def _owns(py_func) -> bool:
    """Whether a numba function is one of cardgym's or of a registered game's kernels."""
    return _game_of(getattr(py_func, "__module__", "") or "") is not None


# ------------------------------------------------------------------------------------- compile notice
#: game name -> title, filled by the registry (`cardgym.registry`) as it discovers the games
_TITLES: dict = {}
#: game package -> game name (a game outside ``cardgym.games``, e.g. added by an entry point)
_PACKAGES: dict = {}
_announced: set = set()
_lock = threading.Lock()


def name_game(name: str, title: str, package: str) -> None:
    """Tell the compile notice about a game: its kernels live under ``package`` (and the compiled
    template binds them as ``cardgym.games.<name>._bound*``); ``title`` is what the notice prints."""
    _TITLES[name] = title
    _PACKAGES[package] = name
    if not package.startswith("cardgym."):
        watch(package)


def _game_of(module: str) -> str | None:
    """The game a kernel's module belongs to (``cardgym.games.<game>...`` or a registered game's
    package), "" for cardgym's shared kernels, None for modules outside cardgym and its games."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[0] == "cardgym" and parts[1] == "games" and parts[2] in _TITLES:
        return parts[2]
    for package, name in _PACKAGES.items():
        if module == package or module.startswith(package + "."):
            return name
    if not module.startswith("cardgym"):
        return None
    return ""


def notice(module: str, stream=None) -> bool:
    """Print the compile notice for a kernel of ``module`` unless already printed for its game in this
    process. Returns whether it printed."""
    game = _game_of(module)
    if game is None:
        return False
    with _lock:
        if game in _announced:
            return False
        _announced.add(game)
    what = f"{_TITLES[game]} kernels" if game else "shared kernels"
    print(f"cardgym: compiling {what} (first use only, cached afterwards)…", file=stream or sys.stderr, flush=True)
    return True


_depth = threading.local()
_listening = False

#: seconds between the "still compiling" lines of a long compile
HEARTBEAT_S = 10.0


class _Heartbeat:
    """While one outermost compile of cardgym kernels runs, a line on stderr every `HEARTBEAT_S`
    seconds, so that a first run never sits silent (numba compiles in Python and LLVM releases the
    GIL, so a daemon thread gets to print)."""

    def __init__(self, stream=None):
        self._stream = stream
        self._t0 = time.perf_counter()
        self._done = threading.Event()
        threading.Thread(target=self._run, name="cardgym-compile-heartbeat", daemon=True).start()

    def _run(self):
        while not self._done.wait(HEARTBEAT_S):
            print(f"cardgym: still compiling ({time.perf_counter() - self._t0:.0f} s)…",
                  file=self._stream or sys.stderr, flush=True)

    def stop(self):
        self._done.set()


def _install_notice() -> None:
    """Register the compile listener (once). Only an outermost compile prints: the kernels a compile
    pulls in (shared helpers, the game's rules) belong to the same wait."""
    global _listening
    if _listening:
        return
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover
        return

    class _Notice(event.Listener):
        def on_start(self, ev):
            depth = getattr(_depth, "n", 0)
            _depth.n = depth + 1
            if depth:
                return
            disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            fn = getattr(disp, "py_func", None)
            module = getattr(fn, "__module__", "") or "" if fn is not None else ""
            if fn is not None:
                notice(module)
            if _game_of(module) is not None:
                _depth.beat = _Heartbeat()

        def on_end(self, ev):
            _depth.n = max(getattr(_depth, "n", 1) - 1, 0)
            if _depth.n == 0 and getattr(_depth, "beat", None) is not None:
                _depth.beat.stop()
                _depth.beat = None

    event.register("numba:compile", _Notice())
    _listening = True
