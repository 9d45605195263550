"""``tf.decode_csv`` checked live against TF 2.21 (``twin.py``): columns' values, bits,
dtypes and static shapes, TF's quoting and number rules, and its errors.

jtrain had no ``tf.decode_csv`` (an ``AttributeError`` on a CSV input pipeline's
first line) until ``jtrain/records/csv.py`` and ``parsing_ops.decode_csv``.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

STRINGS = [[""], [""], [""]]
MIXED = [[0], [0.0], [""]]

# name -> (records, record_defaults, keyword arguments)
CASES = {
    "mixed": (["1,2.5,abc", "3,4,def"], MIXED, {}),
    "white space around numbers": ([" 1 , 2.5 ,x", "\t+5,\t1e3 ,y"], MIXED, {}),
    "quoted delimiter and quote": (['+5,1e3,"a,b"', '1,2,"a""b"', '1,2,""""'], MIXED, {}),
    "defaults": (["1,,x", ",,", "7,8,"], [[5], [7.5], ["d"]], {}),
    "na_value": (["NA,1,x", '1,"NA",NA', "1,2,3"], [[5], [0.0], ["d"]], {"na_value": "NA"}),
    "field_delim": (["1;2;x", ";;"], [[0], [0.0], ["z"]], {"field_delim": ";"}),
    "quotes as characters": (['a,b"c,"d'], STRINGS, {"use_quote_delim": False}),
    "select_cols": (["1,2,x,9", "3,4,y,8,7"], [[0], [""]], {"select_cols": [0, 3]}),
    "newline where a field starts": (["a,\nb,c", "\na,b,c", "a,b,c,\n"], STRINGS, {}),
    "newline in a quoted field": (['a,"b\nc",d'], STRINGS, {}),
    "empty last field": (["a,b,", 'a,b,""'], STRINGS, {}),
    "matrix of records": ([["1,2,x"], ["3,4,y"]], MIXED, {}),
    "float specials": (
        ["inf,-inf,nan", "+inf,Infinity,-nan", "INF,-0,0x1p3", "0X1.8p1,-0x1p-2,0x10"],
        [[0.0], [0.0], [0.0]],
        {},
    ),
    "float rounding": (
        ["0.1,1e40,1e-40", "3.4028235677973366e38,16777217,-.5e-3", "1e-50,5.,2147483647"],
        [[0.0], [0.0], [0.0]],
        {},
    ),
    # float64-halfway between two float32s: only the exact decimal decides (NumPy 2
    # compares a Python float with a float32 in float32, which hid the difference)
    "float32 halfway rounding": (
        [
            "1.00000005960464477539062500001,1.00000005960464477539062499999,"
            "1.000000059604644775390625",
            "1.00000017881393432617187499999,1.000000178813934326171875,"
            "-1.00000005960464477539062500001",
        ],
        [[0.0], [0.0], [0.0]],
        {},
    ),
    "int64 overflow": (
        ["9223372036854775808"],
        [jtf.constant([0], jtf.int64)],
        {},
    ),
    "float64": (
        ["0.1,9007199254740993,1e-320"],
        [
            jtf.constant([0.0], jtf.float64),
            jtf.constant([0.0], jtf.float64),
            jtf.constant([0.0], jtf.float64),
        ],
        {},
    ),
    "int64": (
        ["9223372036854775807,-9223372036854775808,00012"],
        [
            jtf.constant([0], jtf.int64),
            jtf.constant([0], jtf.int64),
            jtf.constant([0], jtf.int64),
        ],
        {},
    ),
    "int32 limits": (["2147483647,-2147483648,-0"], [[0], [0], [0]], {}),
    "numpy scalar defaults are TF literals": (
        ["1,2,3"],
        [[np.int64(0)], [np.float64(0)], [0]],
        {},
    ),
    # errors at run time (the first one met, record by record)
    "too many fields": (["a,b,c,d,e"], STRINGS, {}),
    "too few fields": (["a,b"], STRINGS, {}),
    "too few selected": (["a,b"], [[""], [""]], {"select_cols": [0, 2]}),
    "empty record": ([""], STRINGS, {}),
    "required field missing": (["1,,x"], [[0], [], [""]], {}),
    "required quoted empty": (['1,"",3'], [[0], [], [0]], {}),
    "not an int32": (["1.0,2,x"], MIXED, {}),
    "hex is not an int": (["0x10,2,x"], MIXED, {}),
    "int32 overflow": (["2147483648,2,x"], MIXED, {}),
    "underscore": (["1_0,2,x"], MIXED, {}),
    "not a float": (["1,1.5e,x"], MIXED, {}),
    "space inside a number": (["1,1 0,x"], MIXED, {}),
    "quoted number without quoting": (['1,"2",x'], MIXED, {"use_quote_delim": False}),
    "unescaped quote": (['"a"x,b,c'], STRINGS, {}),
    "unterminated quote": (['"a,b,c'], STRINGS, {}),
    "quote in an unquoted field": (['a,b"c,d'], STRINGS, {}),
    "carriage return in a field": (["a\rb,c,d"], STRINGS, {}),
    "newline ending a record": (["a,b,c\n"], STRINGS, {}),
    "second record bad": (["1,2,x", "3,y,z"], MIXED, {}),
    "two-character delimiter": (["1,2,3"], [[0], [0], [0]], {"field_delim": ";;"}),
}


def _run(tf, fetches, feeds):
    """The run's values, or the error's class name and first line."""

    def run(sess):
        try:
            return sess.run(fetches, feeds)
        except Exception as e:  # noqa: BLE001 - compared with TF's
            return (type(e).__name__, _message(e))

    return run


def _message(error):
    """An error's own message: TF's run errors wrap it ("Graph execution error", the
    node's traceback, then the message and ``[[{{node ...}}]]``)."""
    lines = str(getattr(error, "message", error)).split("\n")
    for i, line in enumerate(lines[1:], 1):
        if line.strip().startswith("[["):
            return lines[i - 1].strip()
    return lines[0]


def _shape(tensor):
    return None if tensor.shape.ndims is None else tensor.shape.as_list()


def _defaults(tf, defaults):
    """jtrain's constants as the script's ``tf``'s own (the table holds jtrain's)."""
    out = []
    for d in defaults:
        if isinstance(d, jtf.Tensor):
            value = d.op._const_value
            d = tf.constant(value, dtype=getattr(tf, d.dtype.name))
        out.append(d)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_decode_csv_as_tf(case):
    records, defaults, kwargs = CASES[case]
    shapes = {}

    def script(tf):
        r = tf.placeholder(tf.string, None)
        known = tf.placeholder(tf.string, np.shape(records))
        out = tf.decode_csv(r, _defaults(tf, defaults), **kwargs)
        static = tf.decode_csv(known, _defaults(tf, defaults), **kwargs)
        shapes[tf.__name__] = [_shape(o) for o in out + static]
        return _run(tf, out, {r: records})

    theirs, ours = run_both(script)
    if isinstance(theirs, list):
        assert_twins(theirs, ours, rtol=0)
        for t, o in zip(theirs, ours, strict=True):  # the very bits (NaN's sign, -0.0)
            if t.dtype.kind == "f":
                assert t.tobytes() == o.tobytes()
    else:
        assert ours == theirs
    assert shapes["adapters.v1"] == list(shapes.values())[0]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"select_cols": [2, 0]},
        {"select_cols": [1, 1]},
        {"select_cols": [0]},
        {"select_cols": [-1, 0]},
    ],
)
def test_decode_csv_select_cols_errors_as_tf(kwargs):
    def script(tf):
        try:
            tf.decode_csv(tf.constant(["1,2,3"]), [[0], [0]], **kwargs)
        except ValueError as e:
            found = ("ValueError", str(e))
        else:
            found = None
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs


def test_decode_csv_default_errors_as_tf():
    """A bool default is TF's TypeError; a two-element default its ValueError."""

    def script(tf):
        found = []
        for defaults in ([[0], [0], [True]], [[0], [0, 1]]):
            try:
                tf.decode_csv(tf.constant(["1,2,3"]), defaults)
            except (TypeError, ValueError) as e:
                found.append((type(e).__name__, str(e)[:60]))
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs


def test_a_text_line_reader_pipeline_as_tf(tmp_path):
    """The TF1 CSV input pipeline: ``string_input_producer`` -> ``TextLineReader``
    (header skipped) -> ``decode_csv`` -> ``batch``, every batch as TF's."""
    path = tmp_path / "data.csv"
    rows = ["a,b,label"] + [f"{i * 0.5},{i % 3},{'yes' if i % 2 else 'no'}" for i in range(10)]
    path.write_text("\n".join(rows) + "\n")

    def script(tf):
        files = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
        _, line = tf.TextLineReader(skip_header_lines=1).read(files)
        a, b, label = tf.decode_csv(line, [[0.0], [0], ["?"]])
        batch = tf.train.batch([a, b, label], batch_size=4, allow_smaller_final_batch=True)

        def run(sess):
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            out = []
            try:
                while True:
                    out.append(sess.run(batch))
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
                coord.join(threads)
            return out

        return run

    theirs, ours = run_both(script)
    assert len(theirs) == 3
    assert_twins(theirs, ours, rtol=0)
