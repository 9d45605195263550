"""The ``queue_mlp`` input pipeline alone: each step fetches one dequeued batch (100
examples) and no model trains, so the pipeline has the machine to itself. With
``queue_mlp_fed`` it bounds the pipeline's "busy": the examples/s it delivers and the
CPU each example costs. Not in the default list:
``python benchmarks/bench_workloads.py --only queue_only,queue_mlp,queue_mlp_fed``.
"""

from . import queue_mlp

UNIT = queue_mlp.UNIT


def run(tf, workdir: str, seconds: float) -> dict:
    return queue_mlp.run(tf, workdir, seconds, train=False)
