"""``tf.profiler.profile``, ``advise`` and ``Profiler``: TF's tfprof model analysis of a
graph's float operations and parameters, in the scope and op views, with TF's report
text.

The op view groups the graph's ops by op type; the types are ordered by ``order_by``
(their own statistics), each type's totals sum it and the types after it, and a type
is shown when those totals pass the ``min_*`` filters (name regexes: not supported).

The scope view is tfprof's: the graph's op names form a tree by ``/`` (scopes that are
no op are nodes too), every node's statistics are accounted when one of its types
(the op type, the op log's types) fully matches ``account_type_regexes``, a node is
shown when it passes the ``min_*`` filters, ``max_depth`` and the name regexes, and
its shown descendants become its children, ordered by ``order_by`` (descending,
names ascending), the totals summing the shown (``account_displayed_op_only``) or
accounted nodes. A node's ``parameters`` is the element count of its ``shape``
attribute (variables and placeholders of a fully static shape).

.. note:: A jtrain step runs as one XLA program: there are no per-op times or memory.
   Without ``run_meta`` TF's times and bytes are 0 too, and so are jtrain's; with
   ``run_meta``, ``NotImplementedError`` (use ``jax.profiler``).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from adapters.v1.framework import ops as ops_lib
from adapters.v1.profiler import tfprof_logger
from adapters.v1.profiler.option_builder import ProfileOptionBuilder

__all__ = ["profile", "advise", "Profiler", "ALL_ADVICE"]

_ROOT = "_TFProfRoot"
_SCOPE_PARENT = "_TFScopeParent"

# TF's documented default advice: every checker on.
ALL_ADVICE = {
    "ExpensiveOperationChecker": {},
    "AcceleratorUtilizationChecker": {},
    "JobChecker": {},
    "OperationChecker": {},
}

# Options printed in TF's header: (name, key, default).
_OPTION_LINES = [
    ("max_depth", 10),
    ("min_bytes", 0),
    ("min_peak_bytes", 0),
    ("min_residual_bytes", 0),
    ("min_output_bytes", 0),
    ("min_micros", 0),
    ("min_accelerator_micros", 0),
    ("min_cpu_micros", 0),
    ("min_params", 0),
    ("min_float_ops", 0),
    ("min_occurrence", 0),
    ("step", -1),
    ("order_by", "name"),
]

_DOCS = {
    "params": "param: Number of parameters (in the Variable).",
    "float_ops": (
        "flops: Number of float operations. Note: Please read the implementation for the "
        "math behind it."
    ),
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "micros": (
        "total execution time: Sum of accelerator execution time and cpu execution time.\n"
        "cpu execution time: The time from the start to the end of the operation. It's the "
        "sum of actual cpu run time plus the time that it spends waiting if part of "
        "computation is launched asynchronously.\n"
        "accelerator execution time: Time spent executing on the accelerator. This is "
        "normally measured by the actual hardware library."
    ),
}
_SCOPE_DOC = (
    "scope: The nodes in the model graph are organized by their names, which is "
    "hierarchical like filesystem."
)
_SUPPORTED_SELECT = ("params", "float_ops", "bytes", "micros")
_SUPPORTED_ORDER = ("name", "params", "float_ops", "bytes", "micros")


def _number(n: int) -> str:
    """tfprof's ``FormatNumber``: ``999``, ``1.23k``, ``4.56m``, ``7.89b``."""
    if n < 1000:
        return str(n)
    if n < 1000000:
        return f"{n / 1000.0:.2f}k"
    if n < 1000000000:
        return f"{n / 1000000.0:.2f}m"
    return f"{n / 1000000000.0:.2f}b"


class _Node:
    """A node of the scope tree (an op, or a scope that is no op)."""

    def __init__(self, name: str, op: Any = None):
        self.name = name
        self.op = op
        self.children: list[_Node] = []
        self.show_children: list[_Node] = []
        self.account = False
        self.float_ops = 0
        self.parameters = 0
        self.types: set[str] = {_SCOPE_PARENT}
        self.shape: list[int] = []
        self.input_shapes: list[tuple[int, list[int] | None]] = []
        self.line = ""  # the node's line of the report, once shown
        self.members: list[_Node] = []  # op view: the graph nodes of the op type
        self.reset()

    def reset(self) -> None:
        self.total_float_ops = 0
        self.total_parameters = 0
        self.total_definition_count = 0

    def add_self(self) -> None:
        self.total_definition_count += 1
        self.total_float_ops += self.float_ops
        self.total_parameters += self.parameters

    def aggregate(self, child: _Node) -> None:
        self.total_definition_count += child.total_definition_count
        self.total_float_ops += child.total_float_ops
        self.total_parameters += child.total_parameters

    def proto(self) -> Any:
        from jtrain.protos import tensor_shape_pb2, tfprof_output_pb2

        out = tfprof_output_pb2.GraphNodeProto(
            name=self.name,
            parameters=self.parameters,
            float_ops=self.float_ops,
            total_parameters=self.total_parameters,
            total_float_ops=self.total_float_ops,
            total_definition_count=self.total_definition_count,
        )
        for i, dims in self.input_shapes:
            # tfprof: an unknown rank is an empty shape, an unknown dimension -1.
            dim = tensor_shape_pb2.TensorShapeProto.Dim
            out.input_shapes[i].CopyFrom(
                tensor_shape_pb2.TensorShapeProto(dim=[dim(size=d) for d in dims or []])
            )
        for child in self.show_children:
            out.children.append(child.proto())
        return out


def _static_shape(tensor: Any) -> list[int] | None:
    shape = tensor.shape
    if shape.dims is None:
        return None
    return [-1 if d is None else int(d) for d in shape.as_list()]


def _graph_node(op: Any, entry: Any) -> _Node:
    from adapters.v1.framework import tensor_shape

    node = _Node(op.name, op)
    node.types = {op.type}
    if entry is not None:
        node.float_ops = entry.float_ops
        node.types.update(entry.types)
    shape = op._attrs().get("shape") if hasattr(op, "_attrs") else None
    if isinstance(shape, tensor_shape.TensorShape) and shape.dims is not None:
        dims = [-1 if d is None else int(d) for d in shape.as_list()]
        node.shape = dims
        if dims and all(d >= 0 for d in dims):
            count = 1
            for d in dims:
                count *= d
            node.parameters = count
    node.input_shapes = [(i, _static_shape(t)) for i, t in enumerate(op.inputs)]
    return node


def _full_match(regex: str, text: str) -> bool:
    return re.fullmatch(regex, text) is not None


class _ScopeView:
    """tfprof's scope view of one graph and op log."""

    def __init__(self, graph: Any, log: Any):
        entries = {e.name: e for e in log.log_entries}
        nodes: dict[str, _Node] = {}
        for op in graph.get_operations():
            nodes[op.name] = _graph_node(op, entries.get(op.name))  # may replace a scope
            name = op.name
            while "/" in name:
                name = name.rsplit("/", 1)[0]
                nodes.setdefault(name, _Node(name))
        roots = []
        for name in sorted(nodes, key=lambda s: s.encode()):  # std::map order
            node = nodes[name]
            if "/" in name:
                nodes[name.rsplit("/", 1)[0]].children.append(node)
            else:
                roots.append(node)
        self.root = _Node(_ROOT)
        self.root.children = roots

    def show(self, opts: dict[str, Any]) -> tuple[_Node, str]:
        root = self.root
        root.reset()
        roots = self._account(root.children, opts)
        root.show_children = []
        for n in roots:
            root.aggregate(n)
        starts = list(opts.get("start_name_regexes", []))
        if starts != [".*"]:
            roots = self._search_root(roots, starts)
        root.show_children = roots
        shown = self._print([root], opts, 1, 0, set(opts.get("select", [])))[0]
        text = self._format(shown)
        return shown, text

    def _account(self, nodes: list[_Node], opts: dict[str, Any]) -> list[_Node]:
        accounted = []
        regexes = list(opts.get("account_type_regexes", []))
        for node in nodes:
            node.reset()
            children = self._account(node.children, opts)
            if regexes == [".*"]:
                node.account = True
            else:
                node.account = any(_full_match(r, t) for r in regexes for t in node.types)
            if node.account or children:
                node.show_children = []
                node.reset()
                node.add_self()
                for c in children:
                    node.aggregate(c)
                    node.show_children.append(c)
                accounted.append(node)
        return accounted

    def _search_root(self, roots: list[_Node], regexes: list[str]) -> list[_Node]:
        found: list[_Node] = []
        for node in roots:
            if any(_full_match(r, node.name) for r in regexes):
                found.append(node)
                continue
            found.extend(self._search_root(node.show_children, regexes))
        return found

    def _should_show(self, node: _Node, opts: dict[str, Any], depth: int) -> bool:
        if node.name == _ROOT:
            return True
        get = opts.get
        zero_stats = ("min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes")
        zero_times = ("min_micros", "min_accelerator_micros", "min_cpu_micros")
        if (
            any(0 < get(k, 0) for k in zero_stats + zero_times)
            or node.parameters < get("min_params", 0)
            or node.float_ops < get("min_float_ops", 0)
            or 0 < get("min_occurrence", 0)
            or depth > get("max_depth", 10)
        ):
            return False
        shows = list(get("show_name_regexes", []))
        if shows != [".*"] and not any(_full_match(r, node.name) for r in shows):
            return False
        return not any(_full_match(r, node.name) for r in get("hide_name_regexes", []))

    def _print(
        self,
        nodes: list[_Node],
        opts: dict[str, Any],
        depth: int,
        indent: int,
        select: set[str],
    ) -> list[_Node]:
        shown: list[_Node] = []
        for node in nodes:
            ident = indent
            show = self._should_show(node, opts, depth)
            if show:
                ident += 2
            children: list[_Node] = []
            trimmed = any(_full_match(r, node.name) for r in opts.get("trim_name_regexes", []))
            if not trimmed and depth <= opts.get("max_depth", 10):
                children = self._print(node.show_children, opts, depth + 1, ident, select)
            if show:
                node.show_children = []
                if opts.get("account_displayed_op_only", False):
                    node.reset()
                    node.add_self()
                for c in _sort(children, opts.get("order_by", "name")):
                    node.show_children.append(c)
                    if opts.get("account_displayed_op_only", False):
                        node.aggregate(c)
                node.line = " " * indent + _format_node(node, select) + "\n"
                shown.append(node)
            else:
                shown.extend(children)
        return shown

    def _format(self, root: _Node) -> str:
        parts = [root.line]

        def walk(node: _Node) -> None:
            for c in node.show_children:
                parts.append(c.line)
                walk(c)

        walk(root)
        return "".join(parts)


_OP_DOC = (
    "op: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes "
    "belonging to the same type are aggregated together."
)


class _OpView:
    """tfprof's op view: one node per op type, summing its graph nodes; the shown types
    ordered by ``order_by``, each node's totals summing it and the types after it."""

    def __init__(self, graph: Any, log: Any):
        entries = {e.name: e for e in log.log_entries}
        self.groups: dict[str, list[_Node]] = {}
        for op in graph.get_operations():
            self.groups.setdefault(op.type, []).append(_graph_node(op, entries.get(op.name)))
        for members in self.groups.values():
            members.sort(key=lambda n: n.name.encode())

    def show(self, opts: dict[str, Any]) -> tuple[Any, str]:
        from jtrain.protos import tfprof_output_pb2

        regexes = list(opts.get("account_type_regexes", []))
        nodes = []
        for op_type in sorted(self.groups, key=lambda s: s.encode()):
            members = self.groups[op_type]
            if regexes != [".*"]:
                members = [
                    m for m in members if any(_full_match(r, t) for r in regexes for t in m.types)
                ]
                if not members:
                    continue
            node = _Node(op_type)
            node.account = True
            node.members = members
            node.float_ops = sum(m.float_ops for m in members)
            node.parameters = sum(m.parameters for m in members)
            node.reset()
            node.add_self()
            nodes.append(node)
        nodes = _sort(nodes, opts.get("order_by", "name"))
        _chain_totals(nodes)
        shown = []
        for depth, node in enumerate(nodes):
            if depth > opts.get("max_depth", 10):
                break
            if self._should_show(node, opts):
                shown.append(node)
        if opts.get("account_displayed_op_only", False):
            for node in shown:
                node.reset()
                node.add_self()
            _chain_totals(shown)
            chain = shown
        else:
            chain = nodes
        root = tfprof_output_pb2.MultiGraphNodeProto(name=_ROOT)
        if chain:
            root.total_float_ops = chain[0].total_float_ops
            root.total_parameters = chain[0].total_parameters
        select = set(opts.get("select", []))
        lines = [self._line(n, root, select) for n in shown]
        parent = root
        for node in shown:
            child = parent.children.add(
                name=node.name,
                float_ops=node.float_ops,
                parameters=node.parameters,
                total_float_ops=node.total_float_ops,
                total_parameters=node.total_parameters,
            )
            for m in node.members:
                m.reset()
                m.add_self()
                child.graph_nodes.append(m.proto())
            parent = child
        return root, "".join(lines)

    @staticmethod
    def _should_show(node: _Node, opts: dict[str, Any]) -> bool:
        get = opts.get
        stats = ("min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes")
        times = ("min_micros", "min_accelerator_micros", "min_cpu_micros")
        return not (
            any(0 < get(k, 0) for k in stats + times)
            # tfprof compares the totals here: the type and the types after it
            or node.total_parameters < get("min_params", 0)
            or node.total_float_ops < get("min_float_ops", 0)
            or len(node.members) < get("min_occurrence", 0)
        )

    @staticmethod
    def _line(node: _Node, root: Any, select: set[str]) -> str:
        def column(value: int, total: int, root_total: int, unit: str) -> str:
            accu = pct = 0.0
            if total > 0:
                accu, pct = 100.0 * total / root_total, 100.0 * value / root_total
            return f"{f'{_number(value)}{unit} ({accu:.2f}%, {pct:.2f}%)':>30}"

        attrs = []
        if "bytes" in select:
            attrs.append(f"{'0B (0.00%, 0.00%)':>30}")
        if "micros" in select:
            attrs += [f"{'0us (0.00%, 0.00%)':>30}"] * 3
        if "params" in select:
            attrs.append(
                column(node.parameters, node.total_parameters, root.total_parameters, " params")
            )
        if "float_ops" in select:
            attrs.append(
                column(node.float_ops, node.total_float_ops, root.total_float_ops, " float_ops")
            )
        return f"{node.name:<25}{', '.join(attrs)}\n"


def _chain_totals(nodes: list[_Node]) -> None:
    """Each node's totals: itself and the nodes after it (tfprof's op view)."""
    after: _Node | None = None
    for node in reversed(nodes):
        if after is not None:
            node.aggregate(after)
        after = node


def _sort(nodes: list[_Node], order_by: str) -> list[_Node]:
    key = {"params": "total_parameters", "float_ops": "total_float_ops"}.get(order_by)
    if order_by in ("bytes", "micros"):  # all 0 without run metadata: a stable no-op
        return list(nodes)
    if key is None:  # "name" and anything tfprof does not know
        return sorted(nodes, key=lambda n: n.name.encode())
    return sorted(nodes, key=lambda n: -getattr(n, key))


def _format_node(node: _Node, select: set[str]) -> str:
    info = []
    if "params" in select:
        if node.shape:
            info.append("x".join(str(d) for d in node.shape))
        own = _number(node.parameters) if node.account else "--"
        info.append(f"{own}/{_number(node.total_parameters)} params")
    if "float_ops" in select:
        own = _number(node.float_ops) if node.account else "--"
        info.append(f"{own}/{_number(node.total_float_ops)} flops")
    if "bytes" in select:
        info.append(("0B" if node.account else "--") + "/0B")
    if "micros" in select:
        info.extend([("0us" if node.account else "--") + "/0us"] * 3)
    return f"{node.name} ({', '.join(info)})"


def _legend(select: set[str]) -> str:
    legends = []
    if "params" in select:
        legends.append("# parameters")
    if "float_ops" in select:
        legends.append("# float_ops")
    if "bytes" in select:
        legends.append("requested bytes")
    if "micros" in select:
        legends += ["total execution time", "accelerator execution time", "cpu execution time"]
    return f"node name | {' | '.join(legends)}\n"


def _docs(select: set[str], view_doc: str) -> str:
    order = ("float_ops", "bytes", "micros", "params")  # TF's: param comes last
    lines = [view_doc] + [_DOCS[k] for k in order if k in select]
    return "\nDoc:\n" + "\n".join(lines) + "\n\n"


def _output(options: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """TF's ``output`` option: ``(type, {key: value})`` from ``type:k=v,k2=v2``."""
    text = options.get("output", "stdout")
    kind, _, rest = text.partition(":")
    values = {}
    for item in rest.split(",") if rest else []:
        key, _, value = item.partition("=")
        values[key] = value
    return kind, values


def _options_text(options: dict[str, Any], select: set[str]) -> str:
    """TF's ``Options::ToString`` block (the ``-max_depth ...`` lines)."""
    lines = []
    for key, default in _OPTION_LINES:
        lines.append(f"{'-' + key:<28}{options.get(key, default)}")
    for key in (
        "account_type_regexes",
        "start_name_regexes",
        "trim_name_regexes",
        "show_name_regexes",
        "hide_name_regexes",
    ):
        lines.append(f"{'-' + key:<28}{','.join(options.get(key, []))}")
    flag = "true" if options.get("account_displayed_op_only", False) else "false"
    lines.append(f"{'-account_displayed_op_only':<28}{flag}")
    lines.append(f"{'-select':<28}{','.join(sorted(select))}")
    kind, values = _output(options)
    kv = ",".join(f"{k}={v}" for k, v in sorted(values.items()))
    lines.append(f"{'-output':<28}{kind}:{kv}")
    return "\n".join(lines) + "\n"


def _check_options(options: dict[str, Any], cmd: str) -> None:
    if cmd in ("code", "graph"):
        raise NotImplementedError(
            f"tf.profiler.profile(cmd={cmd!r}): jtrain gives tfprof's 'scope' and 'op' views."
        )
    if cmd == "op":
        names = {
            "start_name_regexes": ([".*"], []),
            "show_name_regexes": ([".*"],),
            "hide_name_regexes": ([],),
            "trim_name_regexes": ([],),
        }
        for key, allowed in names.items():
            if list(options.get(key, allowed[0])) not in allowed:
                raise NotImplementedError(
                    f"tf.profiler.profile(cmd='op'): option {key!r} is not supported by jtrain."
                )
    for key in options.get("select", []):
        if key not in _SUPPORTED_SELECT:
            raise NotImplementedError(
                f"tf.profiler.profile: select {key!r} is not supported by jtrain (it gives "
                f"{', '.join(_SUPPORTED_SELECT)})."
            )
    order = options.get("order_by", "name")
    if order not in _SUPPORTED_ORDER and order in (
        "peak_bytes",
        "residual_bytes",
        "output_bytes",
        "accelerator_micros",
        "cpu_micros",
        "occurrence",
    ):
        raise NotImplementedError(f"tf.profiler.profile: order_by {order!r} is not supported.")
    kind, values = _output(options)
    if kind not in ("stdout", "none", "file"):
        raise NotImplementedError(
            f"tf.profiler.profile: output {kind!r} is not supported (stdout, none, file)."
        )
    if kind == "file" and "outfile" not in values:
        raise ValueError("tf.profiler.profile: output 'file' needs outfile=...")


def _needs_float_ops(options: dict[str, Any]) -> bool:
    return (
        "float_ops" in options.get("select", [])
        or options.get("order_by") == "float_ops"
        or options.get("min_float_ops", 0) > 0
    )


_DEFAULT_PROFILE_OPTIONS = 0


def profile(
    graph: Any = None,
    run_meta: Any = None,
    op_log: Any = None,
    cmd: str = "scope",
    options: Any = _DEFAULT_PROFILE_OPTIONS,
) -> Any:
    """Profiles a graph's float operations and parameters (``tf.profiler.profile``).

    Args:
      graph: the ``Graph`` (default ``None``: the default graph).
      run_meta: must be ``None`` (a jtrain step is one XLA program; use ``jax.profiler``).
      op_log: an ``OpLogProto`` whose float operations and types are merged in.
      cmd: ``'scope'`` (default) or ``'op'`` (``'graph'`` and ``'code'`` raise).
      options: a ``ProfileOptionBuilder`` dict (default:
        ``ProfileOptionBuilder.trainable_variables_parameter()``).

    Returns:
      A ``GraphNodeProto`` (scope view): the root ``_TFProfRoot`` with the totals and
      the shown nodes as ``children``; a ``MultiGraphNodeProto`` (op view): the shown
      op types chained through ``children``, each with its ``graph_nodes``. Prints
      TF's report unless ``output`` is ``'none'`` (``'file:outfile=PATH'`` writes it,
      atomically).

    Raises:
      tf.errors.InvalidArgumentError: an unknown ``cmd`` (TF's).
      NotImplementedError: ``run_meta``; ``cmd`` ``'graph'`` or ``'code'``, or ``'op'``
        with name regexes; a ``select``
        other than params/float_ops/bytes/micros; float operations of a graph with
        ops jtrain cannot count as TF (``tfprof_logger``).
    """
    if cmd not in ("scope", "graph", "op", "code"):
        from jtrain import errors

        raise errors.InvalidArgumentError(None, None, f"unknown cmd: {cmd}\n")
    if not graph:
        graph = ops_lib.get_default_graph()
    if isinstance(options, int) and options == _DEFAULT_PROFILE_OPTIONS:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    tfprof_logger._check_run_meta(run_meta)
    _check_options(options, cmd)
    log = tfprof_logger.merge_default_with_oplog(graph, op_log, run_meta, add_trace=False)
    if _needs_float_ops(options):
        log.check_float_ops()
    select = set(options.get("select", []))
    if cmd == "op":
        proto, tree = _OpView(graph, log.proto).show(options)
        body = _docs(select, _OP_DOC) + "Profile:\n" + _legend(select) + tree
    else:
        root, tree = _ScopeView(graph, log.proto).show(options)
        proto = root.proto()
        body = _docs(select, _SCOPE_DOC) + "Profile:\n" + _legend(select) + tree
    kind, values = _output(options)
    if kind == "stdout":
        header = (
            "\n=========================Options=============================\n"
            + _options_text(options, select)
            + "\n==================Model Analysis Report======================\n"
        )
        footer = "\n======================End of Report==========================\n"
        sys.stdout.write(header + body + footer)
        sys.stdout.flush()
    elif kind == "file":
        path = values["outfile"]
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(body)
        os.replace(tmp, path)
    return proto


# The checkers TF's open-source profiler runs (``JobChecker`` is accepted and skipped),
# in the order they print here (TF's order follows a hash map's and varies).
_CHECKERS = ("ExpensiveOperationChecker", "OperationChecker", "AcceleratorUtilizationChecker")


def advise(graph: Any = None, run_meta: Any = None, options: Any = _DEFAULT_PROFILE_OPTIONS) -> Any:
    """``tf.profiler.advise``: TF's advice checkers over the graph.

    Without run metadata, as TF: ``ExpensiveOperationChecker`` and
    ``AcceleratorUtilizationChecker`` report nothing (TF's "Missing RunMetadata"
    lines on stderr), ``OperationChecker`` reports
    "Maybe use faster FusedBatchNorm instead of BatchNorm" when an op's name holds
    ``BatchNorm`` and no op has the type ``FusedBatchNorm``. Each checker's reports are
    printed under its name.

    Args:
      graph: the ``Graph`` (default ``None``: the default graph).
      run_meta: must be ``None`` (a jtrain step has no per-op run metadata).
      options: ``{checker name: {}}`` (default ``ALL_ADVICE``; ``None``: no checker).

    Returns:
      An ``AdviceProto`` with one ``checkers`` entry per checker run.

    Raises:
      NotImplementedError: ``run_meta`` given; profile device time with
        ``jax.profiler`` (or ``tf.train.ProfilerHook``).
    """
    from jtrain.protos import tfprof_output_pb2

    if run_meta:
        raise NotImplementedError(
            "tf.profiler.advise with run_meta: TF's advice checkers read a step's per-op "
            "RunMetadata (times, memory, devices) and a jtrain step is one XLA program "
            "without them; profile it with jax.profiler (or tf.train.ProfilerHook)."
        )
    if not graph:
        graph = ops_lib.get_default_graph()
    if isinstance(options, int) and options == _DEFAULT_PROFILE_OPTIONS:
        options = ALL_ADVICE
    options = options or {}  # TF: None runs no checker
    out = tfprof_output_pb2.AdviceProto()
    printed = []
    for name in _CHECKERS:
        if name not in options:
            continue
        reports = out.checkers[name].reports
        if name == "ExpensiveOperationChecker":
            sys.stderr.write(
                "Missing RunMetadata info. Skip ExpensiveOperationChecker\n"
                "Missing run_meta for ExpensiveOperationChecker\n"
            )
        elif name == "OperationChecker":
            operations = graph.get_operations()
            batch_norm = any("BatchNorm" in op.name for op in operations)
            fused = any(op.type == "FusedBatchNorm" for op in operations)
            if batch_norm and not fused:
                reports.append("Maybe use faster FusedBatchNorm instead of BatchNorm")
        printed.append(f"\n{name}:\n" + "".join(f"{r}\n" for r in reports))
    sys.stdout.write("".join(printed))
    sys.stdout.flush()
    return out


class Profiler:
    """``tf.profiler.Profiler`` over a graph's float operations and parameters.

    Args:
      graph: the ``Graph`` (default ``None``: the default graph).
      op_log: an ``OpLogProto`` merged into the graph's op log.
    """

    def __init__(self, graph: Any = None, op_log: Any = None):
        self._graph = graph or ops_lib.get_default_graph()
        self._op_log = op_log

    def add_step(self, step: int, run_meta: Any) -> None:
        """Adds a step's run metadata.

        Raises:
          NotImplementedError: a jtrain step has no per-op run metadata.
        """
        tfprof_logger._check_run_meta(run_meta or True)

    def profile_name_scope(self, options: dict[str, Any]) -> Any:
        """The scope view (``tf.profiler.profile(cmd='scope')``): a ``GraphNodeProto``."""
        return profile(self._graph, op_log=self._op_log, cmd="scope", options=options)

    def profile_graph(self, options: dict[str, Any]) -> Any:
        """The graph view: ``NotImplementedError`` (jtrain gives the scope view)."""
        return profile(self._graph, op_log=self._op_log, cmd="graph", options=options)

    def profile_operations(self, options: dict[str, Any]) -> Any:
        """The op view (``tf.profiler.profile(cmd='op')``): a ``MultiGraphNodeProto``."""
        return profile(self._graph, op_log=self._op_log, cmd="op", options=options)

    def profile_python(self, options: dict[str, Any]) -> Any:
        """The code view: ``NotImplementedError`` (jtrain ops record no Python traces)."""
        return profile(self._graph, op_log=self._op_log, cmd="code", options=options)

    def advise(self, options: Any) -> Any:
        """The advice of :func:`advise` on this profiler's graph (``options`` as there)."""
        return advise(self._graph, options=options)

    def serialize_to_string(self) -> bytes:
        """``NotImplementedError``: TF's ``ProfileProto`` holds run-time profiles."""
        raise NotImplementedError(
            "tf.profiler.Profiler.serialize_to_string: TF's ProfileProto holds per-op run "
            "profiles, which a jtrain step (one XLA program) does not have."
        )
