"""What every check receives."""

from __future__ import annotations

from dataclasses import dataclass

from ppaux_lint.index import ProjectIndex
from ppaux_lint.model import ClassInfo
from ppaux_lint.summary import FileSummary


@dataclass(frozen=True)
class CheckContext:
    index: ProjectIndex
    summaries: tuple[FileSummary, ...]  # every summary, parse failures included

    def implementations(self) -> list[ClassInfo]:
        """Classes that are outputs or observers and not interfaces: the ones rules judge."""
        return [info for info in self.index.iter_infos() if info.roles and not info.is_interface]

    def concrete(self) -> list[ClassInfo]:
        """Every class that is not an interface, recognised or not."""
        return [info for info in self.index.iter_infos() if not info.is_interface]
