"""The language server: LSP wiring only.  Each handler converts positions
and calls the IDE layer (``kconfig_ls.ide``), which works on engine objects."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import sys
import threading
import uuid
import weakref
from pathlib import Path
from urllib.parse import quote

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

import kconfig_ls

from .. import __version__, heap, resident
from ..ide import actions as ide_actions
from ..ide import completion, configurator, diagnostics, hover, navigation, outline, setvalue, sources
from ..ide.locate import Locator, in_checked_file, in_config_text
from ..ide.project import Project, Settings, find_root, is_kconfig_file
from ..kconfig import tree_cache
from ..kconfig.kernel import available_arches, srcarch_for
from .answers import AnsweringProtocol, BadArgument, CommandFailed, answered
from .documents import DocumentRef, describe, is_file_uri, name_to_uri, uri_to_path
from .positions import Columns

#: Quiet time after an edit before the edited buffer is checked on its own.
QUICK_CHECK_SECONDS = 0.03
#: Quiet time after an edit of a Kconfig buffer before its entries are
#: patched into the tree (project.relink: tens of milliseconds).
RELINK_SECONDS = 0.03
#: Quiet time after an edit of the config buffer before it is read again
#: (incremental: milliseconds; values follow each keystroke).
CONFIG_READ_SECONDS = 0.01
#: Quiet time after an edit before the whole tree is re-linked, when the
#: edit cannot be patched in.
DEBOUNCE_SECONDS = 0.25
#: Quiet time after a re-link before the trees it replaced are freed.
COLLECT_SECONDS = 1.0
#: Longest a request waits for the tree being built again (see
#: KconfigServer.pending_tree); it is then answered from no tree.
TREE_WAIT_SECONDS = 20.0
#: Bound on the fix search a hover may run (it is cached afterwards).
HOVER_FIX_SECONDS = 2.0
_SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "info": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}
_OUTLINE_KIND = {
    "menu": lsp.SymbolKind.Namespace,
    "choice": lsp.SymbolKind.Enum,
    "config": lsp.SymbolKind.Variable,
    "menuconfig": lsp.SymbolKind.Class,
    "comment": lsp.SymbolKind.String,
}


class KconfigServer(LanguageServer):
    """Holds the open project and the pending re-load."""

    def __init__(self) -> None:
        super().__init__("kconfig-ls", __version__, protocol_cls=AnsweringProtocol)
        self.settings = Settings()
        self.project: Project | None = None
        self.locator: Locator | None = None
        self.reload_task: asyncio.Task | None = None
        #: Pending quick checks of edited buffers, by URI.
        self.check_tasks: dict[str, asyncio.Task] = {}
        #: Set to abandon the re-load in progress (a newer edit came in).
        self.cancel_load = threading.Event()
        #: Whether a Kconfig file changed since the last load (else only
        #: the config needs reading again).
        self.tree_dirty = False
        self.columns = Columns(self)
        self.load_lock = asyncio.Lock()
        #: Clear while the tree is being built again after the old one was
        #: let go (requests wait for it: :meth:`pending_tree`).
        self.tree_ready = asyncio.Event()
        self.tree_ready.set()
        #: Watches the client process named in ``initialize``.
        self.client_watch: asyncio.Task | None = None
        #: Builds the index of CONFIG_ uses after the first load (:meth:`index_uses`).
        self.index_task: asyncio.Future | None = None
        #: Frees replaced trees once the server is idle (see :meth:`schedule_collect`).
        self.collect_task: asyncio.Task | None = None
        #: The trees re-links replaced, until the collector frees them.
        self.replaced: list[weakref.ref] = []
        #: How the tree took the last change: "load" (made anew) or
        #: "relink" (the edit patched in, project.relink).
        self.last_link = "load"
        #: Whether a re-linked tree's values are being computed: the quick
        #: checks wait for them (the re-link publishes every open document).
        self.settling = False
        #: Whether the pending re-load starts with a re-link it has not
        #: begun yet (a hover may have it done at once: :meth:`relink_now`).
        self.relink_waiting = False

    def document(self, uri: str) -> DocumentRef:
        """What the document at ``uri`` is to the engine (its language id
        from the client when it is open)."""
        open_doc = self.workspace.text_documents.get(uri)
        return describe(self.project, uri, open_doc.language_id if open_doc is not None else None)

    def loaded(self) -> Project | None:
        """The project, if its tree is loaded."""
        if self.project is None or self.project.kc is None:
            return None
        return self.project

    def pending_tree(self, fresh_values: bool = False) -> tuple | None:
        """What a request must wait for before it is answered: the tree,
        while a re-load builds it again (:meth:`load`); for a request that
        shows values (``fresh_values``), also the re-link of a Kconfig edit
        still waiting for its turn.  As pygls runs a generator handler's
        yielded ``(handler, args, kwargs)``."""
        if not self.tree_ready.is_set():
            return self._wait_for_tree, (), {}
        if fresh_values and self.relink_waiting:
            return self.relink_now, (), {}
        return None

    async def _wait_for_tree(self) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.tree_ready.wait(), TREE_WAIT_SECONDS)

    # -- project lifecycle ----------------------------------------------------------
    def pick_root(self, params: lsp.InitializeParams) -> str | None:
        if self.settings.root:
            return os.path.abspath(self.settings.root)
        folders = [uri_to_path(f.uri) for f in (params.workspace_folders or [])]
        if params.root_uri:
            folders.append(uri_to_path(params.root_uri))
        elif params.root_path:
            folders.append(params.root_path)
        for folder in folders:
            root = find_root(folder)
            if root:
                return root
        return None

    def ensure_project(self, path: str) -> Project | None:
        if self.project is None:
            root = find_root(path)
            if root is None:
                return None
            self.project = self.new_project(root)
        return self.project

    async def load(self, background: bool = False) -> None:
        """(Re)load the project.  A background load (after edits, saves or
        file changes) reports no progress, re-reads only the config when no
        Kconfig file changed, and leaves errors to the diagnostics rather
        than popping a message up at every pause in typing."""
        project = self.project
        if project is None:
            return
        async with self.load_lock:
            loop = asyncio.get_running_loop()
            token = None if background else await self.new_progress_token()
            total = project.file_count_hint

            def report(done: int) -> None:
                if token is None or done % 50:
                    return
                message = f"{done}/{total} files" if total else f"{done} files"
                percentage = min(99, done * 100 // total) if total else None
                loop.call_soon_threadsafe(
                    self.work_done_progress.report,
                    token,
                    lsp.WorkDoneProgressReport(message=message, percentage=percentage),
                )

            if token is not None:
                self.work_done_progress.begin(
                    token, lsp.WorkDoneProgressBegin(title="Loading Kconfig tree", message=project.root, percentage=0)
                )
            self.cancel_load.clear()
            config_only = background and not self.tree_dirty
            self.tree_dirty = False
            # A re-load lets the old tree go first (see Project.load): from
            # here until a tree is there again, requests wait.
            release = not config_only and project.kc is not None
            if release:
                self.tree_ready.clear()
                self.locator = None
                self.columns.forget()
            result = None
            try:
                result = await loop.run_in_executor(
                    None, project.load, report, self.cancel_load, config_only, release)
            finally:
                # (A cancelled one leaves no tree: the newer load brings it.)
                if result is None or not result.cancelled or project.kc is not None:
                    self.tree_ready.set()
            if not config_only and not result.cancelled:
                self.last_link = "load"
            if token is not None:
                files = len(result.kc.files) if result.kc else 0
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=f"{files} files parsed"))
            if result.cancelled:
                self.tree_dirty = self.tree_dirty or not config_only
                return
            if self.locator is None or self.locator.kc is not result.kc:
                # (A config re-read keeps the tree, and the position indexes
                # made of it: the next hover does not wait for them.)
                if self.locator is not None:
                    self.replaced.append(weakref.ref(self.locator.kc))
                self.locator = Locator(result.kc) if result.kc else None
                self.columns.forget()
            self.schedule_collect()
            if result.error is not None and not background:
                self.window_show_message(
                    lsp.ShowMessageParams(type=lsp.MessageType.Error, message=f"kconfig-ls: {result.error}")
                )
            if project.generation_error and not background:
                self.window_show_message(lsp.ShowMessageParams(
                    type=lsp.MessageType.Warning,
                    message=f"kconfig-ls: kconfig.kconfigVersion: {project.generation_error}; "
                            f"using the tree's own ({project.generation.name})"))
            # The definition index over every arch (a walk of the whole tree,
            # once) is built here rather than on the first publication, which
            # would hold up the event loop; hovers are answered meanwhile
            # (the locator above finds their symbols), so clients hear of the
            # new tree now.
            self.protocol.notify("kconfig/status", self.status())
            if not config_only and result.kc is not None and result.kc.snapshot_path is not None:
                # (The next server started finds this tree read ahead.)
                loop.run_in_executor(None, resident.note_tree, result.kc.snapshot_path)
            await loop.run_in_executor(None, project.disk_definitions)
        self.publish_all()
        self.protocol.notify("kconfig/status", self.status())
        self.protocol.notify("kconfig/menuChanged", {})
        if self.project is not None and self.project.kc is not None:
            # (Not awaited: the first re-link waits for it if it must.)
            asyncio.get_running_loop().run_in_executor(None, self.project.prepare_relink)
            if self.index_task is None:
                self.index_task = asyncio.ensure_future(self.index_uses(self.project))

    async def index_uses(self, project: Project) -> None:
        """Index the CONFIG_ uses of the tree's source files, with progress
        (the first time ~15 s on a kernel tree, then a walk of ~1 s)."""
        token = await self.new_progress_token()
        loop = asyncio.get_running_loop()

        def report(done: int, total: int) -> None:
            if token is not None:
                loop.call_soon_threadsafe(self.work_done_progress.report, token, lsp.WorkDoneProgressReport(
                    message=f"{done}/{total} files", percentage=min(99, done * 100 // max(total, 1))))

        if token is not None:
            self.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
                title="Indexing CONFIG_ uses", message=project.root, percentage=0))
        message = "done"
        try:
            read = await loop.run_in_executor(None, project.index_uses, report)
            message = f"{read} files read"
        except Exception as exc:  # noqa: BLE001 - references then leave out C files and Makefiles
            message = f"failed: {exc}"
            self.window_log_message(lsp.LogMessageParams(
                type=lsp.MessageType.Warning, message=f"kconfig-ls: indexing CONFIG_ uses failed: {exc}"))
        finally:
            if token is not None:
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=message))

    def status(self) -> dict:
        """What the server has open: root, arch, config file, trust, counts
        (the ``kconfig.status`` command, and the ``kconfig/status``
        notification sent after each load so clients can show it)."""
        project = self.project
        if project is None:
            return {"loaded": False, "server": server_identity(), "pid": os.getpid()}
        kc = project.kc
        return {
            "server": server_identity(),
            # (Not always the process the editor started: see kconfig_ls/resident.py.)
            "pid": os.getpid(),
            "loaded": kc is not None,
            "root": project.root,
            "kernel": project.kernel,
            "arch": project.arch,
            "configFile": project.config_path,
            "configExists": project.config_text is not None,
            "trusted": project.trusted,
            "files": len(kc.files) if kc is not None else 0,
            "lastLink": self.last_link,
            "kconfigVersion": project.generation.name,
            "kconfigRules": project.generation.description,
            "kconfigVersionError": project.generation_error,
            "error": str(project.load_error) if project.load_error else None,
            # (References reach C files and Makefiles once this is true.)
            "usesIndexed": self.index_task is not None and self.index_task.done(),
        }

    async def new_progress_token(self) -> str | None:
        """A work-done progress token the client accepted (None if it has
        no progress support)."""
        window = self.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = str(uuid.uuid4())
        try:
            await self.work_done_progress.create_async(token)
        except Exception:  # noqa: BLE001 - a client without progress support
            return None
        return token

    async def run_with_progress(self, title: str, job, on_cancel=None):
        """Run ``job(report)`` with a work-done progress; ``report(stage,
        message)`` updates it.  With ``on_cancel``, the progress is
        cancellable: when the client cancels it, the job is cancelled
        (ending its child processes) and ``on_cancel()`` is the result."""
        token = await self.new_progress_token()

        def report(stage: str, message: str) -> None:
            if token is not None:
                self.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=f"{stage}: {message}"))

        inner = asyncio.ensure_future(job(report))
        if token is not None:
            self.work_done_progress.begin(
                token, lsp.WorkDoneProgressBegin(title=title, cancellable=on_cancel is not None))
            cancelled = self.work_done_progress.tokens.get(token)
            if on_cancel is not None and cancelled is not None:
                cancelled.add_done_callback(lambda _f: inner.cancel())
        done = "cancelled"
        try:
            try:
                outcome = await inner
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if on_cancel is None or (current is not None and current.cancelling()):
                    raise  # the request itself was cancelled ($/cancelRequest)
                outcome = on_cancel()
            done = outcome.message
        finally:
            if token is not None:
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=done))
        return outcome

    def schedule_reload(self, tree_changed: bool = True) -> None:
        """Re-load after a quiet time; a re-load in progress is abandoned."""
        if tree_changed:
            self.tree_dirty = True
        if self.reload_task is not None and not self.reload_task.done():
            self.reload_task.cancel()
        if self.project is not None and self.project.kc is not None:
            self.cancel_load.set()
        self.reload_task = asyncio.ensure_future(self._reload_later())
        self.relink_waiting = self.tree_dirty

    def schedule_collect(self) -> None:
        """Free the trees a re-link replaced, once nothing is pending.

        A tree is a web of cycles (symbols point back at it), so only the
        cyclic collector frees it; Python runs a full collection only when
        its long-lived objects grew by a quarter, which with ~500,000 of
        them per tree let a long session keep a dozen old trees.  A full
        collection takes ~0.3-0.5 s, so it waits for a pause in editing,
        unless two replaced trees are waiting already (edits without pause)."""
        self.replaced = [ref for ref in self.replaced if ref() is not None]
        if self.collect_task is not None and not self.collect_task.done():
            self.collect_task.cancel()
        if len(self.replaced) >= 2:
            self.collect()
        elif self.replaced:
            self.collect_task = asyncio.ensure_future(self._collect_later())

    async def _collect_later(self) -> None:
        await asyncio.sleep(COLLECT_SECONDS)
        if not self.load_lock.locked() and (self.reload_task is None or self.reload_task.done()):
            self.collect()

    def collect(self) -> None:
        # Trees a resident process read ahead and this server did not take
        # go too: until now their pages were shared with it, untouched.
        tree_cache.forget_preloaded(keep=0)
        heap.collect()  # (the freed trees' refs are dropped at the next schedule)
        heap.freeze()  # (what is left is the loaded tree: see Project.freeze_trees)

    def new_project(self, root: str) -> Project:
        """A project for ``root``; its trees are frozen out of the cyclic
        collector, and replaced ones freed by :meth:`collect`."""
        return Project(root, self.settings, freeze_trees=True)

    async def _reload_later(self, relink: bool = True) -> None:
        await asyncio.sleep(RELINK_SECONDS if self.tree_dirty else CONFIG_READ_SECONDS)
        if self.tree_dirty:
            self.relink_waiting = False
            if relink and await self.relink():
                return
            await asyncio.sleep(DEBOUNCE_SECONDS - RELINK_SECONDS)
        # (Only the config changed: it is read again as soon as typing pauses.)
        await self.load(background=True)

    async def relink_now(self) -> None:
        """Re-link the pending Kconfig edit now rather than after the quiet
        time (a hover asks for the values it implies).  When it cannot be
        re-linked, the re-load goes on as scheduled, without trying again."""
        task = self.reload_task
        if not self.relink_waiting or task is None or task.done() or self.load_lock.locked():
            return
        task.cancel()
        self.relink_waiting = False
        if not await self.relink():
            self.reload_task = asyncio.ensure_future(self._reload_later(relink=False))

    async def relink(self) -> bool:
        """Patch the edited Kconfig buffer into the loaded tree; False when
        a load is needed.  The patch runs on the event loop (no request
        sees a half-patched tree); values and cycles follow in a thread,
        like a config re-read."""
        project = self.project
        if project is None or self.load_lock.locked():
            return False
        async with self.load_lock:
            if not project.relink():
                if project.relink_error is not None:
                    self.window_log_message(lsp.LogMessageParams(
                        type=lsp.MessageType.Error,
                        message=f"kconfig-ls: re-linking failed, loading the tree afresh:\n{project.relink_error}"))
                    project.relink_error = None
                    self.tree_dirty = True
                return False
            self.tree_dirty = False
            self.last_link = "relink"
            self.locator = Locator(project.kc)
            self.columns.forget()
            self.settling = True
            try:
                # (A newer edit cancels this task, not the values being read.)
                await asyncio.shield(asyncio.get_running_loop().run_in_executor(None, project.settle_relink))
            finally:
                self.settling = False
            # (Not awaited: quick unless the edit's links went against the order.)
            asyncio.get_running_loop().run_in_executor(None, project.prepare_relink)
        self.publish_all()
        self.protocol.notify("kconfig/status", self.status())
        self.protocol.notify("kconfig/menuChanged", {})
        return True

    def schedule_check(self, uri: str) -> None:
        """Publish the problems of an edited buffer after a short quiet time,
        without waiting for the tree to be re-linked."""
        pending = self.check_tasks.get(uri)
        if pending is not None and not pending.done():
            pending.cancel()
        self.check_tasks[uri] = asyncio.ensure_future(self._check_later(uri))

    async def _check_later(self, uri: str) -> None:
        await asyncio.sleep(QUICK_CHECK_SECONDS)
        # (While a re-link's values are computed, its publication follows:
        # a check now would find the patched tree without them, and delay them.)
        if uri in self.workspace.text_documents and not self.settling:
            self.publish(uri)

    # -- diagnostics ---------------------------------------------------------------------
    def publish_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.publish(uri)

    def publish(self, uri: str) -> None:
        """Publish the problems of an open document, for its current text
        (not while the tree is built again: the load publishes them)."""
        project = self.project
        if project is None or not self.tree_ready.is_set():
            return
        document = self.workspace.get_text_document(uri)
        lines = document.lines  # (split anew at each access: once for all problems)
        doc = self.document(uri)
        with project.lock:  # values are computed; a config re-read may be under way
            if doc.source is not None:
                if project.kc is None or not doc.in_tree:
                    return
                problems = sources.source_problems(project, doc.name, document.source, doc.source)
            else:
                problems = diagnostics.document_problems(project, doc.name, document.source, doc.kconfig)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=[self.to_lsp_diagnostic(p, lines) for p in problems]))

    def to_lsp_diagnostic(self, p: diagnostics.Problem, lines: list[str]) -> lsp.Diagnostic:
        if p.end_line is not None:  # (lines: the range ends at a line's start)
            return lsp.Diagnostic(
                range=lsp.Range(lsp.Position(p.line - 1, p.col), lsp.Position(p.end_line - 1, p.end_col)),
                message=p.message, severity=_SEVERITY.get(p.severity, lsp.DiagnosticSeverity.Hint),
                source="kconfig-ls", code=p.code or None, data=p.data,
                tags=[lsp.DiagnosticTag.Unnecessary] if p.code == "compiled-out" else None)
        line = max(p.line - 1, 0)
        text = lines[line].rstrip("\r\n") if line < len(lines) else ""
        # (A problem of the whole line has an end past it: clamp to the text.)
        col = min(p.col, len(text))
        start = self.columns.to_client(text, col)
        end = self.columns.to_client(text, min(max(p.end_col, col), len(text)))
        return lsp.Diagnostic(
            range=lsp.Range(lsp.Position(line, start), lsp.Position(line, end)),
            message=p.message,
            severity=_SEVERITY.get(p.severity, lsp.DiagnosticSeverity.Warning),
            source="kconfig-ls",
            code=p.code or None,
            data=p.data,
        )


def location(project: Project, file: str, line: int, col: int = 0, end_col: int | None = None) -> lsp.Location:
    uri = name_to_uri(project, file)
    row = max(line - 1, 0)
    end_col = end_col if end_col is not None else col
    start = lsp.Position(row, server.columns.uri_col(uri, row, col))
    end = lsp.Position(row, server.columns.uri_col(uri, row, end_col))
    return lsp.Location(uri=uri, range=lsp.Range(start, end))


server = KconfigServer()


@server.feature(lsp.INITIALIZE)
def on_initialize(ls: KconfigServer, params: lsp.InitializeParams) -> None:
    ls.settings = Settings.from_options(params.initialization_options if isinstance(
        params.initialization_options, dict) else None)
    root = ls.pick_root(params)
    if root is not None:
        ls.project = ls.new_project(root)


WATCHED_GLOBS = ("**/Kconfig", "**/Kconfig.*", "**/Config.in", "**/*.kconfig", "**/.config", "**/*defconfig",
                 # (source files: their CONFIG_ uses are indexed)
                 "**/*.{c,h,S,dts,dtsi,lds,mk}", "**/Makefile", "**/Makefile.*", "**/Kbuild")


@server.feature(lsp.INITIALIZED)
async def on_initialized(ls: KconfigServer, params: lsp.InitializedParams) -> None:
    # Not awaited: a client that is slow to answer must not delay loading.
    asyncio.ensure_future(register_file_watchers(ls))
    # A pid not alive now belongs to another pid namespace (a client outside
    # a container): it cannot be watched.
    if ls.process_id and process_alive(ls.process_id):
        ls.client_watch = asyncio.ensure_future(watch_client(ls.process_id))
    if ls.project is not None:
        await ls.load()


async def watch_client(pid: int, every: float = 1.0) -> None:
    """End the server when the client process that started it is gone (an
    editor that crashed never sends ``exit``)."""
    while process_alive(pid):
        await asyncio.sleep(every)
    end_now(1)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            # A zombie has exited; only its parent has not collected it yet.
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def end_now(status: int) -> None:
    """Leave at once: end the children (make, QEMU) and do not wait for
    worker threads (a load in progress) as a normal exit would."""
    from ..kconfig.tree_cache import reap_writers
    from ..validate.process import kill_running

    kill_running()
    if server.project is not None and server.project.uses is not None:
        server.project.uses.stop()  # (its worker processes)
    reap_writers(wait=0.3)  # a snapshot still being written is given up
    sys.stdout.flush()
    os._exit(status)


@server.feature(lsp.EXIT)
def on_exit(ls: KconfigServer, *args) -> None:
    # pygls exits after this; a load running in a worker thread would keep
    # the interpreter waiting, so leave here (0: shutdown came first).
    end_now(0 if ls.protocol._shutdown else 1)


async def register_file_watchers(ls: KconfigServer) -> None:
    """Ask the client to report changes of Kconfig and config files made
    outside the editor (git checkout, make olddefconfig), when it can."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = lsp.DidChangeWatchedFilesRegistrationOptions(
        watchers=[lsp.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED_GLOBS])
    registration = lsp.Registration(id=str(uuid.uuid4()), method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                    register_options=options)
    try:
        await ls.client_register_capability_async(lsp.RegistrationParams(registrations=[registration]))
    except Exception as exc:  # noqa: BLE001 - the editor works without it
        ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Warning,
                                                   message=f"kconfig-ls: file watchers not registered: {exc}"))


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def on_configuration(ls: KconfigServer, params: lsp.DidChangeConfigurationParams) -> None:
    if not isinstance(params.settings, dict):
        return
    ls.settings = Settings.from_options(params.settings, ls.settings)
    if ls.project is not None:
        overlays = ls.project.overlays
        ls.project = ls.new_project(ls.settings.root or ls.project.root)
        ls.project.overlays = overlays
        await ls.load()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
async def on_open(ls: KconfigServer, params: lsp.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    had_project = ls.project is not None
    # A buffer that is no file (untitled) joins the open tree; it never
    # picks one itself.
    project = ls.ensure_project(uri_to_path(uri)) if is_file_uri(uri) else ls.project
    if project is None:
        return
    doc = ls.document(uri)
    if _feeds_the_load(project, doc):
        # From now on the buffer stands for the file, even if the file is
        # deleted; a buffer the editor restored unsaved is loaded at once.
        project.set_overlay(doc.path, params.text_document.text)
        if project.kc is not None and project.differs_from_load(doc.name, params.text_document.text, doc.kconfig):
            ls.schedule_reload(tree_changed=doc.kconfig)
    if not had_project:
        await ls.load()
        return
    if project.kc is not None and not ls.load_lock.locked():
        # (A load under way publishes every open document when it ends.)
        ls.publish(uri)


def _feeds_the_load(project: Project, doc: DocumentRef) -> bool:
    """Whether the document's text goes into the tree's load: a Kconfig
    file of the tree's directory, or the configured config file (also one
    outside the tree, as in a separate build directory)."""
    return (doc.in_tree and doc.kconfig) or (doc.path is not None and project.is_config_file(doc.path))


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def on_change(ls: KconfigServer, params: lsp.DidChangeTextDocumentParams) -> None:
    project = ls.project
    if project is None:
        return
    uri = params.text_document.uri
    doc = ls.document(uri)
    if _feeds_the_load(project, doc):
        project.set_overlay(doc.path, ls.workspace.get_text_document(uri).source)
        ls.schedule_reload(tree_changed=doc.kconfig)
    ls.schedule_check(uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def on_save(ls: KconfigServer, params: lsp.DidSaveTextDocumentParams) -> None:
    doc = ls.document(params.text_document.uri)
    if ls.project is not None and doc.path is not None:
        if doc.source is not None:
            _refresh_uses(ls.project, [doc.path])
            return
        ls.project.refresh_definitions(doc.path)
        ls.schedule_reload(tree_changed=doc.kconfig)


def _refresh_uses(project: Project, paths: list[str]) -> None:
    """Read saved or changed source files into the index of uses (in a
    thread: a checkout changes thousands)."""
    index = project.uses
    if index is not None and paths:
        asyncio.get_running_loop().run_in_executor(None, lambda: [index.refresh(path) for path in paths])


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def on_close(ls: KconfigServer, params: lsp.DidCloseTextDocumentParams) -> None:
    project = ls.project
    if project is None:
        return
    doc = describe(project, params.text_document.uri, None)
    if doc.path is not None:
        project.set_overlay(doc.path, None)
        ls.schedule_reload(tree_changed=doc.kconfig)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def on_watched(ls: KconfigServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    if ls.project is not None:
        paths = [uri_to_path(change.uri) for change in params.changes if is_file_uri(change.uri)]
        source_paths = [path for path in paths if sources.source_kind(path) is not None]
        _refresh_uses(ls.project, source_paths)
        paths = [path for path in paths if path not in source_paths]
        for path in paths:
            ls.project.refresh_definitions(path)
        if paths:
            ls.schedule_reload(tree_changed=any(is_kconfig_file(path) for path in paths))


def _target(ls: KconfigServer, uri: str, position: lsp.Position):
    project = ls.project
    if project is None or project.kc is None or ls.locator is None:
        return None, None
    if not _has_text(ls, uri):
        return project, None
    document = ls.workspace.get_text_document(uri)
    if position.line > len(document.lines):
        raise BadArgument(f"line {position.line} is past the end of the document ({len(document.lines)} lines)")
    line = document.lines[position.line].rstrip("\r\n") if position.line < len(document.lines) else ""
    col = ls.columns.from_client(line, position.character)
    doc = ls.document(uri)
    if doc.source is not None:
        with project.lock:
            return project, sources.target_at(project, doc.name, document.source, doc.source,
                                              position.line + 1, col)
    if doc.kconfig:
        view = _file_view(ls, project, uri)
        if view is project.kc:
            return project, ls.locator.in_kconfig(doc.name, position.line + 1, col)
        return project, in_checked_file(view, doc.name, position.line + 1, col)
    return project, in_config_text(project.kc, document.source, position.line + 1, col)


def _for_the_tree(project: Project) -> str:
    """How to name the loaded tree in "not defined ..." (a tree that is no
    kernel has no ARCH)."""
    return f"for ARCH={project.arch}" if project.arch else "in the loaded tree"


def _has_text(ls: KconfigServer, uri: str) -> bool:
    """The document is open or its file exists: else there is nothing to
    answer about (the result is empty, not an error)."""
    return uri in ls.workspace.text_documents or (is_file_uri(uri) and os.path.isfile(uri_to_path(uri)))


def _explain_link(ls: KconfigServer, sym) -> str | None:
    """A markdown link running the client's "explain" command on ``sym``,
    for clients that said they run command links."""
    if not ls.settings.command_links or not sym.name:
        return None
    args = quote(json.dumps([sym.name]))
    return f"[full explanation](command:kconfig-ls.explain?{args})"


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@answered("textDocument/hover", fresh_values=True)
def on_hover(ls: KconfigServer, params: lsp.HoverParams) -> lsp.Hover | None:
    project, target = _target(ls, params.text_document.uri, params.position)
    if target is None:
        return None
    kc = project.kc
    with project.lock:
        if target.kind == "source":
            text = hover.source_markdown(kc, target.source_path)
        elif target.kind == "macro":
            text = hover.macro_markdown(target.name, target.expansion, project.trusted)
        elif target.symbol is not None:
            text = hover.symbol_hover(project, target.symbol, HOVER_FIX_SECONDS, _explain_link(ls, target.symbol))
        else:
            where = navigation.definitions(project, kc, target.name)
            text = f"**CONFIG_{target.name}** is not defined {_for_the_tree(project)}" + (
                " (defined at " + ", ".join(f"{f}:{n}" for f, n in where) + ")" if where else "")
        if target.construct is not None:
            text = f"{target.construct}\n\n---\n\n{text}"
    line = target.line - 1
    line_text = ls.columns.line_text(params.text_document.uri, line)
    start, end = (ls.columns.to_client(line_text, c) for c in (target.start_col, target.end_col))
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
        range=lsp.Range(lsp.Position(line, start), lsp.Position(line, end)),
    )


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@answered("textDocument/definition")
def on_definition(ls: KconfigServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    project, target = _target(ls, params.text_document.uri, params.position)
    if target is None:
        return None
    if target.kind == "source":
        path = project.kc.resolve_path(target.source_path)
        return [location(project, path, 1)] if path else None
    if target.kind == "macro":
        return None
    return [location(project, f, line) for f, line in navigation.definitions(project, project.kc, target.name)]


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
@answered("textDocument/references")
def on_references(ls: KconfigServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    project, target = _target(ls, params.text_document.uri, params.position)
    if target is None or target.kind in ("source", "macro"):
        return None
    refs = navigation.references(project.kc, target.name, params.context.include_declaration)
    open_sources = {}
    for uri, document in ls.workspace.text_documents.items():
        doc = ls.document(uri)
        if doc.source is not None and doc.in_tree:
            open_sources[doc.name] = (document.source, doc.source)
    with project.lock:
        refs += sources.source_references(project, target.name, open_sources)
    return [location(project, f, line, col, end) for f, line, col, end in refs]


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@answered("textDocument/documentSymbol")
def on_document_symbol(ls: KconfigServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    project = ls.loaded()
    if project is None or not _has_text(ls, params.text_document.uri):
        return []
    doc = ls.document(params.text_document.uri)
    if not doc.kconfig:
        return []
    return [_document_symbol(item) for item in outline.outline(_file_view(ls, project, doc.uri), doc.name)]


def _document_symbol(item: outline.OutlineItem) -> lsp.DocumentSymbol:
    full = lsp.Range(lsp.Position(item.line - 1, 0), lsp.Position(item.end_line - 1, 1000))
    selection = lsp.Range(lsp.Position(item.name_line - 1, 0), lsp.Position(item.name_line - 1, 1000))
    return lsp.DocumentSymbol(
        name=item.name,
        detail=item.detail,
        kind=_OUTLINE_KIND.get(item.kind, lsp.SymbolKind.Variable),
        range=full,
        selection_range=selection,
        children=[_document_symbol(c) for c in item.children],
    )


@server.feature(lsp.WORKSPACE_SYMBOL)
@answered("workspace/symbol")
def on_workspace_symbol(ls: KconfigServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    project = ls.loaded()
    if project is None:
        return []
    query = params.query.upper()
    out = []
    for sym in project.kc.defined_symbols():
        if query and query not in sym.name:
            continue
        node = sym.nodes[0]
        out.append(lsp.SymbolInformation(name=sym.name, kind=lsp.SymbolKind.Variable,
                                         location=location(project, node.file, node.line)))
        if len(out) >= 500:
            break
    return out


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["_", '"', "/"]))
@answered("textDocument/completion")
def on_completion(ls: KconfigServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    project = ls.loaded()
    if project is None or not _has_text(ls, params.text_document.uri):
        return None
    doc = ls.document(params.text_document.uri)
    if doc.source is not None:
        return None  # (the language's own server completes C and make)
    document = ls.workspace.get_text_document(params.text_document.uri)
    lines = document.lines
    line_text = lines[params.position.line].rstrip("\r\n") if params.position.line < len(lines) else ""
    before = line_text[: ls.columns.from_client(line_text, params.position.character)]
    with project.lock:  # values are computed; a config re-read may be under way
        if doc.kconfig:
            items = completion.kconfig_completions(project.kc, project.root, doc.name, before)
        else:
            items = completion.config_completions(project.kc, before)
    kinds = {"keyword": lsp.CompletionItemKind.Keyword, "symbol": lsp.CompletionItemKind.Variable,
             "file": lsp.CompletionItemKind.File, "value": lsp.CompletionItemKind.Value}
    return lsp.CompletionList(is_incomplete=False, items=[
        lsp.CompletionItem(label=i.label, kind=kinds[i.kind], detail=i.detail or None, insert_text=i.insert)
        for i in items
    ])


@server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
@answered("textDocument/foldingRange")
def on_folding(ls: KconfigServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange]:
    project = ls.loaded()
    if project is None or not _has_text(ls, params.text_document.uri):
        return []
    doc = ls.document(params.text_document.uri)
    if not doc.kconfig:
        return []
    ranges = []

    def visit(items):
        for item in items:
            if item.end_line > item.line:
                ranges.append(lsp.FoldingRange(start_line=item.line - 1, end_line=item.end_line - 1))
            visit(item.children)

    visit(outline.outline(_file_view(ls, project, doc.uri), doc.name))
    return ranges


def _file_view(ls: KconfigServer, project: Project, uri: str):
    """The loaded tree, or the open document checked on its own when it was
    edited since the load (its outline then has the buffer's lines)."""
    text = ls.workspace.get_text_document(uri).source
    with project.lock:
        return project.file_view(ls.document(uri).name, text)


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
)
@answered("textDocument/codeAction")
def on_code_action(ls: KconfigServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    project = ls.loaded()
    if project is None:
        return None
    actions = []
    uri = params.text_document.uri
    for diag in params.context.diagnostics:
        data = diag.data if isinstance(diag.data, dict) else None
        if data is None or diag.code not in ("value-not-kept", "unmet-select"):
            continue
        if diag.code == "value-not-kept":
            # (The fix edits this document, whatever file it is or is not.)
            config_path = uri_to_path(uri)
            base = ls.workspace.get_text_document(uri).source
        else:
            config_path = project.config_path
            base = project.config_text
            if base is None:
                continue
        fix = ide_actions.fix_action(project, str(data.get("symbol")), str(data.get("target")), config_path, base)
        if fix is None:
            continue
        edits = text_edits(ls, base, fix.changes)
        actions.append(lsp.CodeAction(
            title=fix.title,
            kind=lsp.CodeActionKind.QuickFix,
            diagnostics=[diag],
            is_preferred=True,
            edit=lsp.WorkspaceEdit(changes={uri if diag.code == "value-not-kept" else from_fs_path(fix.path): edits}),
        ))
    return actions


def text_edits(ls: KconfigServer, base: str, changes: list[ide_actions.TextChange]) -> list[lsp.TextEdit]:
    """Text changes against ``base`` as LSP edits (columns in client units)."""
    lines = base.split("\n")

    def position(row: int, col: int) -> lsp.Position:
        return lsp.Position(row, ls.columns.to_client(lines[row] if row < len(lines) else "", col))

    return [lsp.TextEdit(range=lsp.Range(position(c.start_line, c.start_col), position(c.end_line, c.end_col)),
                         new_text=c.text) for c in changes]


def _command_args(args: tuple, *names: str) -> list:
    """Positional command arguments, or one object holding them by name."""
    if len(args) == 1 and isinstance(args[0], list):
        args = tuple(args[0])
    if len(args) == 1 and isinstance(args[0], dict):
        return [args[0].get(n) for n in names]
    return [args[i] if i < len(args) else None for i in range(len(names))]


def _require_loaded(ls: KconfigServer) -> Project:
    project = ls.loaded()
    if project is None:
        raise CommandFailed("no Kconfig tree is loaded")
    return project


def _symbol_for(ls: KconfigServer, name):
    project = _require_loaded(ls)
    if not isinstance(name, str) or not name:
        raise BadArgument(f"expected a symbol name, got {_shown_argument(name)}")
    name = name.removeprefix("CONFIG_")
    sym = project.kc.find(name)
    if sym is None or not sym.nodes:
        raise BadArgument(f"{_shown_argument(name)} is not defined {_for_the_tree(project)}")
    return project, sym


def _shown_argument(value) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:59] + "…"


@server.command("kconfig.explain")
@answered("kconfig.explain")
def cmd_explain(ls: KconfigServer, *args) -> dict:
    """Why a symbol has its value: ``{"markdown", "text", "explanation"}``."""
    from ..kconfig.explain import explain
    from ..kconfig.explain_report import explanation_markdown, explanation_text

    (name,) = _command_args(args, "symbol")
    project, sym = _symbol_for(ls, name)
    with project.lock:
        config_name = project.relative(project.config_path) if project.config_text else None
        ex = explain(project.kc, sym, config_name, project.config_text, project.all_arch_definitions)
        text = explanation_text(project.kc, ex)
    return {"markdown": explanation_markdown(ex), "text": text, "explanation": ex.to_dict()}


@server.command("kconfig.howTo")
@answered("kconfig.howTo")
def cmd_how_to(ls: KconfigServer, *args) -> dict:
    """Verified assignments giving a symbol a value: ``{"markdown", "text",
    "result"}``; ``target`` defaults to ``y``."""
    from ..kconfig.explain_report import howto_markdown, howto_text

    name, target = _command_args(args, "symbol", "target")
    project, sym = _symbol_for(ls, name)
    answer = project.how_to(sym.name, str(target or "y"))
    return {"markdown": howto_markdown(answer), "text": howto_text(answer), "result": answer.to_dict()}


@server.command("kconfig.applyHowTo")
@answered("kconfig.applyHowTo")
async def cmd_apply_how_to(ls: KconfigServer, *args) -> dict:
    """Apply a verified how-to answer to the config file (through the
    client, so open buffers stay in sync): ``{"applied", "result"}``."""
    name, target = _command_args(args, "symbol", "target")
    project, sym = _symbol_for(ls, name)
    path = project.config_path
    base = _config_base(ls, path) or ""
    fix = ide_actions.fix_action(project, sym.name, str(target or "y"), path, base)
    if fix is None:
        answer = project.how_to(sym.name, str(target or "y"), base)
        return {"applied": False, "result": answer.to_dict()}
    applied = await _apply_config_changes(ls, path, base, fix.changes, fix.title)
    return {"applied": applied, "title": fix.title, "result": fix.answer.to_dict()}


def _config_base(ls: KconfigServer, path: str) -> str | None:
    """The config file's text as the user sees it: its open buffer, else
    the file (None: there is none)."""
    document = ls.workspace.text_documents.get(from_fs_path(path))
    if document is not None:
        return document.source
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError:
        return None


async def _apply_config_changes(ls: KconfigServer, path: str, base: str, changes, label: str) -> bool:
    """Ask the client to make ``changes`` to the config file (creating it
    if need be), so an open buffer stays the user's to save."""
    edits = text_edits(ls, base, changes)
    if not os.path.exists(path):
        document_changes = [lsp.CreateFile(uri=from_fs_path(path)),
                            lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(
                                uri=from_fs_path(path), version=None), edits=edits)]
        edit = lsp.WorkspaceEdit(document_changes=document_changes)
    else:
        edit = lsp.WorkspaceEdit(changes={from_fs_path(path): edits})
    try:
        response = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
    except JsonRpcException as exc:
        raise CommandFailed(f"the editor could not apply the edit to {os.path.basename(path)}: {exc.message}") \
            from None
    return bool(response.applied)


@server.command("kconfig.setValue")
@answered("kconfig.setValue")
async def cmd_set_value(ls: KconfigServer, *args) -> dict:
    """Set one symbol's value in the config file, as menuconfig would:
    ``{"applied", "changed": [{"symbol", "value", "visible"}]}``, or a
    refusal with its ``reason`` (and a verified ``howTo``) that changes
    nothing (see :mod:`..ide.setvalue`)."""
    name, value = _command_args(args, "symbol", "value")
    project, sym = _symbol_for(ls, name)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise BadArgument(f"expected a value (a string), got {_shown_argument(value)}")
    path = project.config_path
    base = _config_base(ls, path)
    outcome = await asyncio.get_running_loop().run_in_executor(
        None, setvalue.set_value, project, sym.name, value, base)
    if not outcome.accepted:
        from ..kconfig.explain_report import howto_text

        answer = {"applied": False, "changed": [], "reason": outcome.reason}
        if outcome.suggestion is not None:
            answer["howTo"] = outcome.suggestion.to_dict()
            answer["howToText"] = howto_text(outcome.suggestion)
        return answer
    applied = bool(outcome.changes) and await _apply_config_changes(
        ls, path, base or "", outcome.changes, f"Set {sym.name}={value}")
    if not outcome.changes:
        return {"applied": True, "changed": outcome.changed}
    if not applied:
        return {"applied": False, "changed": [], "reason": "the editor did not apply the edit"}
    return {"applied": True, "changed": outcome.changed}


@server.command("kconfig.writeConfig")
@answered("kconfig.writeConfig")
async def cmd_write_config(ls: KconfigServer, *args) -> dict:
    """Write the configuration the server shows to ``path`` (default: the
    tree's config file) and check it with ``make olddefconfig``."""
    from dataclasses import asdict

    from ..validate.run import write_config

    project = _require_loaded(ls)
    (path,) = _command_args(args, "path")
    if path is not None and not isinstance(path, str):
        raise BadArgument(f"expected a file path, got {_shown_argument(path)}")
    outcome = await ls.run_with_progress(
        "kconfig-ls: write config", lambda report: write_config(project, path, report))
    return asdict(outcome)


@server.command("kconfig.validate")
@answered("kconfig.validate")
async def cmd_validate(ls: KconfigServer, *args) -> dict:
    """Write the shown configuration, check it, build ``bzImage`` out of
    tree and boot it in QEMU (options: ``boot``, ``buildDir``,
    ``addBootEssentials``, ``jobs``); progress is reported and can be
    cancelled, which ends make and QEMU."""
    from dataclasses import asdict

    from ..validate.run import validate
    from ..validate.steps import Outcome

    project = _require_loaded(ls)
    boot, build_dir, add_essentials, jobs = _command_args(args, "boot", "buildDir", "addBootEssentials", "jobs")

    def job(report):
        return validate(project, report, build_dir=build_dir, boot=boot is None or bool(boot),
                        add_essentials=bool(add_essentials), jobs=jobs)

    def cancelled():
        return Outcome(False, "cancelled", "validation cancelled; make and QEMU were stopped")

    outcome = await ls.run_with_progress("kconfig-ls: validate", job, on_cancel=cancelled)
    return asdict(outcome)


def _request_object(params) -> dict:
    """A custom request's parameters as a dict (pygls gives a JSON object
    of a method it does not know as a named tuple)."""
    if params is None:
        return {}
    if hasattr(params, "_asdict"):
        params = params._asdict()
    if not isinstance(params, dict):
        raise BadArgument(f"expected an object of parameters, got {type(params).__name__}")
    return params


def _entry_location(project: Project, entry: dict) -> dict:
    where = entry.pop("location")
    entry["location"] = {"uri": name_to_uri(project, where["file"]), "line": max(where["line"] - 1, 0)}
    return entry


@server.feature("kconfig/menu")
@answered("kconfig/menu")
def on_menu(ls: KconfigServer, params) -> dict:
    """The entries under a menu entry (``node``: an id from an earlier
    answer, or null for the top level), as menuconfig lists them; with
    ``showAll``, the invisible ones too (see :mod:`..ide.configurator`)."""
    args = _request_object(params)
    entry, show_all = args.get("node"), args.get("showAll", False)
    if entry is not None and (not isinstance(entry, int) or isinstance(entry, bool)):
        raise BadArgument(f"node: expected an entry id (a number) or null, got {entry!r}")
    if not isinstance(show_all, bool):
        raise BadArgument(f"showAll: expected true or false, got {show_all!r}")
    project = ls.loaded()
    if project is None:
        return {"nodes": []}
    with project.lock:
        try:
            nodes = configurator.children(project, entry, show_all)
        except configurator.UnknownEntry as exc:
            raise BadArgument(str(exc)) from None
    answer = {"nodes": [_entry_location(project, node) for node in nodes]}
    if project.load_error is not None:
        # (The last good tree answers while an edit keeps the new one from loading.)
        answer["stale"] = True
        answer["error"] = str(project.load_error)
    return answer


@server.feature("kconfig/search")
@answered("kconfig/search")
def on_menu_search(ls: KconfigServer, params) -> dict:
    """Entries by symbol name (with or without CONFIG_), prompt and help,
    best matches first (menuconfig's ``/``)."""
    query = _request_object(params).get("query")
    if not isinstance(query, str):
        raise BadArgument(f"query: expected a string, got {query!r}")
    project = ls.loaded()
    if project is None:
        return {"results": []}
    with project.lock:
        results = configurator.search(project, query)
    return {"results": [_entry_location(project, result) for result in results]}


@server.command("kconfig.status")
@answered("kconfig.status")
def cmd_status(ls: KconfigServer, *args) -> dict:
    """What the server has open: root, arch, config file, trust, counts."""
    return ls.status()


@server.command("kconfig.reload")
@answered("kconfig.reload")
async def cmd_reload(ls: KconfigServer, *args) -> bool:
    await ls.load()
    return True


@server.command("kconfig.setArch")
@answered("kconfig.setArch")
async def cmd_set_arch(ls: KconfigServer, *args) -> str:
    (arch,) = _command_args(args, "arch")
    if not isinstance(arch, str) or not arch.strip():
        raise BadArgument(f"expected an ARCH name, got {_shown_argument(arch)}")
    if ls.project is None:
        return ""
    if ls.project.kernel and srcarch_for(arch) not in available_arches(ls.project.root):
        raise BadArgument(f"{_shown_argument(arch)} is not an ARCH of this tree")
    ls.settings.arch = arch
    overlays = ls.project.overlays
    ls.project = ls.new_project(ls.project.root)
    ls.project.overlays = overlays
    await ls.load()
    return ls.project.arch or ""


def server_identity() -> dict:
    """Which server this is: its version, the directory it was imported
    from (a venv, a wheel install, or the VS Code extension's bundle), and
    the Python running it; clients show it so a user knows what answers."""
    return {
        "version": __version__,
        "package": str(Path(kconfig_ls.__file__).resolve().parent),
        "python": sys.executable,
        "pythonVersion": platform.python_version(),
    }


def main(tcp: str | None = None) -> None:
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
