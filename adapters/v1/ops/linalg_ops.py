"""TF's linear-algebra ops (``tf.linalg``; TF1's top-level ``matrix_inverse``, ``svd``...).

Table entries (``framework/op_def.py``) with TF's names, signatures and output
orders (``svd`` gives ``s, u, v``; ``self_adjoint_eig`` gives ``e, v``). Gradients are
JAX's derivatives of the decompositions, which are TF's on well-conditioned inputs
(the reference data checks them); ``cholesky`` reads a symmetric input as TF does.
Also here: ``norm``, ``tensordot``, ``cross``, ``trace``, ``einsum`` (TF's
``linalg_ops``, ``math_ops`` and ``special_math_ops`` names).
"""

from __future__ import annotations

import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy.linalg import solve_triangular

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FLOATING, NUMERIC, OpDef, OpValueError, define, lift
from adapters.v1.ops.math_ops import _sqrt
from jtrain._numerics import eigen_sum, rounded_product

_FLOAT_OR_COMPLEX = FLOATING + ("complex64", "complex128")


def _adjoint(x: Any) -> Any:
    return jnp.conj(jnp.swapaxes(x, -1, -2))


# -- norm -----------------------------------------------------------------------------
_AXIS_ERROR = "'axis' must be None, an integer, or a tuple of 2 unique integers, got {}"


def _norm(tensor, ord="euclidean", axis=None, keepdims=None, keep_dims=None):
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        axis = tuple(axis)
        if not all(isinstance(a, int) for a in axis) or axis[0] == axis[1]:
            raise OpValueError(_AXIS_ERROR.format(axis))
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise OpValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise OpValueError(_AXIS_ERROR.format(axis))
        supported = ["euclidean", 1, 2, np.inf]
        if (not np.isreal(ord) or ord <= 0) and ord not in supported:
            raise OpValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    if ord in ("fro", "euclidean", 2, 2.0):
        if matrix and ord in (2, 2.0):
            rank = tensor.ndim
            a0, a1 = axis[0] % rank, axis[1] % rank
            rest = [i for i in range(rank) if i not in (a0, a1)]
            moved = jnp.transpose(tensor, rest + [a0, a1])
            result = jnp.max(jnp.linalg.svd(moved, compute_uv=False), axis=-1)
            if keepdims:
                for a in sorted((a0, a1)):
                    result = jnp.expand_dims(result, a)
            return result
        # TF: sqrt(reduce_sum(tensor * conj(tensor), axis, keepdims=True)), its kernels
        squares = rounded_product(tensor, jnp.conj(tensor))
        result = _sqrt(eigen_sum(squares, axis, keepdims=True))
    else:
        result = jnp.abs(tensor)
        if ord == 1:
            result = jnp.sum(result, None if axis is None else axis[0], keepdims=True)
            if matrix:
                result = jnp.max(result, axis[-1], keepdims=True)
        elif ord == np.inf:
            if matrix:
                result = jnp.sum(result, axis[1], keepdims=True)
            result = jnp.max(result, None if axis is None else axis[0], keepdims=True)
        else:
            p = jnp.asarray(ord, result.dtype)
            total = jnp.sum(result**p, axis, keepdims=True)
            result = total ** jnp.asarray(1.0 / ord, result.dtype)
    if not keepdims:
        result = jnp.squeeze(result, axis)
    return result


define(
    ("norm", "linalg.norm"),
    "Norm",
    _norm,
    params="tensor, ord='euclidean', axis=None, keepdims=None, name=None, keep_dims=None",
    tensors="tensor",
    allowed=NUMERIC,
    default_name="norm",
)


# -- products -------------------------------------------------------------------------
def _tensordot(a, b, axes):
    if isinstance(axes, int) and axes < 0:
        raise OpValueError(f"'axes' must be at least 0 (got {axes}).")
    if isinstance(axes, (list, tuple)) and len(axes) == 2:
        first, second = axes
        axes = (
            [first] if isinstance(first, int) else list(first),
            [second] if isinstance(second, int) else list(second),
        )
    return jnp.tensordot(a, b, axes)


define(
    ("tensordot", "linalg.tensordot"),
    "Tensordot",
    _tensordot,
    params="a, b, axes, name=None",
    tensors="a b",
    allowed=NUMERIC,
    default_name="Tensordot",
)
define(
    ("cross", "linalg.cross"),
    "Cross",
    lambda a, b: jnp.cross(a, b),
    params="a, b, name=None",
    tensors="a b",
    default_name="Cross",
)
define(
    ("trace", "linalg.trace"),
    "Trace",
    lambda x: jnp.trace(x, axis1=-2, axis2=-1),
    params="x, name=None",
    tensors="x",
    default_name="Trace",
)


def _einsum(equation, inputs, optimize="greedy"):
    return jnp.einsum(equation, *inputs, optimize=optimize)


_einsum_op = lift(
    OpDef(
        names=("einsum",),
        op_type="Einsum",
        impl=_einsum,
        signature=inspect.signature(lambda equation, inputs, optimize="greedy", name=None: None),
        tensors=("inputs",),
        lists=("inputs",),
        same_dtype=("inputs",),
        default_name="einsum",
    )
)


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> ops.Tensor:
    """``tf.einsum``: a tensor contraction in Einstein notation (``"ij,jk->ik"``).

    Args:
      equation: the contraction, as NumPy's ``einsum`` takes it.
      *inputs: the operands (one dtype).
      **kwargs: ``name`` (the op name, default ``"einsum"``) and ``optimize`` (the
        contraction order strategy, default ``"greedy"``).

    Returns:
      The contraction, of the operands' dtype.

    Raises:
      TypeError: another keyword argument, or operands of different dtypes.
    """
    name = kwargs.pop("name", None)
    optimize = kwargs.pop("optimize", "greedy")
    if kwargs:
        raise TypeError(  # TF 2.21's words
            f"Invalid keyword arguments for einsum: {', '.join(kwargs)}. "
            "Valid arguments: name, optimize, greedy."
        )
    return _einsum_op(equation, list(inputs), optimize, name)


# -- decompositions and solvers ---------------------------------------------------------
def _square(op: str, x: Any) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise OpValueError(f"Input matrix must be square; got {op} input of shape {x.shape}")


def _inverse(input, adjoint=False):
    _square("MatrixInverse", input)
    return jnp.linalg.inv(_adjoint(input) if adjoint else input)


def _solve(matrix, rhs, adjoint=False):
    _square("MatrixSolve", matrix)
    return jnp.linalg.solve(_adjoint(matrix) if adjoint else matrix, rhs)


def _triangular_solve(matrix, rhs, lower=True, adjoint=False):
    _square("MatrixTriangularSolve", matrix)
    batch = jnp.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    matrix = jnp.broadcast_to(matrix, batch + matrix.shape[-2:])
    rhs = jnp.broadcast_to(rhs, batch + rhs.shape[-2:])
    return solve_triangular(matrix, rhs, trans="C" if adjoint else 0, lower=lower)


def _cholesky_solve(chol, rhs):
    y = solve_triangular(chol, rhs, lower=True)
    return solve_triangular(chol, y, trans="C", lower=True)


def _slogdet(input):
    sign, logdet = jnp.linalg.slogdet(input)
    return sign, logdet


def _logdet(matrix):
    chol = jnp.linalg.cholesky(matrix)
    return 2.0 * jnp.sum(jnp.log(jnp.real(jnp.diagonal(chol, axis1=-2, axis2=-1))), axis=-1)


def _qr(input, full_matrices=False):
    q, r = jnp.linalg.qr(input, mode="complete" if full_matrices else "reduced")
    return q, r


def _svd(tensor, full_matrices=False, compute_uv=True):
    if not compute_uv:
        return jnp.linalg.svd(tensor, full_matrices=full_matrices, compute_uv=False)
    u, s, vh = jnp.linalg.svd(tensor, full_matrices=full_matrices)
    return s, u, _adjoint(vh)


def _lower_symmetric(x: Any) -> Any:
    """The symmetric (Hermitian) matrix of ``x``'s lower triangle, which is what TF's
    kernels read (so the gradient is lower-triangular, as TF's)."""
    return jnp.tril(x) + _adjoint(jnp.tril(x, -1))


def _eig(tensor):
    e, v = jnp.linalg.eigh(_lower_symmetric(tensor), symmetrize_input=False)
    return e, v


def _eigvals(tensor):
    return jnp.linalg.eigvalsh(_lower_symmetric(tensor), symmetrize_input=False)


def _solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True):
    reg = jnp.asarray(l2_regularizer, matrix.dtype)
    m, n = matrix.shape[-2:]
    if not fast:
        if l2_regularizer != 0.0:
            raise NotImplementedError(
                "tf.linalg.lstsq: fast=False with l2_regularizer != 0 is not supported"
            )
        return jnp.linalg.lstsq(matrix, rhs)[0]
    adj = _adjoint(matrix)
    if m >= n:
        gram = adj @ matrix + reg * jnp.eye(n, dtype=matrix.dtype)
        chol = jnp.linalg.cholesky(gram)
        return _cholesky_solve(chol, adj @ rhs)
    gram = matrix @ adj + reg * jnp.eye(m, dtype=matrix.dtype)
    chol = jnp.linalg.cholesky(gram)
    return adj @ _cholesky_solve(chol, rhs)


_LINALG = [
    # names, op type, implementation, TF's parameters, tensor parameters
    (
        ("matrix_inverse", "linalg.inv"),
        "MatrixInverse",
        _inverse,
        "input, adjoint=False, name=None",
        "input",
    ),
    (
        ("matrix_determinant", "linalg.det"),
        "MatrixDeterminant",
        lambda input: jnp.linalg.det(input),
        "input, name=None",
        "input",
    ),
    ("linalg.slogdet", "LogMatrixDeterminant", _slogdet, "input, name=None", "input"),
    ("linalg.logdet", "Logdet", _logdet, "matrix, name=None", "matrix"),
    (
        ("matrix_solve", "linalg.solve"),
        "MatrixSolve",
        _solve,
        "matrix, rhs, adjoint=False, name=None",
        "matrix rhs",
    ),
    (
        ("cholesky", "linalg.cholesky"),
        "Cholesky",
        lambda input: jnp.linalg.cholesky(input),
        "input, name=None",
        "input",
    ),
    (
        ("matrix_triangular_solve", "linalg.triangular_solve"),
        "MatrixTriangularSolve",
        _triangular_solve,
        "matrix, rhs, lower=True, adjoint=False, name=None",
        "matrix rhs",
    ),
    (
        ("cholesky_solve", "linalg.cholesky_solve"),
        "CholeskySolve",
        _cholesky_solve,
        "chol, rhs, name=None",
        "chol rhs",
    ),
    (("qr", "linalg.qr"), "Qr", _qr, "input, full_matrices=False, name=None", "input"),
    (
        ("svd", "linalg.svd"),
        "Svd",
        _svd,
        "tensor, full_matrices=False, compute_uv=True, name=None",
        "tensor",
    ),
    (("self_adjoint_eig", "linalg.eigh"), "SelfAdjointEigV2", _eig, "tensor, name=None", "tensor"),
    (
        ("self_adjoint_eigvals", "linalg.eigvalsh"),
        "SelfAdjointEigV2",
        _eigvals,
        "tensor, name=None",
        "tensor",
    ),
    ("linalg.adjoint", "Transpose", _adjoint, "matrix, name=None", "matrix"),
    (
        ("matrix_solve_ls", "linalg.lstsq"),
        "MatrixSolveLs",
        _solve_ls,
        "matrix, rhs, l2_regularizer=0.0, fast=True, name=None",
        "matrix rhs",
    ),
]

for _names, _type, _impl, _params, _tensors in _LINALG:
    define(
        _names,
        _type,
        _impl,
        params=_params,
        tensors=_tensors,
        allowed=_FLOAT_OR_COMPLEX,
        default_name=_type,
    )


# -- more of tf.linalg: matvec, normalize, pinv, matrix_rank, expm, LU ---------------------------
def _matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False):
    if transpose_a and adjoint_a:
        raise OpValueError("Only one of transpose_a and adjoint_a can be True.")
    if adjoint_a:
        a = _adjoint(a)
    elif transpose_a:
        a = jnp.swapaxes(a, -1, -2)
    return jnp.matmul(a, b[..., None])[..., 0]


def _normalize(tensor, ord="euclidean", axis=None):
    norm = _norm(tensor, ord, axis, keepdims=True)
    return tensor / norm, norm


def _pinv(a, rcond=None, validate_args=False):
    m, n = a.shape[-2:]
    if rcond is None:
        rcond = 10.0 * max(m, n) * np.finfo(np.dtype(a.dtype)).eps
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    cutoff = jnp.asarray(rcond, a.dtype) * jnp.max(s, axis=-1, keepdims=True)
    s = jnp.where(s > cutoff, s, jnp.asarray(np.inf, a.dtype))
    return jnp.matmul(_adjoint(vh) / s[..., None, :], _adjoint(u))


def _matrix_rank(a, tol=None, validate_args=False):
    s = jnp.linalg.svd(a, compute_uv=False)
    if tol is None:
        eps = np.finfo(np.dtype(a.dtype)).eps
        tol = jnp.max(s, axis=-1, keepdims=True) * jnp.asarray(max(a.shape[-2:]) * eps, a.dtype)
    else:
        tol = jnp.asarray(tol, a.dtype)
    return jnp.sum((s > tol).astype(np.int32), axis=-1, dtype=np.int32)


def _lu(input, output_idx_type="int32"):
    _square("Lu", input)
    lu, _, permutation = lax.linalg.lu(input)
    return lu, permutation.astype(np.dtype(output_idx_type))


def _lu_factors(lower_upper: Any) -> tuple[Any, Any]:
    n = lower_upper.shape[-1]
    lower = jnp.tril(lower_upper, -1) + jnp.eye(n, dtype=lower_upper.dtype)
    return lower, jnp.triu(lower_upper)


def _lu_solve(lower_upper, perm, rhs, validate_args=False):
    permuted = jnp.take_along_axis(rhs, jnp.broadcast_to(perm[..., None], rhs.shape), axis=-2)
    y = solve_triangular(lower_upper, permuted, lower=True, unit_diagonal=True)
    return solve_triangular(lower_upper, y, lower=False)


def _lu_reconstruct(lower_upper, perm, validate_args=False):
    lower, upper = _lu_factors(lower_upper)
    product = jnp.matmul(lower, upper)
    inverse = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(product, jnp.broadcast_to(inverse[..., None], product.shape), -2)


def _lu_matrix_inverse(lower_upper, perm, validate_args=False):
    n = lower_upper.shape[-1]
    eye = jnp.broadcast_to(jnp.eye(n, dtype=lower_upper.dtype), lower_upper.shape)
    return _lu_solve(lower_upper, perm, eye)


_MORE_LINALG = [
    # names, op type, implementation, TF's parameters, tensor parameters, same dtype
    (
        "linalg.matvec",
        "MatMul",
        _matvec,
        "a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None",
        "a b",
        "a b",
    ),
    (
        "linalg.normalize",
        "Normalize",
        _normalize,
        "tensor, ord='euclidean', axis=None, name=None",
        "tensor",
        "tensor",
    ),
    ("linalg.pinv", "Pinv", _pinv, "a, rcond=None, validate_args=False, name=None", "a", "a"),
    (
        "linalg.matrix_rank",
        "MatrixRank",
        _matrix_rank,
        "a, tol=None, validate_args=False, name=None",
        "a",
        "a",
    ),
    (
        "linalg.expm",
        "MatrixExponential",
        lambda input: jax.scipy.linalg.expm(input),
        "input, name=None",
        "input",
        "input",
    ),
    ("linalg.lu", "Lu", _lu, "input, output_idx_type='int32', name=None", "input", "input"),
    (
        "linalg.lu_solve",
        "LuSolve",
        _lu_solve,
        "lower_upper, perm, rhs, validate_args=False, name=None",
        "lower_upper perm rhs",
        "lower_upper rhs",
    ),
    (
        "linalg.lu_reconstruct",
        "LuReconstruct",
        _lu_reconstruct,
        "lower_upper, perm, validate_args=False, name=None",
        "lower_upper perm",
        "lower_upper",
    ),
    (
        "linalg.lu_matrix_inverse",
        "LuMatrixInverse",
        _lu_matrix_inverse,
        "lower_upper, perm, validate_args=False, name=None",
        "lower_upper perm",
        "lower_upper",
    ),
]

for _names, _type, _impl, _params, _tensors, _same in _MORE_LINALG:
    define(
        _names,
        _type,
        _impl,
        params=_params,
        tensors=_tensors,
        same_dtype=_same,
        allowed={_same.split()[0]: _FLOAT_OR_COMPLEX},
        default_name=_type,
    )
