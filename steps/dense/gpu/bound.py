"""A rigorous bound eps on |low-precision score - exact score| for inner products (pure, no torch).

Notation: x a passage, q a query, both float32 vectors of dimension n; s = sum_i x_i q_i the real
(infinitely precise) inner product; A = ||x||_2 ||q||_2; B = ||x||_1 + ||q||_1 <= sqrt(n) (||x|| + ||q||).

Low-precision score l (search.py): x and q rounded to the dtype t (bfloat16: unit roundoff
u = 2^-8; float16: u = 2^-11; float32: the vectors are already float32, u = 0), multiplied and
summed in float32 accumulators in an unknown order (tensor cores, split-K; unit roundoff taken as
u_acc = 2^-23 so that truncation instead of rounding is covered too), the sum rounded to the output
dtype (unit roundoff u_out: the dtype's own for a low-precision output, 0 for float32 output).
Below the normal range rounding is absolute: |fl(v) - v| <= eta (half the dtype's smallest
subnormal). Then, with x^ = fl(x), q^ = fl(q):
  |x^_i - x_i| <= u|x_i| + eta, so |x^_i q^_i - x_i q_i| <= (2u + u^2)|x_i||q_i| + eta(1 + u)(|x_i| + |q_i|) + eta^2;
  the products x^_i q^_i are exact in float32 (8 + 8 or 11 + 11 significant bits <= 24), but for
  underflow below float32's range (<= 2^-149 each);
  summing n terms in any order: |computed - exact sum| <= gamma_n(u_acc) S, gamma_n(v) = n v / (1 - n v),
  S = sum_i |x^_i q^_i| <= (1 + u)^2 A + eta(1 + u) B + n eta^2 (Cauchy-Schwarz: sum |x_i||q_i| <= A);
  rounding the result: <= u_out (1 + gamma_n(u_acc)) S + eta_out.
So  e_low = (2u + u^2) A + eta(1 + u) B + n eta^2 + n 2^-149 + gamma_n(u_acc) S + u_out (1 + gamma_n(u_acc)) S + eta_out.

The exact path (steps/dense/brute-force.ts dotF32: products exact in float64, four float64 lanes
summed, rounded once to float32) is off s by at most
  e_f32 = gamma_n(2^-53) A + 2^-24 (1 + gamma_n(2^-53)) A + 2^-150,
and this program's float64 rescoring c (any order) by at most e_64 = gamma_n(2^-53) A <= e_f32.

eps = e_low + e_f32 bounds |l - dotF32| for every pair. For a query, let l_D be the D-th largest
low-precision score (every passage outside the candidates has l <= l_D) and c_k the k-th largest
float64 rescored score among the candidates. A passage p outside has dotF32(p) <= l_D + eps, and at
least k candidates have dotF32 >= c_k - e_64 - e_f32 >= c_k - eps (e_64 + e_f32 <= e_low since
2u A >= 2^-10 A for u >= 2^-11, and gamma_n(2^-23) A >= 2^-23 A for float32; asserted in eps_terms),
so if  l_D + 2 eps < c_k  then dotF32(p) < the k-th exact score: p is outside the exact top k
whatever the tie-break (ids included). The TypeScript side re-checks l_D + eps < f_k with the
dotF32 scores it writes (steps/dense/torch-search.ts).

A is taken with the shard's largest row norm (any passage outside the candidates may be the one);
the bound is evaluated in float64 and inflated by 2^-20 relative to cover its own rounding.
"""
import math

# dtype name -> (u, eta): unit roundoff and half the smallest positive subnormal.
DTYPES = {
    "bfloat16": (2.0 ** -8, 2.0 ** -134),
    "float16": (2.0 ** -11, 2.0 ** -25),
    "float32": (0.0, 0.0),
}
U_ACC = 2.0 ** -23
U64 = 2.0 ** -53


def gamma(n, v):
    if n * v >= 1:
        raise ValueError(f"dimension {n} too large for unit roundoff {v}")
    return n * v / (1 - n * v)


def eps_terms(n, dtype, low_output):
    """(a, b, c): eps = a * A + b * B + c for this dimension and dtype (low_output: the matmul's
    output is in `dtype`, else float32)."""
    u, eta = DTYPES[dtype]
    # a float32 output is the float32 accumulator itself: no rounding beyond the sum's
    u_out, eta_out = (u, eta) if low_output and dtype != "float32" else (0.0, 0.0)
    g = gamma(n, U_ACC)
    # S = (1 + u)^2 A + eta (1 + u) B + n eta^2, times (g + u_out (1 + g))
    s_factor = g + u_out * (1 + g)
    g64 = gamma(n, U64)
    a = (2 * u + u * u) + s_factor * (1 + u) ** 2 + g64 + 2.0 ** -24 * (1 + g64)
    b = eta * (1 + u) * (1 + s_factor)
    c = n * eta * eta * (1 + s_factor) + n * 2.0 ** -149 + eta_out + 2.0 ** -150
    assert 2 * g64 + 2.0 ** -24 * (1 + g64) <= (2 * u + u * u) + s_factor, "e_64 + e_f32 <= e_low (the 2 eps rule)"
    inflate = 1 + 2.0 ** -20
    return a * inflate, b * inflate, c * inflate


def query_eps(n, dtype, low_output, max_row_norm, max_row_l1, q_norms, q_l1s):
    """eps for each query (a list of floats), from the shard's largest row norms (L2 and L1)."""
    a, b, c = eps_terms(n, dtype, low_output)
    return [a * max_row_norm * qn + b * (max_row_l1 + ql) + c for qn, ql in zip(q_norms, q_l1s)]


def proven(l_d, c_k, eps):
    """The depth rule: no passage outside the candidates can enter the exact top k."""
    return l_d + 2 * eps < c_k if math.isfinite(l_d) else True
