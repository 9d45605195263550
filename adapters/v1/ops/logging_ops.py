"""``tf.Print`` and ``tf.print``: printing from inside the step program.

Both print on the host through ``jax.debug.callback`` (ordered), so the step
stays one compiled program and prints appear in the order the program runs
them. Values are formatted as TF formats them: ``tf.Print`` and ``tf.Assert`` with
TF's ``SummarizeValue`` (``[1 2 3...]``), ``tf.print`` with its NumPy-like layout
(``[0 1 2 ... 7 8 9]``). A gradient's re-evaluation of an operation does not
print again.
"""

from __future__ import annotations

import sys
from typing import Any

import jax
import numpy as np

from adapters.v1.framework import ops

__all__ = ["Print", "print_v2", "summarize_value", "format_element", "c_escape"]


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}  # fmt: skip


def c_escape(data: bytes) -> str:
    """A string element as TF prints it (``absl::Utf8SafeCEscape``): ``\\n``, ``\\r``,
    ``\\t``, quotes and backslashes escaped, other control bytes as three octal digits,
    bytes of 0x80 and above (UTF-8) kept."""
    out = bytearray()
    for b in data:
        if b in _ESCAPES:
            out += _ESCAPES[b].encode()
        elif b < 0x20 or b == 0x7F:
            out += f"\\{b:03o}".encode()
        else:
            out.append(b)
    return out.decode("utf-8", "replace")


def format_element(value: Any, v2: bool = False) -> str:
    """One element as TF prints it (bool ``1``/``0``; floats as TF's ``FloatToBuffer``:
    float32, float16 and bfloat16 with ``%.6g`` where that reads back as the same
    float32, else ``%.9g``; float64 with ``%.15g``, else ``%.17g``)."""
    if isinstance(value, (bytes, np.bytes_, str)):
        text = c_escape(value.encode() if isinstance(value, str) else bytes(value))
        return f'"{text}"' if v2 else text
    kind = np.asarray(value).dtype
    if kind == np.bool_:
        return "1" if value else "0"
    if kind.kind == "f" or kind.name == "bfloat16":
        if kind == np.float64:
            number = float(value)
            text = f"{number:.15g}"
            return text if float(text) == number else f"{number:.17g}"
        single = np.float32(value)
        text = f"{float(single):.6g}"
        return text if np.float32(text) == single else f"{float(single):.9g}"
    return str(value)


def summarize_value(value: Any, summarize: int | None = 3) -> str:
    """TF's ``Tensor::SummarizeValue``: the first ``summarize`` elements (all if < 0)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return format_element(arr[()])
    flat = arr.reshape(-1)
    n = flat.size if summarize is None or summarize < 0 else min(summarize, flat.size)
    out: list[str] = []
    index = [0]

    def one_dim(dim: int) -> None:
        if index[0] >= n:
            return
        if dim == arr.ndim - 1:
            for i in range(arr.shape[dim]):
                if index[0] >= n:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(format_element(flat[index[0]]))
                index[0] += 1
            return
        for _ in range(arr.shape[dim]):
            opened = index[0] < n
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if index[0] < n or opened:
                out.append("]")

    one_dim(0)
    if n < flat.size:
        out.append("...")
    return "".join(out)


def _format_v2(value: Any, summarize: int) -> str:
    """``tf.print``'s layout of a tensor value (NumPy-like, ``...`` past ``summarize``)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return format_element(arr[()], v2=True)

    def block(a: np.ndarray, depth: int) -> str:
        size = a.shape[0]
        cut = 0 <= summarize and 2 * summarize < size
        keep = list(range(summarize)) + [-1] + list(range(size - summarize, size)) if cut else None
        indices = keep if keep is not None else list(range(size))
        if a.ndim == 1:
            items = ["..." if i == -1 else format_element(a[i], v2=True) for i in indices]
            return "[" + " ".join(items) + "]"
        sep = "\n" + " " * (depth + 1)
        items = ["..." if i == -1 else block(a[i], depth + 1) for i in indices]
        return "[" + sep.join(items) + "]"

    return block(arr, 0)


def Print(  # noqa: N802 - TF's name
    input_: Any,
    data: Any,
    message: str | None = None,
    first_n: int | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """``tf.Print``: ``input_`` unchanged; when run, prints ``message`` and ``data`` to stderr.

    Args:
      input_: the tensor passed through.
      data: tensors (or strings) printed, each as ``[value]`` after ``message``.
      message: a prefix (default none).
      first_n: print only the first ``first_n`` runs (default ``None``/-1: every run).
      summarize: elements printed per tensor (default 3).
      name: the op name (default ``"Print"``).

    Returns:
      A tensor with the value of ``input_``.
    """
    graph = ops.get_default_graph()
    input_ = ops.convert_to_tensor(input_)
    data = list(data) if isinstance(data, (list, tuple)) else [data]
    parts: list[Any] = []  # a str, or the index of a tensor input
    tensors = [input_]
    for d in data:
        if isinstance(d, (str, bytes)):
            parts.append(d.decode() if isinstance(d, bytes) else d)
        else:
            t = ops.convert_to_tensor(d)
            const = t.op._const_value
            if const is not None and np.asarray(const).dtype.kind in "OSU":
                parts.append(summarize_value(const, summarize if summarize is not None else 3))
            else:
                parts.append(len(tensors))
                tensors.append(t)
    limit = -1 if first_n is None else int(first_n)
    count = [0]
    prefix = message or ""
    n = 3 if summarize is None else summarize

    def emit(*values: Any) -> None:
        if 0 <= limit <= count[0]:
            return
        count[0] += 1
        text = "".join(
            f"[{p}]" if isinstance(p, str) else f"[{summarize_value(values[p - 1], n)}]"
            for p in parts
        )
        sys.stderr.write(prefix + text + "\n")
        sys.stderr.flush()

    def compute(ctx: Any, x: Any, *values: Any) -> tuple[Any, ...]:
        if not ctx.frozen:
            jax.debug.callback(emit, *values, ordered=True)
        return (x,)

    op = graph.create_op(
        "Print",
        name or "Print",
        inputs=tensors,
        compute=compute,
        output_specs=[(input_._shape, input_.dtype)],
    )
    return op.outputs[0]


def print_v2(
    *inputs: Any,
    output_stream: Any = None,
    summarize: int = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> ops.Operation:
    """``tf.print``: an operation printing ``inputs`` when run.

    Args:
      *inputs: tensors, Python values and nested lists/tuples/dicts of them.
      output_stream: ``sys.stderr`` (default), ``sys.stdout``, or a logging
        function (``tf.logging.info``...) called with the text.
      summarize: first and last elements printed per dimension (-1: all).
      sep: between inputs; end: after the last.
      name: the op name (default ``"PrintV2"``).

    Returns:
      The printing ``Operation`` (run it, or make it a control dependency).
    """

    def is_tensor(v: Any) -> bool:
        return isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_tensor")

    leaves, tree = jax.tree.flatten(list(inputs), is_leaf=is_tensor)
    tensors: list[ops.Tensor] = []
    slots: list[tuple[bool, Any]] = []  # (True, tensor index) or (False, Python value)
    for leaf in leaves:
        if is_tensor(leaf):
            slots.append((True, len(tensors)))
            tensors.append(ops.convert_to_tensor(leaf))
        else:
            slots.append((False, leaf))

    class _Text(str):
        def __repr__(self) -> str:  # a formatted tensor inside a list/dict prints bare
            return str(self)

    def emit(*values: Any) -> None:
        filled = [_Text(_format_v2(values[v], summarize)) if t else v for t, v in slots]
        parts = jax.tree.unflatten(tree, filled)
        text = sep.join(str(p) for p in parts) + end
        stream = sys.stderr if output_stream is None else output_stream
        if hasattr(stream, "write"):
            stream.write(text)
            stream.flush()
        elif callable(stream):
            stream(text[: -len(end)] if end and text.endswith(end) else text)
        else:
            raise ValueError(f"Unsupported output stream: {output_stream!r}")

    def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
        if not ctx.frozen:
            jax.debug.callback(emit, *values, ordered=True)
        return ()

    return ops.get_default_graph().create_op(
        "PrintV2", name or "PrintV2", inputs=tensors, compute=compute
    )
