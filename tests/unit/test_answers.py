"""The server's answer policy, in process: which exception becomes which
JSON-RPC error, and an unexpected one is logged once with its traceback."""

from __future__ import annotations

import asyncio

import pytest
from pygls.exceptions import JsonRpcException

from kconfig_ls.kconfig.howto import TargetError
from kconfig_ls.server.answers import REQUEST_FAILED, BadArgument, CommandFailed, answered


class FakeServer:
    def __init__(self):
        self.logged = []

    def window_log_message(self, params):
        self.logged.append(params)


def call(handler, ls, *args):
    """Run a sync handler as pygls does: a generator is driven to its end
    (with nothing to wait for, it yields nothing)."""
    run = handler(ls, *args)
    try:
        waited = next(run)
    except StopIteration as done:
        return done.value
    raise AssertionError(f"the handler waited for {waited}")


def raising(exc):
    @answered("kconfig.test")
    def handler(ls, *args):
        raise exc

    return handler


@pytest.mark.parametrize(("exc", "code"), [
    (BadArgument("expected a symbol name, got 42"), -32602),
    (TargetError("E1000 cannot be maybe"), -32602),
    (CommandFailed("no Kconfig tree is loaded"), REQUEST_FAILED),
])
def test_known_failures_get_their_code_and_message(exc, code):
    ls = FakeServer()
    with pytest.raises(JsonRpcException) as info:
        call(raising(exc), ls)
    assert info.value.code == code and info.value.message == str(exc) and info.value.data is None
    assert ls.logged == []


def test_an_unexpected_failure_is_logged_once_and_answered_in_one_line():
    ls = FakeServer()
    with pytest.raises(JsonRpcException) as info:
        call(raising(KeyError("line one\nline two")), ls)
    assert info.value.code == REQUEST_FAILED and info.value.data is None
    assert "\n" not in info.value.message and "unexpected KeyError" in info.value.message
    assert len(ls.logged) == 1 and "Traceback" in ls.logged[0].message


def test_async_handlers_are_answered_the_same_way():
    @answered("kconfig.async")
    async def handler(ls):
        raise BadArgument("bad")

    with pytest.raises(JsonRpcException) as info:
        asyncio.run(handler(FakeServer()))
    assert info.value.code == -32602 and asyncio.iscoroutinefunction(handler)


def test_results_pass_through():
    @answered("kconfig.ok")
    def handler(ls, value):
        return {"value": value}

    assert call(handler, FakeServer(), 3) == {"value": 3}


class RebuildingServer(FakeServer):
    """A server whose tree is being built again: requests wait for it."""

    def __init__(self):
        super().__init__()
        self.ready = asyncio.Event()
        self.tree = None

    def pending_tree(self, fresh_values: bool = False):
        return None if self.ready.is_set() else (self.ready.wait, (), {})


def test_a_request_waits_for_the_tree_being_built_again():
    @answered("kconfig.tree")
    def handler(ls):
        return ls.tree

    ls = RebuildingServer()
    run = handler(ls)
    wait, args, kwargs = next(run)  # pygls runs this, then resumes the generator

    async def rebuild():
        ls.tree = "new tree"
        ls.ready.set()

    async def both():
        await asyncio.gather(wait(*args, **kwargs), rebuild())

    asyncio.run(both())
    with pytest.raises(StopIteration) as done:
        run.send(None)
    assert done.value.value == "new tree"
    ls.ready = asyncio.Event()  # (an event of the finished loop cannot be waited for again)
    ls.ready.set()
    assert call(handler, ls) == "new tree"


def test_an_async_request_waits_for_the_tree_too():
    @answered("kconfig.async-tree")
    async def handler(ls):
        return ls.tree

    async def scenario():
        ls = RebuildingServer()
        answer = asyncio.ensure_future(handler(ls))
        await asyncio.sleep(0.01)
        assert not answer.done()
        ls.tree = "new tree"
        ls.ready.set()
        return await answer

    assert asyncio.run(scenario()) == "new tree"


class EditedServer(FakeServer):
    """A server with a Kconfig edit whose re-link is still to come."""

    def __init__(self):
        super().__init__()
        self.value = "before the edit"

    def pending_tree(self, fresh_values: bool = False):
        return (self.relink_now, (), {}) if fresh_values else None

    async def relink_now(self):
        self.value = "after the edit"


def test_only_a_request_showing_values_has_the_edit_patched_in_first():
    @answered("kconfig.value", fresh_values=True)
    def shows_values(ls):
        return ls.value

    @answered("kconfig.other")
    def other(ls):
        return ls.value

    ls = EditedServer()
    assert call(other, ls) == "before the edit"
    run = shows_values(ls)
    wait, args, kwargs = next(run)
    asyncio.run(wait(*args, **kwargs))
    with pytest.raises(StopIteration) as done:
        run.send(None)
    assert done.value.value == "after the edit"
