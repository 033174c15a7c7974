"""A resident process that servers and commands are forked from.

Starting ``kconfig-ls serve`` costs half a second before it can answer
anything: Python's start and the imports (pygls and lsprotocol alone take
0.3 s), then reading the tree's snapshot.  An editor starts a server for
each window, each restart and each workspace, and a build runs ``conf``
again and again, so that time is paid over and over.  Here the first
``kconfig-ls serve`` (or ``conf``, ``config``, ``why``) leaves a resident
process behind that has everything imported and keeps the tree snapshots
its servers and commands used read (:func:`~.kconfig.tree_cache.preload`,
two at most); each later one hands it its standard input, output and error
(file descriptors passed over a Unix socket) with its arguments,
environment, working directory and umask, and the resident process forks
the server or command for it.  That process works on the caller's own
pipes and terminal; the ``kconfig-ls`` process that was started waits for
it and exits with its status.  If that process dies (an editor closing, a
Ctrl-C), the one working for it is ended.

Only the same code is served: the socket's name carries a digest of the
package's files, the interpreter, its flags, module path and installed
packages, and the environment Python reads at its start (locale, I/O
encoding, hash seed), so an upgrade (or an edited checkout) starts a new
resident process and the old one leaves once idle
(:data:`IDLE_SECONDS`).  The socket lives in a directory only its user may
use (``$XDG_RUNTIME_DIR`` or the temporary directory), and a connection
from another user is refused.  ``KCONFIG_LS_RESIDENT=0`` turns it all off.

This module imports only the standard library: ``kconfig-ls`` tries it
before anything heavy is imported (:mod:`kconfig_ls.launch`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import signal
import socket
import stat
import struct
import sys
import sysconfig
import time

#: ``0`` turns the resident process off (each server is started afresh).
SWITCH = "KCONFIG_LS_RESIDENT"
#: A resident process with no server running leaves after this long.
IDLE_SECONDS = 1800.0
#: How long a client waits for the resident process to take its request.
CONNECT_SECONDS = 2.0
#: How long a tree snapshot asked for is waited for (a cold load writes
#: its snapshot in the background).
PRELOAD_WAIT_SECONDS = 120.0
#: Set in a process forked by the resident process: its socket.
SERVED_BY: str | None = None
#: The commands a resident process runs (the others start as usual; so
#: does ``serve --tcp``, see :func:`runs_here`).
COMMANDS = ("serve", "conf", "config", "why")
#: Tree snapshots kept read in the resident process.
KEEP_TREES = 2
#: The environment a Python process reads at its start: a caller with
#: other values is served by another resident process.
_STARTUP_ENVIRONMENT = ("LANG", "LC_ALL", "LC_CTYPE", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED",
                        "PYTHONWARNINGS", "PYTHONDEVMODE")
_HEADER = struct.Struct("!I")
_MAX_REQUEST = 16 << 20


def enabled(env: dict | os._Environ = os.environ) -> bool:
    return env.get(SWITCH, "1") != "0" and hasattr(socket, "send_fds") and hasattr(os, "fork")


def runs_here(argv: list[str]) -> bool:
    """Whether ``kconfig-ls argv`` is one a resident process runs."""
    return bool(argv) and argv[0] in COMMANDS and not any(a == "--tcp" or a.startswith("--tcp=") for a in argv)


def runtime_dir() -> str | None:
    """The private directory of this user's sockets (None when it cannot
    be made private: then nothing is shared)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if not base:
        import tempfile

        base = tempfile.gettempdir()
    path = os.path.join(base, f"kconfig-ls-{os.getuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return path


def code_key() -> str:
    """A digest of the code a forked process would run and of how its
    interpreter started: this package's files (names, sizes, times), the
    interpreter, its flags and module path, its installed packages'
    directory (pip changes it with every install), the start-up
    environment."""
    digest = hashlib.sha256()
    # (sys.path[0] is the working directory of ``python -m``: left out.)
    digest.update(f"{sys.executable}\0{sys.version}\0{sys.flags}\0{sys.path[1:]}\0".encode())
    for name in _STARTUP_ENVIRONMENT:
        digest.update(f"{name}={os.environ.get(name)}\0".encode())
    for where in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        with contextlib.suppress(OSError):
            digest.update(f"{where}:{os.stat(where).st_mtime_ns}\0".encode())
    package = os.path.dirname(os.path.abspath(__file__))
    for directory, subdirs, files in os.walk(package):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(directory, name))
                digest.update(f"{directory}/{name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:24]


#: The longest path a Unix socket may have (``sun_path``, with its NUL).
_MAX_SOCKET_PATH = 107


def socket_path() -> str | None:
    """Where the resident process for this code listens (None: nowhere,
    for a directory that is not private or a path too long for a socket)."""
    directory = runtime_dir()
    if directory is None:
        return None
    path = os.path.join(directory, f"serve-{code_key()}.sock")
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None


# -- the client side: ``kconfig-ls serve`` ------------------------------------------------


def run_through_resident(argv: list[str]) -> int | None:
    """Have the resident process run ``kconfig-ls argv`` on this process's
    stdio; its exit status, or None when there is no resident process (one
    is started for next time, and the caller runs the command itself).
    None at once for a command it does not run (:func:`runs_here`)."""
    if not runs_here(argv) or not enabled():
        return None
    path = socket_path()
    if path is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_SECONDS)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        start_resident(path)
        return None
    try:
        umask = os.umask(0o022)
        os.umask(umask)
        request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask}).encode()
        socket.send_fds(sock, [_HEADER.pack(len(request))], [0, 1, 2])
        sock.sendall(request)
    except OSError:
        sock.close()
        return None  # (a request cut short is refused: nothing was started)
    # Once the request is sent only the resident process decides: it
    # answers with the pid of the process it forked, or closes (refused,
    # or gone) and this one runs the command itself.  No time limit: a
    # fallback after a late fork would put two processes on one stdio.
    # Ctrl-C ends this process, so the one working for it is ended too.
    sock.settimeout(None)
    replies = _Replies(sock)
    try:
        reply = replies.next()
        if reply is None or "pid" not in reply:
            sock.close()
            return None
        end = replies.next()
    except KeyboardInterrupt:
        return 130
    return int(end["status"]) if end is not None and "status" in end else 1


def note_tree(snapshot_path: str | None) -> None:
    """Tell the resident process (the one this process was forked by, or
    the one running for this code) which tree snapshot was used, so the
    next process forked finds it read (best effort: errors are ignored)."""
    if snapshot_path is None:
        return
    path = SERVED_BY or (socket_path() if enabled() else None)
    if path is None or not os.path.exists(path):
        return
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_SECONDS)
    try:
        sock.connect(path)
        request = json.dumps({"preload": snapshot_path}).encode()
        sock.sendall(_HEADER.pack(len(request)) + request)
    except OSError:
        pass
    finally:
        sock.close()


class _Replies:
    """The resident process's answers, one JSON object per line.  A command
    that ends at once has its pid and its status arrive in one read, so what
    follows the first line is kept for the next."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.pending = b""

    def next(self) -> dict | None:
        """The next answer; None when the connection ends or fails first, or
        the line is not an object."""
        while b"\n" not in self.pending:
            try:
                chunk = self.sock.recv(4096)
            except OSError:
                return None
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            answer = json.loads(line)
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None


def start_resident(path: str) -> None:
    """Start the resident process for ``path``, detached (a grandchild:
    not a child of this process, which the editor may watch)."""
    try:
        pid = os.fork()
    except OSError:
        return
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                # (With this interpreter's own options: its flags are in the key.)
                import subprocess

                flags = subprocess._args_from_interpreter_flags()
                os.execv(sys.executable, [sys.executable, *flags, "-m", "kconfig_ls.resident", path])
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


# -- the resident side ------------------------------------------------------------------


class Resident:
    """The resident process: accepts requests on ``path`` and forks a
    process for each; reports each one's end to its client."""

    def __init__(self, path: str):
        self.path = path
        self.listener: socket.socket | None = None
        #: Tree snapshots that were used, to read ahead: path -> until when.
        self.wanted: dict[str, float] = {}
        #: forked pid -> the connection of the client it works for (None:
        #: the client left, the process is being ended)
        self.children: dict[int, socket.socket | None] = {}
        self.idle_since = time.monotonic()
        self.wake_read, self.wake_write = socket.socketpair()

    def bind(self) -> bool:
        """Listen on the socket; False when another resident process
        already does."""
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
        except OSError:
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.path)
                return False  # (alive: it serves)
            except OSError:
                os.unlink(self.path)  # (a socket left by a process that died)
                listener.bind(self.path)
            finally:
                probe.close()
        listener.listen(16)
        self.listener = listener
        return True

    def run(self) -> None:
        self.wake_read.setblocking(False)
        self.wake_write.setblocking(False)
        signal.set_wakeup_fd(self.wake_write.fileno())
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            while True:
                watched = [self.listener, self.wake_read, *(c for c in self.children.values() if c is not None)]
                ready, _, _ = select.select(watched, [], [], 1.0 if self.wanted else 5.0)
                for sock in ready:
                    if sock is self.listener:
                        self._accept()
                    elif sock is self.wake_read:
                        self._drain_wakeups()
                    else:
                        self._client_gone(sock)
                self._reap()
                self._preload_wanted()
                if not self.children and (time.monotonic() - self.idle_since > IDLE_SECONDS
                                          or not os.path.exists(self.path)):
                    return  # (idle, or unreachable: its socket was removed)
        finally:
            self._leave()

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        conn.settimeout(CONNECT_SECONDS)
        fds: list[int] = []
        try:
            uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
            if uid != os.getuid():
                raise PermissionError("another user")
            header, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
            if len(header) != _HEADER.size or len(fds) not in (0, 3):
                raise ValueError("a malformed request")
            (size,) = _HEADER.unpack(header)
            if size > _MAX_REQUEST:
                raise ValueError("a request too large")
            body = b""
            while len(body) < size:
                chunk = conn.recv(min(1 << 16, size - len(body)))
                if not chunk:
                    raise ValueError("a request cut short")
                body += chunk
            request = json.loads(body)
        except (OSError, ValueError):
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        if not fds:
            conn.close()
            if isinstance(request, dict) and isinstance(request.get("preload"), str):
                self.wanted[request["preload"]] = time.monotonic() + PRELOAD_WAIT_SECONDS
            return
        pid = os.fork()
        if pid == 0:
            self._run_forked(conn, fds, request)
        for fd in fds:
            os.close(fd)
        conn.settimeout(None)
        self.children[pid] = conn
        try:
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        except OSError:
            self._client_gone(conn)

    def _run_forked(self, conn: socket.socket, fds: list[int], request: dict) -> None:
        """In the forked child: take the client's stdio, environment,
        directory and umask, and run its command; never returns."""
        status = 1
        try:
            signal.set_wakeup_fd(-1)
            for signum in (signal.SIGCHLD, signal.SIGTERM):
                signal.signal(signum, signal.SIG_DFL)
            for sock in (self.listener, self.wake_read, self.wake_write, conn, *self.children.values()):
                if sock is not None:
                    sock.close()
            for target, fd in zip((0, 1, 2), fds, strict=True):
                os.dup2(fd, target)
                os.close(fd)
            global SERVED_BY
            SERVED_BY = self.path
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            os.umask(int(request.get("umask", 0o022)))
            sys.argv = ["kconfig-ls", *request["argv"]]
            from .cli import main

            if not runs_here(request["argv"]):
                raise ValueError(f"not a command run here: {request['argv']}")
            status = main(list(request["argv"]))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - the server's own failure: reported on its stderr
            import traceback

            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status)

    def _preload_wanted(self) -> None:
        """Read ahead the snapshots asked for, once written (a process
        forked next takes its tree instead of reading the file)."""
        if not self.wanted:
            return
        from . import heap
        from .kconfig import tree_cache

        now = time.monotonic()
        for path, until in list(self.wanted.items()):
            if now > until:
                del self.wanted[path]
                continue
            read = tree_cache.preload(path) if os.path.exists(path) else None
            if read is None:
                continue  # (not written yet)
            del self.wanted[path]
            if read:
                tree_cache.forget_preloaded(keep=KEEP_TREES)
                heap.collect()  # (the tree it replaced)
                heap.freeze()  # (forked processes do not copy pages the collector would touch)

    def _drain_wakeups(self) -> None:
        try:
            while self.wake_read.recv(4096):
                pass
        except BlockingIOError:
            pass

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is not None:
                code = os.waitstatus_to_exitcode(status)
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps({"status": code if code >= 0 else 128 - code}).encode() + b"\n")
                conn.close()
            if not self.children:
                self.idle_since = time.monotonic()

    def _client_gone(self, conn: socket.socket) -> None:
        """The ``kconfig-ls`` process a forked one works for ended: so
        does the forked one (the editor that started it is gone, or the
        user interrupted the command)."""
        for pid, known in list(self.children.items()):
            if known is conn:
                self.children[pid] = None
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
        conn.close()

    def _leave(self) -> None:
        """Stop listening; the processes still working end too (their
        callers would be left without a status to exit with)."""
        with contextlib.suppress(OSError):
            if self.listener is not None:
                os.unlink(self.path)
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


def resident_main(path: str) -> int:
    # (``python -m`` put the starting directory first on the module path:
    # nothing of a caller's directory may be imported later.)
    if sys.path and sys.path[0] in (os.getcwd(), ""):
        del sys.path[0]
    os.chdir("/")
    resident = Resident(path)
    # Everything a server imports, once, before taking requests.
    from .cli import main  # noqa: F401
    from .server import server  # noqa: F401

    if not resident.bind():
        return 0
    resident.run()
    return 0


if __name__ == "__main__":
    sys.exit(resident_main(sys.argv[1]))
