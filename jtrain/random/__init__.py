"""TF's random streams in JAX: the Philox generator its random kernels draw from."""

from jtrain.random import philox

__all__ = ["philox"]
