"""tf.gfile, tf.app/tf.flags and tf.logging against TF 2.21's tf.compat.v1.

The same directory tree and the same calls through TF's gfile and ours: same
results (Walk order, Glob, ListDirectory, Stat fields) and the same error
classes and messages. The same flag-parsing script under TF and under
adapters.v1 (only the import changed): same output and exit status. Public
signatures equal TF's (``inspect``).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import pytest
import tensorflow as real_tf

from adapters import v1 as jtf

tf1 = real_tf.compat.v1


def _tree(root):
    os.makedirs(f"{root}/a/b/c")
    os.makedirs(f"{root}/d")
    # a/.hidden: TF's Glob matches dotfiles (Python's glob skips them by default)
    files = [
        ("a/f.txt", b"hello\nworld"),
        ("a/b/g.bin", b"\x00" * 70),
        ("h", b""),
        ("a/.hidden", b"x"),
    ]
    for path, data in files:
        with open(f"{root}/{path}", "wb") as f:
            f.write(data)


def _outcome(gfile, call, root):
    try:
        result = call(gfile, root)
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e).replace(root, "<root>")
    if hasattr(result, "mtime_nsec"):
        return ("stat", result.length, result.mtime_nsec, result.is_directory)
    if isinstance(result, list) and result and isinstance(result[0], tuple):
        return [(d.replace(root, "<root>"), sorted(s), sorted(f)) for d, s, f in result]
    if isinstance(result, list):
        return [p.replace(root, "<root>") for p in result]
    return result


# Calls that leave the tree as it was (each runs on TF's gfile and on ours).
_QUERIES = {
    "walk": lambda g, r: list(g.Walk(r)),
    "walk_post": lambda g, r: list(g.Walk(r, in_order=False)),
    "walk_missing": lambda g, r: list(g.Walk(r + "/nope")),
    "io_walk_bottom_up": lambda g, r: list(g.walk(r, topdown=False)),
    # TF's Glob lists in the file system's order (b before .hidden here); jtrain sorts.
    "glob": lambda g, r: sorted(g.Glob(r + "/a/*")),
    "glob_deep": lambda g, r: sorted(g.Glob(r + "/*/*")),
    "glob_class": lambda g, r: g.Glob(r + "/a/[bf]*"),
    "glob_none": lambda g, r: g.Glob(r + "/nope/*"),
    "listdir": lambda g, r: sorted(g.ListDirectory(r + "/a")),
    "listdir_file": lambda g, r: g.ListDirectory(r + "/a/f.txt"),
    "listdir_missing": lambda g, r: g.ListDirectory(r + "/nope"),
    "stat_file": lambda g, r: g.Stat(r + "/a/b/g.bin"),
    "stat_dir": lambda g, r: g.Stat(r + "/a"),
    "stat_missing": lambda g, r: g.Stat(r + "/nope"),
    "exists": lambda g, r: (g.Exists(r + "/a"), g.Exists(r + "/h"), g.Exists(r + "/n")),
    "isdir": lambda g, r: (g.IsDirectory(r + "/a"), g.IsDirectory(r + "/h")),
    "read_text": lambda g, r: g.GFile(r + "/a/f.txt").readlines(),
    "read_bytes": lambda g, r: g.GFile(r + "/a/f.txt", "rb").read(3),
    "read_missing": lambda g, r: g.GFile(r + "/nope").read(),
    "size": lambda g, r: g.GFile(r + "/a/b/g.bin").size(),
    "bad_mode": lambda g, r: g.GFile(r + "/a/f.txt", "x").read(),
    "remove_missing": lambda g, r: g.Remove(r + "/nope"),
    "remove_dir": lambda g, r: g.Remove(r + "/d"),
    "rmtree_missing": lambda g, r: g.DeleteRecursively(r + "/nope"),
    "mkdir_no_parent": lambda g, r: g.MkDir(r + "/x/y"),
    "mkdir_existing": lambda g, r: g.MkDir(r + "/a"),
    "makedirs_through_file": lambda g, r: g.MakeDirs(r + "/h/z"),
    "copy_existing": lambda g, r: g.Copy(r + "/a/f.txt", r + "/h"),
    "copy_missing": lambda g, r: g.Copy(r + "/nope", r + "/z"),
    "copy_onto_dir": lambda g, r: g.Copy(r + "/a/f.txt", r + "/d", True),
    "rename_existing": lambda g, r: g.Rename(r + "/a/f.txt", r + "/h"),
    "rename_missing": lambda g, r: g.Rename(r + "/nope", r + "/z"),
}


@pytest.mark.parametrize("name", sorted(_QUERIES))
def test_gfile_matches_tf(tmp_path, name):
    root = str(tmp_path / "tree")
    _tree(root)
    tf_module, ours_module = (tf1.io, jtf.io) if name.startswith("io_") else (tf1, jtf)
    theirs = _outcome(tf_module.gfile, _QUERIES[name], root)
    ours = _outcome(ours_module.gfile, _QUERIES[name], root)
    assert ours == theirs


def _changes(g, root):
    g.MakeDirs(root + "/n/m")
    g.Copy(root + "/a/f.txt", root + "/n/m/f2.txt")
    g.Copy(root + "/a/b/g.bin", root + "/n/m/f2.txt", overwrite=True)
    g.Rename(root + "/n/m/f2.txt", root + "/n/g3.bin")
    g.Rename(root + "/a/f.txt", root + "/h", overwrite=True)
    g.Remove(root + "/a/b/g.bin")
    g.DeleteRecursively(root + "/a/b")
    with g.GFile(root + "/n/w.txt", "w") as f:
        f.write("x")
    with g.GFile(root + "/n/w.txt", "a") as f:
        f.write("y")
    return [(d, sorted(s), sorted(f)) for d, s, f in g.Walk(root)]


def test_gfile_changes_match_tf(tmp_path):
    trees = []
    for g, name in [(tf1.gfile, "theirs"), (jtf.gfile, "ours")]:
        root = str(tmp_path / name)
        _tree(root)
        walk = _changes(g, root)
        contents = {
            os.path.relpath(os.path.join(d, f), root): open(os.path.join(d, f), "rb").read()
            for d, _, fs in walk
            for f in fs
        }
        trees.append(([(os.path.relpath(d, root), s, f) for d, s, f in walk], contents))
    assert trees[1] == trees[0]


_SCRIPT = """
import sys
IMPORT

flags = tf.app.flags
flags.DEFINE_string("data_dir", "/tmp/data", "where the data is")
flags.DEFINE_integer("max_steps", 1000, "steps")
flags.DEFINE_float("learning_rate", 0.1, "lr")
flags.DEFINE_boolean("log_device_placement", False, "placement")
flags.DEFINE_multi_string("tag", [], "tags")
FLAGS = flags.FLAGS


def main(argv):
    tf.logging.set_verbosity(tf.logging.INFO)
    print(FLAGS.data_dir, FLAGS.max_steps, FLAGS.learning_rate, FLAGS.log_device_placement,
          FLAGS.tag, argv[1:], tf.logging.get_verbosity())
    tf.logging.info("training %s", FLAGS.data_dir)
    return int(FLAGS.max_steps) % 7


if __name__ == "__main__":
    tf.app.run(main=main, argv=ARGV)
"""


@pytest.mark.parametrize(
    "argv",
    [
        None,
        ["prog", "--data_dir=/x", "--max_steps", "12", "--nolog_device_placement", "rest"],
        ["prog", "--tag=a", "--tag=b", "--learning_rate=0.5", "--undefined=3"],
    ],
)
def test_app_run_matches_tf(tmp_path, argv):
    outputs = []
    for name, imp in [
        ("tf", "import tensorflow.compat.v1 as tf"),
        ("ours", "from adapters import v1 as tf"),
    ]:
        script = tmp_path / f"{name}.py"
        script.write_text(
            textwrap.dedent(_SCRIPT).replace("IMPORT", imp).replace("ARGV", repr(argv))
        )
        env = dict(
            os.environ, PYTHONPATH=os.getcwd(), JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3"
        )
        done = subprocess.run(
            [sys.executable, str(script), "--max_steps=9", "extra"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        log = [line for line in done.stderr.splitlines() if line.startswith("INFO:tensorflow")]
        outputs.append((done.returncode, done.stdout, log))
    assert outputs[1] == outputs[0]


_SIGNATURES = [
    (
        tf1.gfile,
        jtf.gfile,
        [
            "Copy",
            "DeleteRecursively",
            "Exists",
            "GFile",
            "FastGFile",
            "Open",
            "Glob",
            "IsDirectory",
            "ListDirectory",
            "MakeDirs",
            "MkDir",
            "Remove",
            "Rename",
            "Stat",
            "Walk",
        ],
    ),
    (
        tf1.io.gfile,
        jtf.io.gfile,
        [
            "GFile",
            "copy",
            "exists",
            "glob",
            "isdir",
            "join",
            "listdir",
            "makedirs",
            "mkdir",
            "remove",
            "rename",
            "rmtree",
            "stat",
            "walk",
        ],
    ),
    (
        tf1.logging,
        jtf.logging,
        [
            "debug",
            "error",
            "fatal",
            "flush",
            "get_verbosity",
            "info",
            "log",
            "log_every_n",
            "log_first_n",
            "log_if",
            "set_verbosity",
            "vlog",
            "warn",
            "warning",
            "TaskLevelStatusMessage",
        ],
    ),
    (tf1.app, jtf.app, ["run"]),
    (
        tf1,
        jtf,
        [
            "FixedLengthRecordReader",
            "TextLineReader",
            "WholeFileReader",
            "IdentityReader",
            "TFRecordReader",
            "PriorityQueue",
            "read_file",
        ],
    ),
    (tf1.io, jtf.io, ["read_file", "PriorityQueue"]),
    (tf1.python_io, jtf.python_io, ["tf_record_iterator"]),
]


def _params(fn):
    target = fn.__init__ if inspect.isclass(fn) else fn
    return [(p.name, p.default, p.kind) for p in inspect.signature(target).parameters.values()]


@pytest.mark.parametrize(
    "theirs, ours, name",
    [(t, o, n) for t, o, names in _SIGNATURES for n in names],
    ids=[f"{t.__name__.split('.')[-1]}.{n}" for t, _, names in _SIGNATURES for n in names],
)
def test_signature_matches_tf(theirs, ours, name):
    assert _params(getattr(ours, name)) == _params(getattr(theirs, name))
