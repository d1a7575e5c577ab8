"""Run chunks of bulk work: in this process, in worker processes, or on any executor.

Shared by :func:`~numsweeper.simulate` and ``numsweeper stats``.  A chunk is
a call ``function(*args, hooks=hooks)`` that returns a :class:`Done`; the
:class:`Hooks` let it report progress while it works and notice a request to
stop.  What each backend gives:

* **this process** (``workers=1``): progress at every report; a Ctrl-C
  reaches the chunk as ``KeyboardInterrupt``, which it turns into an early,
  clean return.
* **worker processes** (``workers > 1``): progress through a queue; the first
  Ctrl-C sets an event that every running chunk checks between steps, so
  they return promptly with what they finished.  Workers ignore SIGINT
  themselves, and each watches its parent: when the parent is gone (SIGTERM,
  SIGKILL, a crash) it exits within a fraction of a second, so no worker
  outlives a run.
* **any other executor** (threads, ``dask.distributed``'s
  ``client.get_executor()``): chunks report nothing while they run and cannot
  be stopped; a Ctrl-C cancels the chunks that have not started and keeps
  the finished ones.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import queue as queue_module
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from ._validate import count_text, short_repr
from .errors import InvalidBoardError

__all__ = ["MAX_CHUNKS", "Done", "Hooks", "Runner", "check_chunks", "idle_workers"]

# How often a worker checks that its parent is alive, and how long the parent
# waits for news before looking at its queue again (seconds).
_WATCH_PERIOD = 0.2
_POLL = 0.1


@dataclass
class Hooks:
    """What a chunk may call while it works.

    Attributes
    ----------
    report : callable or None
        ``report(games, wins)``: that many more items finished, ``wins`` of
        them won (``None`` where nobody listens).
    stopping : callable
        True once the run has been asked to stop: return what is finished.
    """

    report: Callable[[int, int], None] | None = None
    stopping: Callable[[], bool] = field(default=lambda: False)


@dataclass
class Done:
    """What one chunk returns: its value, and whether it stopped early."""

    value: Any
    interrupted: bool = False


# -- worker processes ----------------------------------------------------------------
#
# A worker learns its queue and stop event once, from the pool's initializer,
# and keeps them in this module's namespace: state of that worker process
# only, never of the process that runs the pool.
_WORKER_HOOKS: Hooks | None = None


def _worker_init(queue: Any, stop: Any, warm_up: Callable[[], None] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's business
    threading.Thread(target=_watch_parent, daemon=True).start()
    global _WORKER_HOOKS
    _WORKER_HOOKS = Hooks(
        report=lambda games, wins: queue.put(("progress", games, wins)),
        stopping=stop.is_set,
    )
    if warm_up is not None:
        warm_up()
    queue.put(("ready", time.perf_counter(), 0))


def _watch_parent() -> None:
    """Exit this worker as soon as the process that started the pool is gone.

    Its sentinel (a pipe multiprocessing keeps open to that process) becomes
    ready when it dies, whatever the start method: with fork the parent is
    the worker's parent process, with forkserver and spawn it is not.
    """
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)
    born = os.getppid()  # (no sentinel: fall back to watching the parent's pid)
    while os.getppid() == born:
        time.sleep(_WATCH_PERIOD)
    os._exit(1)


def _in_worker(function: Callable[..., Done], *args: Any) -> Done:
    return function(*args, hooks=_WORKER_HOOKS)


# -- the runner ---------------------------------------------------------------------


class Runner:
    """Runs tasks on one backend and yields ``(index, Done)`` as they finish.

    Parameters
    ----------
    workers : int
        Worker processes; 1 runs in this process.
    executor : Executor, optional
        Run on this executor instead (``workers`` must then be 1).
    on_progress : callable, optional
        ``on_progress(games, wins)`` in this process, as chunks report.
    on_stopping : callable, optional
        Called once, after the first Ctrl-C, while running chunks wind down.
    warm_up : callable, optional
        Run once in every worker process (and here, for ``workers=1``) before
        the first chunk: compiles, imports.  Its time is :attr:`startup`, not
        the run's.
    on_chunk : callable, optional
        ``on_chunk(done)`` for each chunk that an executor finished: there,
        chunks cannot report while they run, so progress comes per chunk.
    """

    def __init__(
        self,
        workers: int,
        executor: Executor | None,
        *,
        on_progress: Callable[[int, int], None] | None = None,
        on_stopping: Callable[[], None] | None = None,
        warm_up: Callable[[], None] | None = None,
        on_chunk: Callable[[Done], None] | None = None,
    ) -> None:
        self.workers = workers
        self.executor = executor
        self.on_progress = on_progress
        self.on_stopping = on_stopping
        self.warm_up = warm_up
        self.on_chunk = on_chunk
        self.interrupted = False
        self._handling = False  # our SIGINT handler is installed
        #: Seconds of pool start-up and warm-up before the first chunk ran.
        self.startup = 0.0
        #: ``time.perf_counter()`` when the chunks started running.
        self.began = time.perf_counter()

    def run(
        self, function: Callable[..., Done], tasks: list[tuple[Any, ...]]
    ) -> Iterator[tuple[int, Done]]:
        """Run ``function(*task, hooks=...)`` for every task; yield as they finish.

        ``task[0]`` is the task's index.  After a Ctrl-C, :attr:`interrupted`
        is True and the chunks that finished (in full or in part) have been
        yielded; a second Ctrl-C propagates at once.
        """
        if self.executor is None and self.workers == 1:
            backend = self._here(function, tasks)
        elif self.executor is None:
            backend = self._processes(function, tasks)
        else:
            backend = self._executor(function, tasks)
        with self._ctrl_c():
            yield from backend

    @contextlib.contextmanager
    def _ctrl_c(self) -> Iterator[None]:
        """Turn the first Ctrl-C into a request to stop, and the second into an abort.

        A signal handler, so that the first Ctrl-C never lands as an
        exception in the middle of the run's bookkeeping.  Only the main
        thread can handle signals; elsewhere a Ctrl-C stays an exception.
        """
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: Any) -> None:
            if self.interrupted:
                raise KeyboardInterrupt
            self._stop()

        previous = signal.signal(signal.SIGINT, handler)
        self._handling = True
        try:
            yield
        finally:
            self._handling = False
            signal.signal(signal.SIGINT, previous)

    def _stop(self) -> None:
        if self.interrupted:
            return
        self.interrupted = True
        if self.on_stopping is not None:
            self.on_stopping()

    def _here(
        self, function: Callable[..., Done], tasks: list[tuple[Any, ...]]
    ) -> Iterator[tuple[int, Done]]:
        started = time.perf_counter()
        if self.warm_up is not None:
            self.warm_up()
            self.startup = time.perf_counter() - started
        self.began = time.perf_counter()
        hooks = Hooks(report=self.on_progress, stopping=lambda: self.interrupted)
        for task in tasks:
            if self.interrupted:
                return
            try:
                done = function(*task, hooks=hooks)
            except KeyboardInterrupt:  # a chunk that cannot stop early loses its work
                self._stop()
                return
            yield task[0], done
            if done.interrupted:
                self._stop()
                return

    def _processes(
        self, function: Callable[..., Done], tasks: list[tuple[Any, ...]]
    ) -> Iterator[tuple[int, Done]]:
        context = multiprocessing.get_context()
        news = context.Queue()
        stop = context.Event()
        started = time.perf_counter()
        pool = ProcessPoolExecutor(
            self.workers,
            mp_context=context,
            initializer=_worker_init,
            initargs=(news, stop, self.warm_up),
        )
        ready: list[float] = []
        futures: dict[Future[Done], int] = {}
        aborted = False

        def listen() -> None:
            while True:
                try:
                    kind, a, b = news.get_nowait()
                except queue_module.Empty:
                    return
                if kind == "ready":
                    if not ready:  # games/s counts from the first worker ready
                        self.began = a
                        self.startup = a - started
                    ready.append(a)
                elif self.on_progress is not None:
                    self.on_progress(a, b)

        try:
            futures = {pool.submit(_in_worker, function, *task): task[0] for task in tasks}
            pending = set(futures)
            while pending:
                try:
                    finished, pending = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
                except KeyboardInterrupt:
                    if self._handling:  # the second Ctrl-C: abort
                        raise
                    finished = set()  # (the first, outside the main thread)
                    self._stop()
                if self.interrupted and not stop.is_set():
                    # The first Ctrl-C: no new chunks; running ones return early.
                    stop.set()
                    for future in pending:
                        future.cancel()
                    pending = {f for f in pending if not f.cancelled()}
                listen()
                for future in finished:
                    if not future.cancelled():
                        yield futures[future], future.result()
            listen()
        except BaseException:
            aborted = True
            raise
        finally:
            # After a second Ctrl-C or an error, leave at once: the workers
            # notice that the chunks' results are not wanted (the stop event)
            # or that this process is gone, and exit.
            stop.set()
            if aborted:
                pool.shutdown(wait=False, cancel_futures=True)
                news.cancel_join_thread()
            else:
                # Keep reading the workers' news while they exit: a worker
                # cannot exit while its last messages wait in a full pipe.
                closing = threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True})
                closing.start()
                while closing.is_alive():
                    listen()
                    closing.join(_POLL)
            news.close()

    def _executor(
        self, function: Callable[..., Done], tasks: list[tuple[Any, ...]]
    ) -> Iterator[tuple[int, Done]]:
        assert self.executor is not None
        self.began = time.perf_counter()
        futures = {self.executor.submit(function, *task, hooks=None): task[0] for task in tasks}
        pending = set(futures)
        try:
            while pending:
                try:
                    finished, pending = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
                except KeyboardInterrupt:
                    if self._handling:  # the second Ctrl-C: abort
                        raise
                    finished = set()  # (the first, outside the main thread)
                    self._stop()
                if self.interrupted:
                    for future in pending:
                        future.cancel()
                    # Chunks already running elsewhere cannot be told to stop:
                    # keep the ones that finished meanwhile.
                    finished |= {f for f in pending if f.done()}
                    pending = set()
                for future in finished:
                    if future.cancelled():
                        continue
                    done = future.result()  # (raises the chunk's error)
                    if self.on_chunk is not None:
                        self.on_chunk(done)
                    yield futures[future], done
                    if done.interrupted and not self.interrupted:
                        # (a Ctrl-C that reached a chunk in a thread of this process)
                        for other in pending:
                            other.cancel()
                        self._stop()
                        pending = {f for f in pending if not f.cancelled()}
        finally:
            for future in pending:
                future.cancel()


#: The most chunks one run may have: each is a task and a child seed made
#: before the first chunk runs (about a kilobyte each).
MAX_CHUNKS = 1_000_000


def check_chunks(total: int, chunk_size: int, what: str) -> int:
    """The number of chunks of ``total`` items; InvalidBoardError past :data:`MAX_CHUNKS`."""
    chunks = -(-total // chunk_size)
    if chunks > MAX_CHUNKS:
        raise InvalidBoardError(
            f"{short_repr(total)} {what} in chunks of {short_repr(chunk_size)} make "
            f"{short_repr(chunks)} chunks, more than {MAX_CHUNKS:,}: use a larger chunk size"
        )
    return chunks


def idle_workers(
    workers: int, total: int, chunk_size: int, noun: str, *, command_line: bool
) -> str | None:
    """What to say when ``workers`` outnumber the chunks of ``total`` items, or None.

    ``noun`` names one item (``'game'``, ``'board'``).  The note names the
    chunk size that gives every worker a chunk (``total // workers``: at
    least as many chunks as workers), or, with fewer items than workers,
    how many workers are enough; the options are spelt as on the command
    line or as arguments.
    """
    chunks = -(-total // chunk_size)
    if workers <= chunks or not total:  # (no work: nothing to share)
        return None
    said = (
        f"{count_text(workers, 'worker')} but {count_text(chunks, 'chunk')} of up to "
        f"{count_text(chunk_size, noun)}, so {count_text(workers - chunks, 'worker')} will "
        "have nothing to do"
    )
    size, many, seed = ("--chunk-size ", "--workers ", "--seed")
    if not command_line:
        size, many, seed = ("chunk_size=", "workers=", "the seed")
    if total < workers:
        return f"{said}; {count_text(total, noun)} can keep at most {total} busy: {many}{total}"
    return (
        f"{said}; {size}{short_repr(total // workers)} would give each a share "
        f"(the {noun}s depend on the chunk size, as on {seed})"
    )


def from_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` wraps a KeyboardInterrupt: is one, or was raised from one.

    A Ctrl-C that lands while a compiled (numba) kernel calls back into
    Python surfaces as ``SystemError: ... returned a result with an
    exception set``, and one in the import of a compiled module as
    ``ImportError: initialization failed``: each caused (perhaps through
    another such error) by the KeyboardInterrupt.  Only causes count: an
    error raised while a Ctrl-C was being handled (its ``__context__``)
    is a real error.
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__
    return False
