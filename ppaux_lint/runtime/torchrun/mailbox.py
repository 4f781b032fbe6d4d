"""How the ranks of a launch talk while verify runs: JSON messages and signs of life in the launch's store.

The launch's process group carries the setup (``launch.py``); what follows goes through the store that
every rank of a torchrun launch already reaches at ``MASTER_ADDR:MASTER_PORT``, because every wait here
must be bounded by something shorter than the group's timeout. A rank that died, or whose node did, must
fail the row it was on within seconds, and a store can be polled where a collective can only block. So each
rank bumps a counter of its own every ``BEAT`` seconds from a thread; a rank whose counter stands still for
``SILENCE`` seconds has left the run, and the step it last published says where it was.
"""

from __future__ import annotations

import datetime
import json
import threading
import time
from typing import Any

import torch.distributed as dist

BEAT = 1.0
SILENCE = 10.0
_POLL = 0.01
_CONNECT = datetime.timedelta(seconds=60)


class RankLost(Exception):
    """A rank stopped showing signs of life (or the store stopped answering) while another waited on it."""

    def __init__(self, rank: int, step: str, why: str) -> None:
        super().__init__(f"rank {rank} left the run during {step}: {why}")
        self.rank = rank
        self.step = step
        self.why = why


class Mailbox:
    """This rank's view of the store: ``put`` and ``wait`` for messages, ``alive`` for the other ranks."""

    def __init__(self, host: str, port: int, namespace: str, rank: int) -> None:
        self.rank = rank
        self._where = f"{host}:{port}"
        self._store = _connect(host, port, namespace)
        self._step = ""
        self._seen: dict[int, tuple[int, float]] = {}
        self._stop = threading.Event()
        beat = _connect(host, port, namespace)  # a client of its own: clients are not shared between threads
        self._beat = threading.Thread(target=self._beating, args=(beat,), name="ppaux-lint-beat", daemon=True)
        self._beat.start()

    def put(self, key: str, value: Any) -> None:
        self._store.set(key, json.dumps(value))

    def poll(self, key: str) -> Any | None:
        """The message under ``key``, or None when there is none yet."""
        if not self._store.check([key]):
            return None
        return json.loads(self._store.get(key))

    def wait(self, key: str, sender: int, limit: float) -> Any:
        """The message under ``key`` once ``sender`` has put it; ``RankLost`` if ``sender`` falls silent first,
        or has not put it after ``limit`` seconds.

        It polls (a check costs tens of microseconds) rather than block in the store's own wait, whose every
        timeout prints two warnings from torch's C++ side.
        """
        deadline = time.monotonic() + limit
        while True:
            try:
                message = self.poll(key)
            except RuntimeError as exc:  # the store's host is gone (torch's DistError is a RuntimeError)
                raise RankLost(sender, self.step_of(sender), f"the launch's store at {self._where} stopped "
                                                             f"answering ({' '.join(str(exc).split())})") from None
            if message is not None:
                return message
            if not self.alive(sender):
                raise RankLost(sender, self.step_of(sender), f"no sign of life for {SILENCE:g} s")
            if time.monotonic() > deadline:
                raise RankLost(sender, self.step_of(sender), f"no answer in {limit:g} s")
            time.sleep(_POLL)

    def publish_step(self, step: str) -> None:
        """Say where this rank is, for whoever must explain its silence."""
        if step != self._step:
            self._step = step
            self._store.set(f"step/{self.rank}", step)

    def step_of(self, rank: int) -> str:
        try:
            if self._store.check([f"step/{rank}"]):
                return self._store.get(f"step/{rank}").decode()
        except RuntimeError:
            pass
        return "the start of the run"

    def alive(self, rank: int) -> bool:
        """Whether ``rank``'s counter moved in the last ``SILENCE`` seconds (true when first asked)."""
        try:
            count = int(self._store.add(f"beat/{rank}", 0))
        except RuntimeError:
            return False
        now = time.monotonic()
        last, since = self._seen.get(rank, (count, now))
        if count != last or rank not in self._seen:
            self._seen[rank] = (count, now)
            return True
        return now - since < SILENCE

    def close(self) -> None:
        self._stop.set()
        self._beat.join(timeout=2 * BEAT)

    def _beating(self, store: dist.Store) -> None:
        key = f"beat/{self.rank}"
        while not self._stop.wait(BEAT):
            try:
                store.add(key, 1)
            except RuntimeError:
                return  # the store is gone, and with it the run; the main thread will say so


def _connect(host: str, port: int, namespace: str) -> dist.Store:
    return dist.PrefixStore(namespace, dist.TCPStore(host, port, is_master=False, timeout=_CONNECT))
