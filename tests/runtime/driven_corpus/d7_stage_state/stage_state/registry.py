"""A process-wide table of bucket labels, looked up by name: the plugin's singleton."""

from __future__ import annotations


class LabelRegistry:
    _instance: LabelRegistry | None = None

    def __init__(self) -> None:
        self._tables: dict[str, tuple[tuple[float, ...], tuple[str, ...]]] = {}

    @classmethod
    def instance(cls) -> LabelRegistry:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def register(self, name: str, edges: tuple[float, ...], labels: tuple[str, ...]) -> None:
        self._tables.setdefault(name, (edges, labels))

    def lookup(self, name: str) -> tuple[tuple[float, ...], tuple[str, ...]]:
        return self._tables[name]
