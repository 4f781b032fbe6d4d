from plug.outputs import Base, Sendable


class LogitGapOutput(Base):
    """Returned by GapObserver; never taught to cross a stage."""


class ChosenIdsOutput(Sendable):
    pass


class EmptyWhenIdleOutput(Sendable):
    def to_pp_tensors(self):
        if self.values.numel() == 0:
            return {}
        return {"values": self.values}
