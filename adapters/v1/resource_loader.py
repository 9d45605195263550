"""``tf.resource_loader``: paths of data files next to a script.

As TF without Bazel's runfiles: ``get_data_files_path()`` is the directory of
the calling script, ``get_path_to_datafile(path)`` joins ``path`` to it,
``load_resource(path)`` reads a file relative to this package's directory
and ``get_root_dir_with_all_resources()`` is that directory (TF's are relative
to its own ``tensorflow/python/platform``; no TF resource exists here),
``readahead_file_path`` returns its argument.
"""

from __future__ import annotations

import inspect
import os
import sys

from adapters.v1._missing import missing_name_getattr

__all__ = [
    "get_data_files_path",
    "get_path_to_datafile",
    "get_root_dir_with_all_resources",
    "load_resource",
    "readahead_file_path",
]


def _caller_dir(depth: int) -> str:
    return os.path.dirname(inspect.getfile(sys._getframe(depth + 1)))


def get_data_files_path() -> str:
    """The directory of the script (module file) that calls this function."""
    return _caller_dir(1)


def get_path_to_datafile(path: str) -> str:
    """``path`` joined to the directory of the calling script (not checked to exist).

    Args:
      path: a path relative to the caller's directory.

    Returns:
      The joined path.
    """
    return os.path.join(_caller_dir(1), path)


def get_root_dir_with_all_resources() -> str:
    """The directory just under the nearest enclosing Bazel ``*.runfiles`` directory,
    or, outside runfiles, the start directory itself.

    .. note::
       TF starts from the directory of its own ``resource_loader`` module, not the
       caller's (its ``get_data_files_path()`` call sees TF's frame): outside
       runfiles TF 2.21 returns ``.../tensorflow/python/platform``. This function
       starts likewise from its own directory (``adapters/v1``).
    """
    script_dir = _caller_dir(0)
    below, current = "", script_dir
    while True:
        if ".runfiles" in os.path.basename(current):
            return below or script_dir
        parent = os.path.dirname(current)
        if parent == current:
            return script_dir
        below, current = current, parent


def load_resource(path: str) -> bytes:
    """The bytes of the file at ``path``, relative to this package's directory.

    Raises:
      OSError: the file cannot be read (``FileNotFoundError`` when absent, as TF).
    """
    with open(os.path.join(_caller_dir(0), path), "rb") as f:
        return f.read()


def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """``path`` itself (TF implements no readahead either)."""
    del readahead
    return path


__getattr__ = missing_name_getattr("tf.resource_loader", globals())
