"""Keras' interactive logging switch (``tf.keras.utils.enable_interactive_logging``,
``disable_interactive_logging``, ``is_interactive_logging_enabled``) and the
``print_msg`` that follows it, as TF 2.21's legacy Keras (``tf_keras/utils/io_utils.py``).
"""

from __future__ import annotations

import logging
import sys
import threading

__all__ = [
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
    "print_msg",
]

# Per thread, as Keras' (a thread starts with it enabled).
_INTERACTIVE = threading.local()


def enable_interactive_logging() -> None:
    """Keras' progress messages go to stdout (the default)."""
    _INTERACTIVE.enable = True


def disable_interactive_logging() -> None:
    """Keras' progress messages go to the ``absl`` logger at INFO level (TF's
    ``absl.logging.info``) instead of stdout."""
    _INTERACTIVE.enable = False


def is_interactive_logging_enabled() -> bool:
    """Whether Keras' progress messages go to stdout (True by default, in each
    thread)."""
    return bool(getattr(_INTERACTIVE, "enable", True))


def print_msg(message: str, line_break: bool = True) -> None:
    """``message`` to stdout (flushed; a newline after it with ``line_break``), or to
    the ``absl`` logger at INFO when interactive logging is disabled."""
    if is_interactive_logging_enabled():
        sys.stdout.write(message + "\n" if line_break else message)
        sys.stdout.flush()
    else:
        logging.getLogger("absl").info(message)
