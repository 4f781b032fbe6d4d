from utils.common import CommonBase


class BetaOutput(CommonBase):
    """Inherits beta's CommonBase, which has no to_pp_tensors."""
