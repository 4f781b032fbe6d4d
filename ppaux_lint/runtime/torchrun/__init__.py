"""``verify --transport dist`` under a launcher: torchrun's ranks are the PP stages, on the nodes they run on.

``launch`` joins the launch's process group and has the ranks share what their static passes found;
``stages`` gives each rank its part (rank 0 leads the rows and plays the first stage, the last rank sends,
the others wait); ``mailbox`` carries their messages and signs of life through the launch's store, so that a
rank that is lost fails its row within seconds. It takes the launch's environment and a plan, and gives
every rank the same rows, one report (rank 0's) and the same exit code. It stands on ``run`` (the rows) and
``hosts`` (``pair``: a class's two halves on two ranks' workers); the rest of the runtime never imports it.
"""
