from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput


class Host:
    def __init__(self, **tensors):
        self.tensors = tensors

    def consume(self, batch, commits):
        pass


class Base(DeviceAuxiliaryOutput):
    """Old-style import path for DeviceAuxiliaryOutput (sglang < 0.5.20). Only ever subclassed."""

    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return Host(values=copy_tensor(self.values))


class Sendable(Base):
    def to_pp_tensors(self):
        return {"values": self.values}
