"""Control flow and the debugging ops against real TensorFlow's results.

``control_flow_script.results`` runs the same TF1 programs under jtrain that
``goldens/gen_control_flow.py`` ran under TF 2.21 (``tf.compat.v1`` with
``disable_v2_behavior()``): values and gradients of ``cond``/``case``/
``while_loop``/``map_fn``/``scan``/``foldl``/``foldr``, run-time check errors
(class and message), ``py_func`` results and errors, and the text ``tf.Print``/
``tf.print`` write to stderr.
"""

from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters import control_flow_script

GOLDEN = pathlib.Path(__file__).parents[1] / "goldens" / "control_flow" / "results.json"


@pytest.fixture(scope="module")
def results():
    return control_flow_script.results(tf)


def _golden():
    return json.loads(GOLDEN.read_text())["results"]


def _normalized(message: str) -> str:
    # TF names py_func's function by a process-wide counter (pyfunc_15); jtrain by the op.
    return re.sub(r"pyfunc_\d+", "pyfunc_N", re.sub(r"pyfunc\b", "pyfunc_N", message))


def _compare(ours, theirs, where: str) -> None:
    if isinstance(theirs, dict) and "value" in theirs:
        assert isinstance(ours, dict) and "value" in ours, f"{where}: {ours!r}"
        assert ours["dtype"] == theirs["dtype"], where
        assert ours["shape"] == theirs["shape"], where
        np.testing.assert_allclose(
            np.asarray(ours["value"], np.float64),
            np.asarray(theirs["value"], np.float64),
            rtol=2e-6,
            atol=1e-6,
            err_msg=where,
        )
    elif isinstance(theirs, dict) and set(theirs) <= {"build", "run"}:
        assert isinstance(ours, dict) and set(ours) == set(theirs), f"{where}: {ours!r}"
        for phase in theirs:
            assert ours[phase]["error"] == theirs[phase]["error"], f"{where}: {ours!r}"
            assert _normalized(ours[phase]["message"]) == _normalized(theirs[phase]["message"]), (
                where
            )
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), where
        for k in theirs:
            _compare(ours[k], theirs[k], f"{where}.{k}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{where}: {ours!r}"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _compare(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


@pytest.mark.parametrize("case", sorted(_golden()))
def test_matches_tensorflow(results, case):
    _compare(results[case], _golden()[case], case)
