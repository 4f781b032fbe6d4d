"""beta's copy of the helpers, forked before alpha added pipeline-parallel support."""

from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class Host:
    def __init__(self, values):
        self.values = values

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].beta = self.values[row]


class CommonBase(DeviceAuxiliaryOutput):
    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.values))
