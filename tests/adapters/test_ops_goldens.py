"""TF's op library (``framework/op_def.py`` table) against real TensorFlow's values and gradients.

Reference data: ``goldens/gen_ops.py`` and ``goldens/gen_ops_<family>.py`` (TF 2.21,
``tf.compat.v1`` graph mode), one directory per family under ``tests/goldens/``.
Each case builds the op in an ``adapters.v1`` graph (float inputs fed to
placeholders, integer/boolean inputs constants, other arguments Python values)
and compares, with TF's:
- the outputs and ``tf.gradients(outputs, float inputs, grad_ys=weights)``
  through ``Session.run`` (one compiled program);
- for a case without a float input, the outputs of the entry's JAX implementation
  called directly, op by op, as ``shape_values`` evaluates graph-computed shapes
  (``_op_by_op_cases``).
Tolerances: integer and boolean results exactly; float values exactly for the
ops in ``EXACT`` (IEEE-exact element-wise arithmetic, selection, data movement);
other float values and all float gradients (sums of broadcast gradients and the
chain rule's products round differently in XLA and Eigen) with ``rtol=2e-6,
atol=1e-6`` for float32 and ``rtol=1e-12`` for float64; a convolution's float32
values and gradients may also differ by ``CONV_ROUNDING`` units of float32 rounding
of the sum of their terms' magnitudes (see ``_is_convolution``). A case TF
refuses must raise the same error class and message. TF's signatures (names and
defaults) must be the entries' signatures.
"""

from __future__ import annotations

import ast
import glob
import inspect
import json
import os

import jax
import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework.op_def import FUNCTIONS, OPS, impl_params, np_dtype

GOLDENS = os.path.join(os.path.dirname(__file__), "..", "goldens")


def _load_families() -> tuple[dict, dict, dict]:
    """Every op family's reference data (``tests/goldens/ops`` and ``ops_<family>``)."""
    cases: dict = {}
    arrays: dict = {}
    signatures: dict = {}
    for family in sorted(glob.glob(os.path.join(GOLDENS, "ops*", "cases.json"))):
        here = os.path.dirname(family)
        with open(family) as f:
            golden = json.load(f)
        for c in golden["cases"]:
            assert c["name"] not in cases, f"case {c['name']} is in two families"
            cases[c["name"]] = c
        arrays.update(np.load(os.path.join(here, "arrays.npz"), allow_pickle=False))
        signatures.update(golden["signatures"])
    return cases, arrays, signatures


CASES, ARRAYS, SIGNATURES = _load_families()

# Ops whose float results are exactly TF's (IEEE-exact arithmetic, data movement).
EXACT = {
    "add",
    "subtract",
    "multiply",
    "divide",
    "truediv",
    "realdiv",
    "div",
    "floordiv",
    "floormod",
    "mod",
    "truncatediv",
    "truncatemod",
    "maximum",
    "minimum",
    "squared_difference",
    "negative",
    "abs",
    "sign",
    "square",
    "round",
    "floor",
    "ceil",
    "sqrt",
    "clip_by_value",
    "where",
    "where_v2",
    "cast",
    "to_float",
    "to_double",
    "to_int32",
    "to_int64",
    "reshape",
    "transpose",
    "expand_dims",
    "squeeze",
    "concat",
    "stack",
    "unstack",
    "split",
    "tile",
    "pad",
    "gather",
    "gather_nd",
    "slice",
    "strided_slice",
    "reverse",
    "one_hot",
    "shape",
    "size",
    "rank",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "fill",
    "range",
    "eye",
    "stop_gradient",
    "reduce_max",
    "reduce_min",
    "argmax",
    "argmin",
    "reduce_any",
    "reduce_all",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "math.is_nan",
    "math.is_finite",
    "segment_max",
    # tf.image data movement (flips, crops, pads, nearest-neighbour sampling, patches)
    "image.flip_left_right",
    "image.flip_up_down",
    "image.transpose_image",
    "image.rot90",
    "image.central_crop",
    "image.crop_to_bounding_box",
    "image.pad_to_bounding_box",
    "image.resize_image_with_crop_or_pad",
    "image.resize_with_crop_or_pad",
    "image.resize_nearest_neighbor",
    "image.grayscale_to_rgb",
    "image.extract_patches",
    "image.extract_image_patches",
    "image.convert_image_dtype",
}


def _is_convolution(op: str) -> bool:
    """Whether ``op`` is a convolution: each output element, and each gradient element,
    a sum of products of the float inputs (and the gradient's weights).

    XLA:CPU sums them in an order that depends on the machine's vector instructions
    (AVX-512 or not), so an element that is a small difference of large terms differs
    from TF's by float32 rounding of those terms, beyond ``rtol`` of the element itself.
    The same op on the absolute values of its inputs (and weights) gives each
    element's sum of magnitudes, which bounds that rounding.
    """
    return "conv" in op.rpartition(".")[2]


# A convolution's float32 results may differ from TF's by this many units of float32
# rounding (2**-24) of each element's sum of magnitudes, beyond rtol and atol. Seen: up
# to 0.31 units (conv2d_transpose's input gradient on an AVX2 machine, whose XLA:CPU
# sums in another order than on AVX-512 machines, where 0 units were needed).
CONV_ROUNDING = 2


def _python_value(spec: dict):
    if "dtype" in spec and "scalar" not in spec:
        return np.dtype(spec["dtype"]).type
    if "scalar" in spec:
        return np.dtype(spec["dtype"]).type(spec["scalar"])
    return spec["value"]


def _assert_close(op: str, actual, expected, what: str, exact: bool = True, magnitude=None) -> None:
    """``magnitude``: a convolution's sums of magnitudes (``_is_convolution``), or None."""
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != TF's {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != TF's {expected.shape}"
    exact = exact and (op.rpartition(".")[2] in EXACT or op in EXACT)
    if expected.dtype.kind not in "fc" or exact:
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    elif expected.dtype == np.float64:
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12, err_msg=what)
    elif magnitude is None:
        np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-6, err_msg=what)
    else:
        error = np.abs(actual.astype(np.float64) - expected)
        bound = 1e-6 + 2e-6 * np.abs(expected) + CONV_ROUNDING * 2.0**-24 * np.asarray(magnitude)
        worst = tuple(int(i) for i in np.unravel_index(np.argmax(error / bound), error.shape))
        assert np.all(error <= bound), (
            f"{what}: {actual[worst]} != TF's {expected[worst]} at {worst} (error "
            f"{error[worst]:.3g} > {bound[worst]:.3g}: 1e-6 + 2e-6 of TF's value + "
            f"{CONV_ROUNDING} units of rounding of its sum of magnitudes {magnitude[worst]:.3g})"
        )


@pytest.fixture
def x64_scope():
    """The compat layer's 64-bit scope (framework/_x64.py), where implementations run."""
    with jax.enable_x64(True):
        yield


def _index_key(spec: dict):
    """A Python index from its ``repr`` (ints, slices, ``Ellipsis``, ``None`` only)."""

    def build(node):
        if isinstance(node, ast.Tuple):
            return tuple(build(e) for e in node.elts)
        if isinstance(node, ast.Call) and node.func.id == "slice":
            return slice(*[build(a) for a in node.args])
        if isinstance(node, ast.Name) and node.id == "Ellipsis":
            return Ellipsis
        return ast.literal_eval(node)

    return build(ast.parse(spec["index"], mode="eval").body)


def _function(op: str):
    """The op's public function; ``operator.__add__`` is the Tensor's operator."""
    if not op.startswith("operator."):
        return FUNCTIONS[op]
    dunder = op.partition(".")[2]

    def apply(x, y=None):
        if isinstance(y, dict):
            return x[_index_key(y)]
        return getattr(x, dunder)() if y is None else getattr(x, dunder)(y)

    return apply


def _array_keys(spec: dict) -> list[str]:
    """The ``ARRAYS`` keys of an argument's spec (``array`` or ``arrays``); [] for a
    Python value."""
    if "arrays" in spec:
        return list(spec["arrays"])
    return [spec["array"]] if "array" in spec else []


def _build(case: dict):
    """The case's arguments in an adapters.v1 graph: (call kwargs, feeds, float inputs)."""
    call, feeds, floats = {}, {}, []
    for param, spec in case["arguments"].items():
        if "array" in spec or "arrays" in spec:
            keys = _array_keys(spec)
            tensors = []
            for key in keys:
                a = ARRAYS[key]
                if a.dtype.kind == "f":
                    t = tf.placeholder(a.dtype, a.shape)
                    feeds[t] = a
                    floats.append((key, t))
                else:
                    t = tf.constant(a)
                tensors.append(t)
            call[param] = tensors if "arrays" in spec else tensors[0]
        else:
            call[param] = _python_value(spec)
    return call, feeds, floats


@pytest.mark.parametrize("name", sorted(CASES))
def test_session_value_and_gradient(name):
    case = CASES[name]
    op = case["op"]
    g = tf.Graph()
    with g.as_default():
        call, feeds, floats = _build(case)
        if "error" in case:
            error = {"TypeError": TypeError, "ValueError": ValueError}[case["error"]["class"]]
            with pytest.raises(error) as info:
                _function(op)(**call)
            assert str(info.value) == case["error"]["message"]
            return
        out = _function(op)(**call)
        outs = list(out) if case["outputs"] == "list" else [out]
        assert len(outs) == len(case["output_keys"])
        float_outs = [o for o in outs if np_dtype(o.dtype).kind == "f"]
        weights = [ARRAYS[k] for k in case["weights"]]
        grads = []
        if float_outs and floats and "gradient_error" not in case:
            grads = tf.gradients(float_outs, [t for _, t in floats], grad_ys=weights)
        sparse = [isinstance(x, tf.IndexedSlices) for x in grads]
        if case.get("sparse_gradient"):  # TF's is an IndexedSlices: so is ours; compared dense
            assert any(sparse), f"{name}: TF's gradient is an IndexedSlices, ours is dense"
        grads = [tf.convert_to_tensor(x) if s else x for x, s in zip(grads, sparse, strict=True)]
        fetched = [x for x in grads if x is not None]
        with tf.Session() as sess:
            values = sess.run(outs, feeds)
            grad_values = sess.run(fetched, feeds)
            value_mags, grad_mags = [None] * len(values), [None] * len(grad_values)
            if _is_convolution(op):  # the sums of magnitudes: on |inputs| and |weights|
                abs_feeds = {t: np.abs(a) for t, a in feeds.items()}
                value_mags = sess.run(outs, abs_feeds)
                if fetched:
                    abs_grads = tf.gradients(
                        float_outs, [t for _, t in floats], grad_ys=[np.abs(w) for w in weights]
                    )
                    grad_mags = sess.run([x for x in abs_grads if x is not None], abs_feeds)
    for i, (v, key, m) in enumerate(zip(values, case["output_keys"], value_mags, strict=True)):
        _assert_close(op, v, ARRAYS[key], f"{name} output {i}", magnitude=m)
    it = iter(zip(grad_values, grad_mags, strict=True))
    for (key, _), gr in zip(floats, grads, strict=False):
        expected_key = case["grads"][key]
        if expected_key is None:  # TF: no gradient (None); ours: None or zeros
            if gr is not None:
                assert not np.any(next(it)[0]), f"{name}: TF has no gradient for {key}"
            continue
        assert gr is not None, f"{name}: no gradient for {key}, TF has one"
        value, mag = next(it)
        what = f"{name} gradient of {key}"
        _assert_close(op, value, ARRAYS[expected_key], what, exact=False, magnitude=mag)


def _floating(case: dict) -> bool:
    """Whether a case has a floating-point array argument."""
    return any(
        ARRAYS[k].dtype.kind == "f"
        for spec in case["arguments"].values()
        for k in _array_keys(spec)
    )


def _op_by_op_cases() -> list[str]:
    """The entries' cases without a float input, which the compat layer also runs op by
    op: to evaluate a value the step needs when it is traced (a shape or size computed
    in the graph, ``shape_values``: integer arithmetic). Every case, float ones
    included, runs compiled in ``test_session_value_and_gradient`` (the same
    implementation, its VJP through ``tf.gradients``); calling the float cases' entries
    under ``jax.jit`` here as well repeated that check (5.5 of the unit suite's 51
    worker-minutes)."""
    return sorted(
        n for n, c in CASES.items() if "error" not in c and c["op"] in OPS and not _floating(c)
    )


@pytest.mark.usefixtures("x64_scope")
@pytest.mark.parametrize("name", _op_by_op_cases())
def test_jax_implementation_op_by_op(name):
    """The entry's JAX implementation on the arrays directly, op by op: its values.

    Run in the compat layer's 64-bit scope, as ``Session.run`` runs it.
    """
    case = CASES[name]
    entry = OPS[case["op"]]
    args = {}
    for param, spec in case["arguments"].items():
        if "array" in spec or "arrays" in spec:
            arrays = [ARRAYS[k] for k in _array_keys(spec)]
            args[param] = arrays if "arrays" in spec else arrays[0]
        else:
            args[param] = _python_value(spec)
    bound = entry.signature.bind(**args)
    bound.apply_defaults()
    bound.arguments.pop(entry.collection_param, None)
    # Python numbers in tensor positions take the tensor operands' dtype (TF's rule).
    dtypes = [
        np.asarray(v).dtype
        for p, v in bound.arguments.items()
        if p in entry.same_dtype and isinstance(v, np.ndarray)
    ]
    for p in entry.same_dtype:
        v = bound.arguments.get(p)
        if v is not None and not isinstance(v, (np.ndarray, list)) and dtypes:
            bound.arguments[p] = np.asarray(v, dtypes[0])
    out = entry.impl(*[bound.arguments[p] for p in impl_params(entry)])
    outs = list(out) if case["outputs"] == "list" else [out]
    for i, (v, key) in enumerate(zip(outs, case["output_keys"], strict=True)):
        _assert_close(case["op"], v, ARRAYS[key], f"{name} output {i}")


@pytest.mark.parametrize("op", sorted(SIGNATURES))
def test_signature_is_tfs(op):
    ours = []
    signature = OPS[op].signature if op in OPS else inspect.signature(FUNCTIONS[op])
    for p in signature.parameters.values():
        if p.default is p.empty:
            ours.append([p.name])
        else:
            default = p.default
            ours.append([p.name, default])
    assert ours == SIGNATURES[op]
