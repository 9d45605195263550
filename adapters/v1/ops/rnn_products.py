"""An RNN loop's kernel gradients as one matrix product each, after the loop.

A cell multiplies each step's input (``LSTMCell``: ``concat([x_t, h_{t-1}]) @ kernel``)
by a kernel captured from outside the loop. The gradient of ``lax.scan`` adds each
step's ``a_t^T g_t`` into the kernel's gradient inside the backward loop: per step a
thin product (``K x batch x N``) and a pass over the whole kernel to add it. TF's
gradient of its ``while_loop`` does the same. :func:`scan` multiplies by the kernel with
its gradient stopped, adds a per-step ``z_t`` of negative zeros (``x + -0.0`` is ``x``,
bit for bit, signed zeros included) whose cotangent is the product's cotangent
``g_t``, and keeps ``a_t``: the kernel's gradient is then ``A^T G`` over every step at
once, one product of ``K x (steps * batch) x N``.

The values of the loop are unchanged; the kernel's gradient sums the same products in
another order (within float32 rounding of TF's, whose per-step products are Eigen's and
whose sum is the loop's). ``rnn.py`` defers only products that TF's order does not
cover anyway (``jtrain._eigen.matmul.small``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["scan"]

# step(carry, x, product) -> (carry, y); product(k, a, compute) is site k's value.
Step = Callable[[Any, Any, Callable[..., Any]], tuple[Any, Any]]


def scan(step: Step, init: Any, xs: Any, weights: Sequence[Any], sites: Sequence[int]) -> Any:
    """``lax.scan`` of ``step`` with the products at ``sites`` deferred for the gradient.

    Args:
      step: ``step(carry, x, product) -> (carry, y)``; at the ``k``-th product site it
        calls ``product(k, a, compute)``, where ``compute(b)`` is the site's value for a
        kernel value ``b`` (``a @ b``, as the site computes it), and uses what it returns.
      init: the initial carry.
      xs: the scanned inputs (leading axis: the steps).
      weights: the kernels, captured from outside the loop; each one at least one site's.
      sites: for each product site, the index of its kernel in ``weights``.

    Returns:
      ``lax.scan``'s ``(carry, ys)``; its gradient with respect to ``weights`` sums
      ``a^T g`` over all steps in one product per site.
    """
    sites = tuple(sites)
    steps = jax.tree.leaves(xs)[0].shape[0]
    shapes: dict[int, Any] = {}

    def probe(carry: Any, x: Any) -> Any:
        def product(k: int, a: Any, compute: Callable[[Any], Any]) -> Any:
            out = compute(weights[sites[k]])
            shapes[k] = (out.shape, out.dtype)
            return out

        return step(carry, x, product)

    jax.eval_shape(
        probe, init, jax.tree.map(lambda v: jax.ShapeDtypeStruct(v.shape[1:], v.dtype), xs)
    )
    zs = tuple(jnp.full((steps, *s), -0.0, d) for s, d in (shapes[k] for k in range(len(sites))))

    def run(weights: Any, init: Any, xs: Any, zs: Any) -> Any:
        def body(carry: Any, x_z: Any) -> Any:
            x, z = x_z
            inputs: dict[int, Any] = {}

            def product(k: int, a: Any, compute: Callable[[Any], Any]) -> Any:
                inputs[k] = a
                return compute(lax.stop_gradient(weights[sites[k]])) + z[k]

            carry, y = step(carry, x, product)
            return carry, (y, tuple(inputs[k] for k in range(len(sites))))

        carry, (ys, inputs) = lax.scan(body, init, (xs, zs))
        return (carry, ys), inputs

    converted, consts = jax.closure_convert(run, list(weights), init, xs, zs)
    return _deferred(converted, sites, list(weights), init, xs, zs, consts)


@partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _deferred(fn: Any, sites: tuple, weights: Any, init: Any, xs: Any, zs: Any, consts: Any):
    return fn(weights, init, xs, zs, *consts)[0]


def _deferred_fwd(fn, sites, weights, init, xs, zs, consts):
    loop = lambda init, xs, zs, consts: fn(weights, init, xs, zs, *consts)  # noqa: E731
    out, vjp, inputs = jax.vjp(loop, init, xs, zs, consts, has_aux=True)
    return out, (vjp, inputs, weights)


def _deferred_bwd(fn, sites, residuals, cotangent):
    vjp, inputs, weights = residuals
    d_init, d_xs, d_zs, d_consts = vjp(cotangent)
    d_weights: list[Any] = [None] * len(weights)
    for k, j in enumerate(sites):
        a, g = inputs[k], d_zs[k]
        a = a.reshape(-1, a.shape[-1])
        g = g.reshape(-1, g.shape[-1])
        product = jnp.matmul(a.T, g, precision=lax.Precision.HIGHEST).astype(weights[j].dtype)
        d_weights[j] = product if d_weights[j] is None else d_weights[j] + product
    return d_weights, d_init, d_xs, d_zs, d_consts


_deferred.defvjp(_deferred_fwd, _deferred_bwd)
