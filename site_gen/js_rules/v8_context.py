"""Asset scripts loaded into one embedded V8 (mini-racer), and their functions called from Python.

The rules the pages and the terminal share are written once, in the JavaScript the pages load
(``site_gen/templates/assets``). :func:`rules` loads some of those scripts into one V8 context, once per
process, and :meth:`JsRules.call` calls one of their functions with JSON arguments and returns its
JSON-decoded result. A JavaScript exception becomes :class:`JsError` with the JavaScript message; a call
that runs past its time or memory limit becomes :class:`JsLimitError`, and the context is then thrown
away (the next call loads the scripts afresh), so one runaway call cannot poison the next.

Processes and threads:

- A context belongs to the process that made it. V8 runs each context on a thread of its own, and a
  forked child has none of its parent's threads: the parent's context would hang the child at its first
  call, and even when freed. So after a fork the child never touches an inherited context: it is kept
  alive, unused, for the child's whole life (never finalised, as that too would wait for the missing
  thread), and the child's first call makes its own context (values kept with :meth:`JsRules.keep` are
  parsed there again). A child can thus end any way it likes. Forking while another thread is in the
  middle of a call is not supported.
- At exit every context of the process is closed (atexit), as mini-racer 0.14.1 freeing one during the
  interpreter's teardown sometimes hangs; a process that ends with ``os._exit`` frees nothing and
  cannot hang either.
- Calls from several threads are safe: each context has a lock, so they run one at a time. For real
  parallelism use processes (each makes its own context, ~40 ms).
- A call from inside a running asyncio event loop works (it blocks that loop for the call's duration).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import os
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
from py_mini_racer import JSEvalException, JSFunction, JSOOMException, JSTimeoutException, MiniRacer

from ..resources import ASSET_DIR

DEFAULT_TIMEOUT = 10.0                 # seconds of one call; a diff of two full releases takes ~10 ms
DEFAULT_MAX_MEMORY = 512 * 1024 * 1024  # bytes of V8 heap; diffing two full contents records uses ~40 MB

# Dotted JavaScript names only (``SiteGenReleaseDiff.diff``): the context resolves the name with eval.
_FUNCTION = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_SCRIPT = re.compile(r"[A-Za-z0-9][\w.-]*\.js")

# Run once in every context: calls the function named `name` with arguments given as JSON text and answers
# JSON text, {"ok": result} or {"error": {...}}, so that Python gets the JavaScript message as it was thrown.
# The name is resolved by a direct eval, which sees the scripts' top-level `const SiteGenX` (checked against
# _FUNCTION first); the arguments travel as one string, never as source code to parse.
_CALLER = """
globalThis.__siteGenCall = (() => {
  const resolved = new Map();
  function resolve(name) {
    if (!resolved.has(name)) {
      const dot = name.lastIndexOf(".");
      const owner = dot < 0 ? undefined : eval(name.slice(0, dot));
      const target = dot < 0 ? eval(name) : owner[name.slice(dot + 1)];
      if (typeof target !== "function") throw new TypeError(`${name} is not a function`);
      resolved.set(name, [owner, target]);
    }
    return resolved.get(name);
  }
  const kept = new Map();  // values parsed once, passed by reference: id -> value
  let lastId = 0;
  const failure = (error) => {
    const isError = error instanceof Error;
    return {error: {
      name: !isError ? typeof error : error.name === "Error" ? error.constructor.name : error.name,
      message: isError ? error.message : String(error),
      stack: isError && typeof error.stack === "string" ? error.stack : null,
    }};
  };
  // Calls answering a Promise whose function reads site files through readJson(path): the read waits
  // for Python to give the file ("!"), the answer is asked for once pending microtasks have run ("?").
  const readings = new Map();  // id -> {files: Map(path -> value), waiting: Map(path -> resolvers), outcome}
  function startReading(target, owner, args, readerAt) {
    const reading = {files: new Map(), waiting: new Map(), outcome: null};
    args[readerAt] = (path) => {
      if (reading.files.has(path)) return Promise.resolve(reading.files.get(path));
      if (!reading.waiting.has(path)) reading.waiting.set(path, []);
      return new Promise((resolve) => reading.waiting.get(path).push(resolve));
    };
    Promise.resolve().then(() => target.apply(owner, args))
      .then((value) => { reading.outcome = {ok: value}; }, (error) => { reading.outcome = failure(error); });
    readings.set(++lastId, reading);
    return lastId;
  }
  function giveFiles(id, files) {
    const reading = readings.get(id);
    for (const [path, value] of files) {
      reading.files.set(path, value);
      for (const resolve of reading.waiting.get(path) || []) resolve(value);
      reading.waiting.delete(path);
    }
    return null;
  }
  function readingState(id) {
    const reading = readings.get(id);
    if (reading.outcome === null) return {ok: {wants: [...reading.waiting.keys()]}};
    readings.delete(id);
    return reading.outcome.error ? reading.outcome : {ok: {done: reading.outcome.ok}};
  }
  return function (name, argumentsText, keptText) {
    try {
      // keptText: [[position, id], ...]; a position of -1 forgets the value (Python sends its forgets
      // with its next call: a call of its own cost ~1.5 ms of CPU, most of a forget)
      const refs = JSON.parse(keptText);
      for (const [position, id] of refs) if (position < 0) kept.delete(id);
      if (name === "#") return JSON.stringify({ok: kept.size});
      if (name === "") {  // keep: argumentsText is the value
        kept.set(++lastId, JSON.parse(argumentsText));
        return JSON.stringify({ok: lastId});
      }
      if (name === "?") return JSON.stringify(readingState(Number(argumentsText)));
      if (name === "!") return JSON.stringify({ok: giveFiles(...JSON.parse(argumentsText))});
      const reading = name.startsWith("*");  // "*NAME": argumentsText is [args, readerAt, functionArguments]
      const [owner, target] = resolve(reading ? name.slice(1) : name);
      const parsed = JSON.parse(argumentsText);
      const args = reading ? parsed[0] : parsed;
      for (const [position, id] of refs) if (position >= 0) args[position] = kept.get(id);
      if (!reading) return JSON.stringify({ok: target.apply(owner, args)});
      for (const [position, functionName] of parsed[2]) {
        const [functionOwner, found] = resolve(functionName);
        args[position] = (...given) => found.apply(functionOwner, given);
      }
      return JSON.stringify({ok: startReading(target, owner, args, parsed[1])});
    } catch (error) {
      return JSON.stringify(failure(error));
    }
  };
})();
__siteGenCall
"""


class JsError(Exception):
    """A JavaScript exception thrown by a call (or by loading a script); ``str()`` is its message."""

    def __init__(self, function: str, name: str, message: str, stack: str | None = None) -> None:
        super().__init__(message)
        self.function = function  # what was called, or "load NAME.js"
        self.name = name          # the JavaScript error's class: "TypeError", "ReleaseDiffError", ...
        self.message = message
        self.stack = stack


class JsLimitError(Exception):
    """A call ran past its time limit or its memory cap."""


class Kept:
    """A JSON value parsed once into a context and passed to calls by reference (:meth:`JsRules.keep`):
    a contents record diffed against several others is read once. The function called gets the very
    object each time, so a rule that changes its argument sees its own changes on the next call. The
    text is kept too, so a context made again (after a limit, in a forked child) parses it anew."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ids: weakref.WeakKeyDictionary[_Context, int] = weakref.WeakKeyDictionary()


# A script given as (name, source): one written by the caller (site_gen/layout.py's site-paths.js),
# not an asset file
Script = str | tuple[str, str]
# a site file's JSON value by its site path, None when the site lacks it (see JsRules.call_reading)
ReadJson = Callable[[str], Any]


class JsFunction:
    """An argument of :meth:`JsRules.call_reading` that is a function of the scripts (a dotted name):
    a rule handed another rule to call (``attachOperators(..., checkOperator)``)."""

    def __init__(self, name: str) -> None:
        if not _FUNCTION.fullmatch(name):
            raise ValueError(f"not a JavaScript function name: {name!r}")
        self.name = name


class _ReadJsonSlot:
    """Where :meth:`JsRules.call_reading` puts the function's ``readJson(path)``."""


READ_JSON = _ReadJsonSlot()


class _Context:
    """One MiniRacer with the scripts loaded, in the process that made it, and its caller."""

    def __init__(self, racer: MiniRacer, caller: JSFunction) -> None:
        self.racer: MiniRacer | None = racer
        self.caller: JSFunction | None = caller
        self.pid = os.getpid()
        self.forgotten: list[int] = []  # ids of kept values to free with the next call


_LIVE: weakref.WeakSet[_Context] = weakref.WeakSet()
_ALL_RULES: weakref.WeakSet[JsRules] = weakref.WeakSet()


def _leave_inherited_contexts() -> None:
    """In a forked child: keep every inherited context alive for good and forget it (see the module);
    fresh locks, as a parent's thread may have held one at the fork."""
    global _BY_SCRIPTS_LOCK
    for context in list(_LIVE):
        if context.pid != os.getpid():
            # the context and the JavaScript objects it holds: never finalised in this process
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(context))
    _LIVE.clear()
    for rules_ in list(_ALL_RULES):
        rules_._lock = threading.Lock()
    _BY_SCRIPTS_LOCK = threading.Lock()


def _close_own_contexts() -> None:
    """At exit, while the interpreter still runs: mini-racer 0.14 freeing a context during the
    interpreter's own teardown waits, now and then, forever for its V8 thread."""
    for context in list(_LIVE):  # after a fork, only the contexts this process made
        if context.racer is not None and context.pid == os.getpid():
            racer, context.racer, context.caller = context.racer, None, None
            racer.close()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_leave_inherited_contexts)
atexit.register(_close_own_contexts)


def _new_racer() -> MiniRacer:
    """A MiniRacer on its own event-loop thread: made inside a running asyncio loop, mini-racer would
    bind to that loop, and its time limit would not work there."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return MiniRacer()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(MiniRacer).result()


def _as_doubles(value: Any) -> Any:
    """``value`` with every integer past 64 bits as the double JavaScript reads it as."""
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_doubles(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**64:
        return float(value) if abs(value) < 2**1024 else None  # past a double: JSON.parse makes it Infinity
    return value


def _dumps(value: Any) -> str:
    """The JSON text of arguments: a YAML document read in Python may hold an integer past 64 bits,
    which orjson refuses and JSON.parse reads as a double anyway."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError as exc:
        if "64-bit" not in str(exc):
            raise
        return orjson.dumps(_as_doubles(value)).decode("utf-8")


def script_source(script: Script) -> tuple[str, str]:
    """A script's name and source: an asset file's text, or the source given with the name."""
    return (script, (ASSET_DIR / script).read_text("utf-8")) if isinstance(script, str) else script


class JsRules:
    """Asset scripts loaded into one V8 context of this process (made on the first call)."""

    def __init__(self, scripts: Sequence[Script], *, timeout: float = DEFAULT_TIMEOUT,
                 max_memory: int = DEFAULT_MAX_MEMORY) -> None:
        for script in scripts:
            if not _SCRIPT.fullmatch(script if isinstance(script, str) else script[0]):
                raise ValueError(f"not an asset script name: {script!r}")
        self.scripts = tuple(scripts)
        self.timeout = timeout
        self.max_memory = max_memory
        self._lock = threading.Lock()
        self._context: _Context | None = None
        _ALL_RULES.add(self)

    def call(self, function: str, *args: Any, timeout: float | None = None) -> Any:
        """``function(*args)`` in JavaScript (a dotted name such as ``SiteGenReleaseDiff.diff``): the
        arguments go as JSON (anything orjson serialises, ``orjson.Fragment`` included; a :class:`Kept`
        by reference), the result comes back JSON-decoded (``undefined`` as None). Raises
        :class:`JsError` for what the JavaScript throws, :class:`JsLimitError` past ``timeout`` seconds
        (default: the instance's) or its memory cap."""
        if not _FUNCTION.fullmatch(function):
            raise ValueError(f"not a JavaScript function name: {function!r}")
        arguments = _dumps([None if isinstance(arg, Kept) else arg for arg in args])
        kept = [(position, arg) for position, arg in enumerate(args) if isinstance(arg, Kept)]
        return self._answer(function, arguments, kept, self.timeout if timeout is None else timeout)

    def call_reading(self, function: str, *args: Any, read_json: ReadJson, timeout: float | None = None) -> Any:
        """The answer of ``function(*args)``, an async JavaScript function that reads the site's files through
        the ``readJson(path)`` it is given where an argument is :data:`READ_JSON` (a :class:`JsFunction`
        argument is that function of the scripts). Each file the function waits for is ``read_json(path)``
        (its JSON value, None when missing), read here in Python and handed over once per call; the rules
        never touch the file system. ``timeout`` bounds each step (the start, and each round of files)."""
        if not _FUNCTION.fullmatch(function):
            raise ValueError(f"not a JavaScript function name: {function!r}")
        readers = [position for position, arg in enumerate(args) if arg is READ_JSON]
        if len(readers) != 1:
            raise ValueError("call_reading needs READ_JSON as exactly one argument")
        functions = [[position, arg.name] for position, arg in enumerate(args) if isinstance(arg, JsFunction)]
        plain = [None if isinstance(arg, Kept | JsFunction | _ReadJsonSlot) else arg for arg in args]
        kept = [(position, arg) for position, arg in enumerate(args) if isinstance(arg, Kept)]
        limit = self.timeout if timeout is None else timeout
        with self._lock:
            context = self._own_context()
            try:
                reading = self._answer_locked(context, "*" + function,
                                              _dumps([plain, readers[0], functions]), kept, limit)
                while True:
                    state = self._answer_locked(context, "?", str(reading), [], limit)
                    if "done" in state:
                        return state["done"]
                    if not state["wants"]:  # nothing Python can give would settle it
                        raise JsError(function, "Error", f"{function} waits for something other than site files")
                    files = [[path, read_json(path)] for path in state["wants"]]
                    self._answer_locked(context, "!", _dumps([reading, files]), [], limit)
            except JsError as error:  # thrown by one of the steps: the function's
                raise JsError(function, error.name, error.message, error.stack) from None

    def keep(self, value: Any) -> Kept:
        """``value`` (anything orjson serialises) parsed into the context once, for calls to take by
        reference; it stays there until :meth:`forget` or the context's end."""
        kept = Kept(_dumps(value))
        with self._lock:
            self._kept_id(self._own_context(), kept)
        return kept

    def forget(self, kept: Kept) -> None:
        """Free a kept value in this process's context, with the next call (no call of its own)."""
        with self._lock:
            context = self._context
            if context is not None and context.pid == os.getpid() and context in kept.ids:
                context.forgotten.append(kept.ids.pop(context))

    def kept_count(self) -> int:
        """How many values this process's context keeps (forgotten ones are freed first)."""
        count: int = self._answer("#", "null", [], self.timeout)
        return count

    def _kept_id(self, context: _Context, kept: Kept) -> int:
        if context not in kept.ids:
            kept.ids[context] = self._answer_locked(context, "", kept.text, [], self.timeout)
        return kept.ids[context]

    def _answer(self, function: str, arguments: str, kept: list[tuple[int, Kept]], timeout: float) -> Any:
        with self._lock:
            return self._answer_locked(self._own_context(), function, arguments, kept, timeout)

    def _answer_locked(self, context: _Context, function: str, arguments: str, kept: list[tuple[int, Kept]],
                       timeout: float) -> Any:
        references = [[position, self._kept_id(context, value)] for position, value in kept]
        forgotten, context.forgotten = context.forgotten, []
        references.extend([-1, id_] for id_ in forgotten)
        answer = orjson.loads(self._run(context, function, arguments, orjson.dumps(references).decode("utf-8"),
                                        timeout))
        if "error" in answer:
            error = answer["error"]
            raise JsError(function or "keep", error["name"], error["message"], error["stack"])
        return answer.get("ok")

    def _run(self, context: _Context, function: str, arguments: str, references: str, timeout: float) -> str:
        """One call on this process's context, the lock held."""
        racer, caller = context.racer, context.caller
        assert racer is not None and caller is not None
        try:
            result = caller(function, arguments, references, timeout_sec=timeout)
        except JSTimeoutException:
            self._discard()
            raise JsLimitError(f"{function} ran past its limit of {timeout:g} s") from None
        except JSEvalException as exc:  # past the memory cap, V8 stops the call with no message
            out_of_memory = isinstance(exc, JSOOMException) or racer.was_hard_memory_limit_reached()
            self._discard()
            if out_of_memory:
                raise JsLimitError(f"{function} ran past its limit of {self.max_memory} bytes") from None
            raise JsError(function, type(exc).__name__, str(exc)) from None
        if not isinstance(result, str):  # __siteGenCall answers a string, always
            raise JsError(function, "TypeError", f"the call answered {type(result).__name__}, not JSON text")
        return result

    def _own_context(self) -> _Context:
        """This process's context, made (and the scripts loaded) when there is none yet."""
        context = self._context
        if context is not None and context.racer is not None and context.pid == os.getpid():
            return context
        racer = _new_racer()
        try:
            racer.set_hard_memory_limit(self.max_memory)
            caller = racer.eval(_CALLER)
            assert isinstance(caller, JSFunction)
            for script in self.scripts:
                script, source = script_source(script)
                try:  # sourceURL names the script in the stack traces of JsError
                    racer.eval(f"{source}\n//# sourceURL={script}\n", timeout_sec=self.timeout)
                except JSEvalException as exc:
                    raise JsError(f"load {script}", type(exc).__name__, str(exc).strip()) from None
        except BaseException:
            racer.close()
            raise
        self._context = _Context(racer, caller)
        _LIVE.add(self._context)
        return self._context

    def _discard(self) -> None:
        context, self._context = self._context, None
        if context is not None and context.racer is not None and context.pid == os.getpid():
            racer, context.racer, context.caller = context.racer, None, None
            # V8 answers a stopped call later, on the context's event loop: one more call, answered
            # after it, lets that answer land before close() stops the loop
            with contextlib.suppress(Exception):
                racer.eval("0", timeout_sec=5)
            racer.close()

    def collect_garbage(self) -> None:
        """A full garbage collection in this process's context, if it has one. V8 collects lazily and
        its heap may grow toward the cap before it does: a caller that parses many large values in turn
        (the build's change files, two records each) calls this now and then to keep its memory flat."""
        with self._lock:
            context = self._context
            if context is not None and context.racer is not None and context.pid == os.getpid():
                if context.forgotten:  # freed first, so the collection takes them
                    self._answer_locked(context, "#", "null", [], self.timeout)
                context.racer.low_memory_notification()

    def close(self) -> None:
        """Free the context now (the next call makes a new one)."""
        with self._lock:
            self._discard()


_BY_SCRIPTS: dict[tuple[Script, ...], JsRules] = {}
_BY_SCRIPTS_LOCK = threading.Lock()


def rules(*scripts: Script) -> JsRules:
    """This process's one :class:`JsRules` for these scripts, in this order (default limits); a script
    given as (name, source) is loaded from that source."""
    with _BY_SCRIPTS_LOCK:
        found = _BY_SCRIPTS.get(scripts)
        if found is None:
            found = _BY_SCRIPTS[scripts] = JsRules(scripts)
        return found
