"""TF1 control-flow and debugging programs, run under TF and under jtrain alike.

``results(tf)`` builds each program with the module it is given
(``tf.compat.v1`` after ``disable_v2_behavior()``, or ``adapters.v1``) and returns
what it computes: values, ``tf.gradients``, error classes and messages, printed
text. ``goldens/gen_control_flow.py`` stores TF's results; the test compares
jtrain's with them. Only TF1 API calls appear here.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from typing import Any

import numpy as np

X = np.array([0.5, -1.5, 2.0, 3.0], np.float32)


def _value(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, dict):
        return {k: _value(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    arr = np.asarray(v)
    if arr.dtype.kind in "SO":
        return [x.decode() if isinstance(x, bytes) else str(x) for x in arr.reshape(-1)]
    return {"dtype": arr.dtype.name, "shape": list(arr.shape), "value": arr.tolist()}


def _message(text: str) -> str:
    """The first line of an error that is the op's own message (no TF decoration)."""
    for line in text.splitlines():
        s = line.strip()
        if (
            not s
            or line[0] in " \t"
            or s.startswith(
                ("Graph execution error", "Detected at node", "Node:", "Original stack trace")
            )
        ):
            continue
        return s
    return ""


def _error(e: BaseException) -> dict[str, str]:
    text = getattr(e, "message", None) or str(e)
    return {"error": type(e).__name__, "message": _message(text)}


@contextlib.contextmanager
def _captured_stderr(out: list[str]):
    """Text written to stderr (Python's ``sys.stderr`` and file descriptor 2)."""
    sys.stderr.flush()
    saved_fd = os.dup(2)
    saved = sys.stderr
    buffer = io.StringIO()
    with tempfile.TemporaryFile(mode="w+b") as f:
        os.dup2(f.fileno(), 2)
        sys.stderr = buffer
        try:
            yield
        finally:
            sys.stderr = saved
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            f.seek(0)
            native = f.read().decode("utf-8", "replace")
    lines = [
        line
        for line in (native + buffer.getvalue()).splitlines()
        if line and not line.startswith(("W0000", "I0000", "E0000", "WARNING"))
    ]
    out.extend(lines)


def _run(tf: Any, build, feeds: dict[str, Any] | None = None) -> Any:
    """Builds ``build(tf)`` in a new graph -> (fetches, placeholders); runs it once."""
    with tf.Graph().as_default():
        try:
            fetches, holders = build(tf)
        except Exception as e:  # noqa: BLE001 - the build's error is the result
            return {"build": _error(e)}
        feed = {holders[k]: v for k, v in (feeds or {}).items()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            try:
                return _value(sess.run(fetches, feed))
            except Exception as e:  # noqa: BLE001 - the run's error is the result
                return {"run": _error(e)}


def _x(tf: Any):
    return tf.placeholder(tf.float32, [4], name="x")


# -- programs -------------------------------------------------------------------------------
def cond_basic(tf):
    x, p = _x(tf), tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: x * 3.0 + 1.0, lambda: tf.sin(x) * x)
    return [y, tf.gradients(tf.reduce_sum(y * y), x)], {"x": x, "p": p}


def cond_structure(tf):
    x, p = _x(tf), tf.placeholder(tf.bool, [], name="p")
    d = tf.cond(p, lambda: {"a": x, "b": (x * 2.0, 1.0)}, lambda: {"a": -x, "b": (x + 1.0, 2.0)})
    single = tf.cond(p, lambda: [x], lambda: [x * 0.0])
    strict = tf.cond(p, lambda: [x], lambda: [x * 0.0], strict=True)
    return [d, single, strict, tf.gradients(d["b"][0], x)], {"x": x, "p": p}


def cond_nested(tf):
    x, p = _x(tf), tf.placeholder(tf.bool, [], name="p")
    s = tf.reduce_sum(x)
    y = tf.cond(p, lambda: tf.cond(s > 3.0, lambda: x * x, lambda: -x), lambda: x * s)
    return [y, tf.gradients(y, x)], {"x": x, "p": p}


def cond_assign(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    v = tf.Variable(1.0, name="v")
    y = tf.cond(p, lambda: v.assign_add(10.0), lambda: tf.identity(v.read_value()) * 2.0)
    with tf.control_dependencies([y]):
        after = v.read_value()
    return [y, after], {"p": p}


def cond_constant_pred(tf):
    with tf.Graph().as_default():
        outs = [
            tf.cond(tf.constant(flag), lambda: tf.zeros([2, 3]), lambda: tf.ones([2, 4]))
            for flag in (True, False)
        ]
        with tf.Session() as sess:
            return [[o.shape.as_list() for o in outs], _value(sess.run(outs))]


def cond_errors_python_bool(tf):
    return tf.cond(True, lambda: tf.constant(1.0), lambda: tf.constant(2.0)), {}


def cond_errors_dtypes(tf):
    p = tf.placeholder(tf.bool, [])
    return tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(1)), {}


def cond_errors_none(tf):
    p = tf.placeholder(tf.bool, [])
    return tf.cond(p, lambda: None, lambda: tf.constant(1)), {}


def cond_errors_int_pred(tf):
    return tf.cond(tf.constant(1), lambda: tf.constant(1.0), lambda: tf.constant(2.0)), {}


def case_program(tf, exclusive=False, default=True):
    x = tf.placeholder(tf.float32, [], name="x")
    pairs = [(x < 0.0, lambda: x * 10.0), (x < 10.0, lambda: x * x)]
    out = tf.case(pairs, default=(lambda: x - 100.0) if default else None, exclusive=exclusive)
    return [out, tf.gradients(out, x)], {"x": x}


def while_power(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    i, acc = tf.while_loop(
        lambda i, a: i < 5,
        lambda i, a: (i + 1, a * x),
        (tf.constant(0), tf.constant(1.0)),
        maximum_iterations=10,
    )
    return [i, acc, tf.gradients(acc, x)], {"x": x}


def while_limited(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    i, acc = tf.while_loop(
        lambda i, a: i < 100,
        lambda i, a: (i + 1, a * x + 1.0),
        [tf.constant(0), x],
        maximum_iterations=3,
    )
    return [i, acc, tf.gradients(acc, x)], {"x": x}


def while_limited_list(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    i, acc = tf.while_loop(
        lambda i, a: i < 100,
        lambda i, a: [i + 1, a * x + 1.0],
        [tf.constant(0), x],
        maximum_iterations=3,
    )
    return [i, acc, tf.gradients(acc, x)], {"x": x}


def while_vector(tf):
    x = _x(tf)
    w = tf.Variable([1.0, 2.0, 3.0, 4.0], name="w")

    def body(i, h):
        return i + 1, tf.tanh(h * w + x)

    _, h = tf.while_loop(
        lambda i, h: i < 3, body, (tf.constant(0), tf.zeros([4])), maximum_iterations=3
    )
    return [h, tf.gradients(tf.reduce_sum(h), [x, w])], {"x": x}


def while_single(tf):
    return [
        tf.while_loop(lambda i: i < 10, lambda i: i + 2, [tf.constant(0)]),
        tf.while_loop(
            lambda i: i < 10, lambda i: i + 2, [tf.constant(1)], return_same_structure=True
        ),
    ], {}


def while_shape_change(tf):
    return tf.while_loop(
        lambda i: tf.size(i) < 10, lambda i: tf.concat([i, i], 0), [tf.constant([0])]
    ), {}


def while_structure_error(tf):
    return tf.while_loop(
        lambda i, j: i < 10, lambda i, j: i + 1, [tf.constant(0), tf.constant(1)]
    ), {}


def while_assign(tf):
    v = tf.Variable(0.0, name="v")

    def body(i):
        with tf.control_dependencies([v.assign_add(2.0)]):
            return i + 1

    n = tf.while_loop(lambda i: i < 4, body, [tf.constant(0)])
    with tf.control_dependencies([n]):
        after = v.read_value()
    return [n, after], {}


def case_dict(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    out = tf.case(
        {x < 0.0: lambda: x * 10.0, x > 5.0: lambda: x + 1.0}, default=lambda: x, exclusive=True
    )
    return [out], {"x": x}


def train_through_control_flow(tf):
    """Three SGD steps of a loss built with cond, while_loop, map_fn, scan and foldl."""
    x = _x(tf)
    p = tf.placeholder(tf.bool, [], name="p")
    w = tf.Variable([0.5, -0.25, 1.0, 0.75], name="w")
    b = tf.Variable(0.1, name="b")
    h = tf.map_fn(lambda e: tf.tanh(e[0] * e[1] + b), (x, w), dtype=tf.float32)
    s = tf.scan(lambda a, e: 0.5 * a + e, h)
    _, z = tf.while_loop(
        lambda i, z: i < 3, lambda i, z: (i + 1, z * 0.9 + s), (0, s), maximum_iterations=3
    )
    loss = tf.cond(p, lambda: tf.reduce_sum(z * z), lambda: tf.foldl(lambda a, e: a + e * e, z))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.control_dependencies([step]):
        done = tf.no_op()
    return [done, loss], {"x": x, "p": p}


def _train(tf, p):
    with tf.Graph().as_default():
        fetches, holders = train_through_control_flow(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run(fetches, {holders["x"]: X, holders["p"]: p})[1] for _ in range(3)]
            weights = sess.run(tf.trainable_variables())
    return _value([losses, weights])


def _train_layers(tf, p):
    """A dense layer created inside a cond branch and a map_fn, trained by Adam."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 4], name="x")
        pred = tf.placeholder(tf.bool, [], name="p")
        init = tf.constant_initializer(np.linspace(-0.5, 0.5, 12).reshape(4, 3))

        def dense():
            return tf.layers.dense(x, 3, kernel_initializer=init, name="d1")

        h = tf.cond(pred, dense, lambda: tf.zeros([2, 3]))
        rows = tf.map_fn(
            lambda r: tf.reduce_sum(
                tf.layers.dense(
                    r[None], 2, use_bias=False, name="d2", kernel_initializer=tf.ones_initializer()
                )
            ),
            h,
        )
        loss = tf.reduce_sum(rows * rows) + tf.reduce_sum(h * h)
        step = tf.train.AdamOptimizer(0.05).minimize(loss)
        names = sorted(v.name for v in tf.global_variables())  # (creation order: not here)
        feed = {x: np.reshape(X, (1, 4)).repeat(2, 0) * [[1.0], [0.5]], pred: p}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, step], feed)[0] for _ in range(3)]
            weights = sess.run(tf.trainable_variables())
    return [names, _value([losses, weights])]


def cond_prints(tf):
    x = _x(tf)
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: tf.Print(x, [x], "true: "), lambda: tf.Print(x, [x * 2.0], "false: "))
    return [y], {"x": x, "p": p}


def map_scan(tf):
    x = _x(tf)
    w = tf.Variable(2.0, name="w")
    m = tf.map_fn(lambda e: e * w + 1.0, x)
    m2 = tf.map_fn(
        lambda e: (e[0] * e[0], e[1] * 2),
        (x, tf.constant([1, 2, 3, 4])),
        dtype=(tf.float32, tf.int32),
    )
    s1 = tf.scan(lambda a, e: a * e + 1.0, x)
    s2 = tf.scan(lambda a, e: a * e + w, x, initializer=tf.constant(0.5), reverse=True)
    s3 = tf.scan(
        lambda a, e: (a[0] + e, a[1] * e), x, initializer=(tf.constant(0.0), tf.constant(1.0))
    )
    fl = tf.foldl(lambda a, e: a * 0.5 + e, x)
    fr = tf.foldr(lambda a, e: a * 0.5 + e, x, initializer=tf.constant(1.0))
    total = (
        tf.reduce_sum(m) + tf.reduce_sum(s1) + tf.reduce_sum(s2) + tf.reduce_sum(s3[1]) + fl * fr
    )
    return [m, m2, s1, s2, s3, fl, fr, tf.gradients(total, [x, w])], {"x": x}


def more_scans(tf):
    x = _x(tf)
    r = tf.scan(lambda a, e: a * 0.5 + e, x, reverse=True)
    f = tf.foldr(lambda a, e: a * 0.5 + e, x)
    d = tf.map_fn(
        lambda e: {"s": e["a"] + e["b"], "p": e["a"] * e["b"]},
        {"a": x, "b": x * 3.0},
        dtype={"s": tf.float32, "p": tf.float32},
    )
    g = tf.gradients(tf.reduce_sum(r) + f + tf.reduce_sum(d["p"]), x)
    return [r, f, d, g], {"x": x}


def while_invariants(tf):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="xv")
        _, y = tf.while_loop(
            lambda i, v: i < 3,
            lambda i, v: (i + 1, v * 2.0 + 1.0),
            (tf.constant(0), x),
            shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])),
        )
        with tf.Session() as sess:
            return [y.shape.as_list(), _value(sess.run(y, {x: X[:3]}))]


def cond_operation(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    v = tf.Variable(1.0, name="v")
    out = tf.cond(p, lambda: v.assign(5.0).op, lambda: tf.no_op())
    with tf.control_dependencies([out]):
        after = v.read_value()
    return [out, after], {"p": p}


def check_numerics(tf, values):
    x = _x(tf)
    return [tf.check_numerics(x * 2.0, "my msg")], {"x": x}


def check_numerics_gradient(tf):
    x = _x(tf)
    y = tf.check_numerics(x, "my msg")
    return [tf.gradients(tf.reduce_sum(tf.log(y)), x)], {"x": x}


def verify_finite(tf):
    x = _x(tf)
    return [tf.verify_tensor_all_finite(x, "vmsg")], {"x": x}


def add_check_numerics(tf):
    x = _x(tf)
    y = tf.log(x)
    check = tf.add_check_numerics_ops()
    return [y, check], {"x": x}


def check_numerics_int(tf):
    return tf.check_numerics(tf.constant([1]), "m"), {}


def assert_program(tf, summarize=None):
    x = _x(tf)
    a = tf.Assert(
        tf.reduce_all(x > 0.0),
        ["x must be positive", x, tf.constant([[1, 2], [3, 4]]), tf.constant(2.5)],
        summarize=summarize,
    )
    with tf.control_dependencies([a]):
        y = tf.identity(x)
    return [y], {"x": x}


ASSERTS = [
    ("assert_equal", True),
    ("assert_none_equal", True),
    ("assert_less", True),
    ("assert_less_equal", True),
    ("assert_greater", True),
    ("assert_greater_equal", True),
    ("assert_positive", False),
    ("assert_negative", False),
    ("assert_non_negative", False),
    ("assert_non_positive", False),
]


def assert_family(tf, fn_name, binary, message=None):
    x = _x(tf)
    fn = getattr(tf, fn_name)
    y = tf.constant([0.5, 0.0, 2.0, 4.0])
    op = fn(x, y, message=message) if binary else fn(x, message=message)
    return [op], {"x": x}


def assert_static(tf):
    return tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="mm"), {}


def py_func_program(tf):
    x = _x(tf)
    y = tf.py_func(lambda a: a * 2.0, [x], tf.float32)
    z = tf.py_func(lambda a: (a + 1.0, np.int32(a.size)), [x * 1.0], [tf.float32, tf.int32])
    z[0].set_shape([4])
    z[1].set_shape([])
    n = tf.numpy_function(lambda a: np.sort(a), [x], tf.float32)
    grads = tf.gradients(tf.reduce_sum(z[0] * x), x)
    return [y, z, n, grads], {"x": x}


def py_func_error(tf, exc, computed):
    x = _x(tf)

    def f(a):
        raise exc

    y = tf.py_func(f, [x * 1.0 if computed else x], tf.float32)
    y.set_shape([4])
    return [y], {"x": x}


def py_func_dtype(tf):
    x = _x(tf)
    return [tf.py_func(lambda a: a.astype(np.float64), [x], tf.float32)], {"x": x}


def py_func_no_gradient(tf):
    with tf.Graph().as_default():
        x = _x(tf)
        y = tf.py_func(lambda a: a * 2.0, [x], tf.float32)
        return [g is None for g in tf.gradients(y, [x])] + [
            g is None for g in tf.gradients(y * x, [x, y])
        ]


def tuple_identity(tf):
    x = _x(tf)
    t = tf.tuple([x, x * 2.0])
    n = tf.identity_n([x, tf.constant(3)])
    return [t, n, [s.name for s in t + n]], {"x": x}


def prints(tf):
    x = _x(tf)
    p1 = tf.Print(x, [x, "abc", tf.constant(3)], "msg: ")
    p2 = tf.Print(x * 2.0, [x * 2.0, tf.constant([[1, 2], [3, 4]])], summarize=10)
    p3 = tf.Print(x, [x], "once: ", first_n=1)
    return [p1, p2, p3], {"x": x}


def print_v2(tf):
    x = _x(tf)
    ops = [
        tf.print(
            "a",
            x,
            tf.range(10),
            {"k": tf.constant(1)},
            [1, 2],
            tf.constant([[1.0, 2.0], [3.0, 4.0]]),
        ),
        tf.print(tf.range(10), summarize=-1, sep="|", end="!\n"),
        tf.print(tf.constant(1.5), tf.constant(True), tf.constant(1 / 3, tf.float64), sep=", "),
        tf.print(tf.constant(np.arange(24).reshape(2, 3, 4)), summarize=1),
    ]
    return ops, {"x": x}


def _printed(tf, build, feeds, runs=1):
    lines: list[str] = []
    with tf.Graph().as_default():
        fetches, holders = build(tf)
        feed = {holders[k]: v for k, v in feeds.items()}
        with tf.Session() as sess:
            for fetch in fetches:
                for _ in range(runs):
                    with _captured_stderr(lines):
                        sess.run(fetch, feed)
    return lines


def results(tf: Any) -> dict[str, Any]:
    """Every program's result under the TF1 module ``tf``."""
    nan = np.array([1.0, np.nan, 2.0, 3.0], np.float32)
    inf = np.array([1.0, np.inf, 2.0, 3.0], np.float32)
    both = np.array([np.inf, np.nan, 2.0, 3.0], np.float32)
    out: dict[str, Any] = {}
    for p in (True, False):
        out[f"cond_basic_{p}"] = _run(tf, cond_basic, {"x": X, "p": p})
        out[f"cond_structure_{p}"] = _run(tf, cond_structure, {"x": X, "p": p})
        out[f"cond_nested_{p}"] = _run(tf, cond_nested, {"x": X, "p": p})
        out[f"cond_assign_{p}"] = _run(tf, cond_assign, {"p": p})
    out["cond_constant_pred"] = cond_constant_pred(tf)
    out["cond_nested_small"] = _run(tf, cond_nested, {"x": X * 0.1, "p": True})
    for name in ("python_bool", "dtypes", "none", "int_pred"):
        out[f"cond_error_{name}"] = _run(tf, globals()[f"cond_errors_{name}"])
    for xv in (-2.0, 3.0, 20.0):
        out[f"case_{xv}"] = _run(tf, case_program, {"x": xv})
        out[f"case_nodefault_{xv}"] = _run(
            tf, lambda tf: case_program(tf, default=False), {"x": xv}
        )
        out[f"case_exclusive_{xv}"] = _run(
            tf, lambda tf: case_program(tf, exclusive=True), {"x": xv}
        )
    out["while_power"] = _run(tf, while_power, {"x": 1.5})
    out["while_limited"] = _run(tf, while_limited, {"x": 1.5})
    out["while_limited_list"] = _run(tf, while_limited_list, {"x": 1.5})
    out["while_vector"] = _run(tf, while_vector, {"x": X})
    out["while_single"] = _run(tf, while_single)
    out["while_shape_change"] = _run(tf, while_shape_change)
    out["while_structure_error"] = _run(tf, while_structure_error)
    out["map_scan"] = _run(tf, map_scan, {"x": X})
    out["while_assign"] = _run(tf, while_assign)
    out["more_scans"] = _run(tf, more_scans, {"x": X})
    out["while_invariants"] = while_invariants(tf)
    for p in (True, False):
        out[f"cond_operation_{p}"] = _run(tf, cond_operation, {"p": p})
    for xv in (-1.0, 2.0, 7.0):
        out[f"case_dict_{xv}"] = _run(tf, case_dict, {"x": xv})
    for p in (True, False):
        out[f"train_through_control_flow_{p}"] = _train(tf, p)
        out[f"train_layers_{p}"] = _train_layers(tf, p)
        out[f"cond_prints_{p}"] = _printed(tf, cond_prints, {"x": X, "p": p})
    for label, value in (("ok", X), ("nan", nan), ("inf", inf), ("both", both)):
        out[f"check_numerics_{label}"] = _run(tf, lambda tf: check_numerics(tf, None), {"x": value})
        out[f"verify_finite_{label}"] = _run(tf, verify_finite, {"x": value})
    for label, value in (
        ("ok", np.abs(X)),
        ("zero", np.array([1.0, 0.0, 2.0, 3.0], np.float32)),
        ("nan", np.array([1.0, -1.0, 2.0, 3.0], np.float32)),
    ):
        out[f"check_numerics_gradient_{label}"] = _run(tf, check_numerics_gradient, {"x": value})
    out["add_check_numerics_ok"] = _run(tf, add_check_numerics, {"x": np.abs(X)})
    out["check_numerics_int"] = _run(tf, check_numerics_int)
    out["assert_ok"] = _run(tf, assert_program, {"x": np.abs(X)})
    out["assert_fail"] = _run(tf, assert_program, {"x": X})
    out["assert_fail_summarize"] = _run(tf, lambda tf: assert_program(tf, 2), {"x": X})
    out["assert_fail_all"] = _run(tf, lambda tf: assert_program(tf, -1), {"x": X})
    for fn_name, binary in ASSERTS:
        for label, value in (
            ("a", X),
            ("b", np.array([0.5, 0.0, 2.0, 4.0], np.float32)),
            ("c", np.abs(X) + 5.0),
            ("d", -np.abs(X) - 5.0),
        ):
            out[f"{fn_name}_{label}"] = _run(
                tf, lambda tf, f=fn_name, b=binary: assert_family(tf, f, b), {"x": value}
            )
        out[f"{fn_name}_message"] = _run(
            tf, lambda tf, f=fn_name, b=binary: assert_family(tf, f, b, "mm"), {"x": X}
        )
    out["assert_static"] = _run(tf, assert_static)
    out["py_func"] = _run(tf, py_func_program, {"x": X})
    for exc in (
        ValueError("bad value"),
        TypeError("bad type"),
        ZeroDivisionError("zero"),
        StopIteration(),
        NotImplementedError("later"),
        KeyError("k"),
    ):
        for computed in (False, True):
            key = f"py_func_error_{type(exc).__name__}_{'computed' if computed else 'fed'}"
            out[key] = _run(tf, lambda tf, e=exc, c=computed: py_func_error(tf, e, c), {"x": X})
    out["py_func_dtype"] = _run(tf, py_func_dtype, {"x": X})
    out["py_func_no_gradient"] = py_func_no_gradient(tf)
    out["tuple_identity"] = _run(tf, tuple_identity, {"x": X})
    out["print"] = _printed(tf, prints, {"x": X}, runs=2)
    out["print_v2"] = _printed(tf, print_v2, {"x": X})
    return out
