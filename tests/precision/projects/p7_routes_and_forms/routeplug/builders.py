from __future__ import annotations

from routeplug.outputs import ScoreOutput


class BuilderBase:
    """Shared by a forward capture and a sampler."""

    def _build(self, x):
        return ScoreOutput(score=x.max(dim=-1).values)
