// Tests of the bundle's own float GEMM (backend_cpu/kernels/tc_kernels_sgemm.h) and of
// gemm_packed (tc_kernels_linalg.h) against a double-precision reference: every row tail of
// the 12-row kernel, every column tail of the 32-column panels, inner dims across the 256-deep
// blocks, transposed operands, beta, NaN in an unread C, column ranges of a pre-packed B, and
// each ISA path this CPU has (AVX-512, and the portable loop over the packed layout always).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <tuple>
#include <utility>

#include "kernels_test_util.h"

using kernels_test::transposed;

namespace {

struct Problem {
  int64_t m, n, k;
  std::vector<float> a, b; // op(A) [m, k], op(B) [k, n], row-major
};

Problem problem(int64_t m, int64_t n, int64_t k, uint32_t seed) {
  Problem p{m, n, k, std::vector<float>(static_cast<size_t>(m * k)),
            std::vector<float>(static_cast<size_t>(k * n))};
  uint32_t state = seed * 2654435761u + 1u;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int32_t>(state >> 8) % 2001 - 1000) / 500.0f;
  };
  for (float &x : p.a)
    x = next();
  for (float &x : p.b)
    x = next();
  return p;
}

/// Checks c against alpha * A @ B + beta * c0 in double, within float accumulation error
/// (k roundings of partial sums bounded by the sum of |a| |b|).
void expectProduct(const Problem &p, const std::vector<float> &c, float alpha, float beta,
                   const std::vector<float> &c0, const char *what) {
  const double eps = std::numeric_limits<float>::epsilon();
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (int64_t q = 0; q < p.k; ++q) {
        const double term = double(p.a[static_cast<size_t>(i * p.k + q)]) *
                            double(p.b[static_cast<size_t>(q * p.n + j)]);
        sum += term;
        magnitude += std::fabs(term);
      }
      const size_t at = static_cast<size_t>(i * p.n + j);
      double want = alpha * sum + (beta != 0.0f ? beta * double(c0[at]) : 0.0);
      double bound = 2.0 * (double(p.k) + 4.0) * eps *
                     (std::fabs(alpha) * magnitude +
                      (beta != 0.0f ? std::fabs(beta) * std::fabs(double(c0[at])) : 0.0));
      if (!(std::fabs(double(c[at]) - want) <= bound + 1e-30)) {
        FAIL(std::string(what) << ": m " << p.m << " n " << p.n << " k " << p.k << " at (" << i << ", " << j
                  << "): " << c[at] << " vs " << want << " (bound " << bound << ")");
        return;
      }
    }
}

std::vector<float> initialC(int64_t m, int64_t n, float beta) {
  std::vector<float> c(static_cast<size_t>(m * n));
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = beta == 0.0f ? std::numeric_limits<float>::quiet_NaN()
                        : static_cast<float>(int(i % 7) - 3);
  return c;
}

const int64_t kRows[] = {1, 3, 4, 11, 12, 13, 25, 40};
const int64_t kCols[] = {1, 16, 17, 32, 33, 100, 290};
const int64_t kInner[] = {1, 7, 256, 300, 600};

} // namespace

TEST_CASE("sgemm: the AVX-512 GEMM against double sums, every tail and layout") {
  if (!tc::sgemm::avx512_available()) {
    MESSAGE("this CPU has no AVX-512: the AVX-512 GEMM is not run here");
    return;
  }
  uint32_t seed = 1;
  for (int64_t m : kRows)
    for (int64_t n : kCols)
      for (int64_t k : kInner)
        for (int layout = 0; layout < 4; ++layout) {
          const bool transA = layout & 1, transB = layout & 2;
          Problem p = problem(m, n, k, seed++);
          std::vector<float> a = transA ? transposed(p.a, m, k) : p.a;
          std::vector<float> b = transB ? transposed(p.b, k, n) : p.b;
          const float beta = (seed % 3 == 0) ? 0.5f : 0.0f;
          const float alpha = (seed % 5 == 0) ? -2.0f : 1.0f;
          std::vector<float> c0 = initialC(m, n, beta), c = c0;
          REQUIRE(tc::sgemm::gemm_avx512(m, n, k, a.data(), transA, transA ? m : k, b.data(),
                                         transB, transB ? k : n, alpha, beta, c.data(), n));
          expectProduct(p, c, alpha, beta, c0, transA ? (transB ? "TT" : "TN")
                                                      : (transB ? "NT" : "NN"));
        }
}

TEST_CASE("sgemm: a B packed whole (Linear weights), every column range, both kernels") {
  uint32_t seed = 100;
  for (int64_t m : kRows)
    for (int64_t n : kCols)
      for (int64_t k : kInner) {
        Problem p = problem(m, n, k, seed++);
        std::vector<float> weight = transposed(p.b, k, n); // [n, k], as a Linear stores it
        std::vector<float> packed(static_cast<size_t>(tc::sgemm::packed_b_floats(n, k)), -1.0f);
        tc::sgemm::pack_b_whole(n, k, weight.data(), true, k, packed.data());
        // The layout holds every element once, zero past n; the AVX-512 packer (where the CPU
        // has it) and the portable one write the same bytes.
        CHECK(packed.size() == static_cast<size_t>(k * ((n + 31) / 32 * 32)));
        std::vector<float> portable(packed.size(), -1.0f);
        tc::sgemm::pack_b_whole_portable(n, k, weight.data(), true, k, portable.data());
        CHECK(portable == packed);
        const float beta = (seed % 2 == 0) ? 1.0f : 0.0f;
        for (int isa = 0; isa < 2; ++isa) {
          if (isa == 1 && !tc::sgemm::avx512_available())
            continue;
          // Two column ranges, split at a multiple of 32, must give the whole product.
          const int64_t split = n > 32 ? 32 : n;
          std::vector<float> c0 = initialC(m, n, beta), c = c0;
          for (auto [j0, j1] : {std::pair<int64_t, int64_t>{0, split}, {split, n}}) {
            if (j0 >= j1)
              continue;
            if (isa == 1)
              tc::sgemm::gemm_packed_avx512(m, n, k, p.a.data(), k, packed.data(), 1.0f, beta,
                                            c.data(), n, j0, j1);
            else
              tc::sgemm::gemm_packed_portable(m, n, k, p.a.data(), k, packed.data(), 1.0f, beta,
                                              c.data(), n, j0, j1);
          }
          expectProduct(p, c, 1.0f, beta, c0, isa == 1 ? "packed avx512" : "packed portable");
        }
      }
}

TEST_CASE("sgemm: gemm_packed and gemm<float> on each path, with threads") {
  const bool initially = tc::sgemm::enabled();
  tc_pool *pool = nullptr;
  tc_error err{};
  REQUIRE(tc_pool_create(2, &pool, &err) == TC_OK);
  {
    tc::PoolScope scope(pool);
    uint32_t seed = 500;
    for (bool own : {false, true}) {
      tc::sgemm::set_enabled(own);
      CHECK(tc::sgemm::enabled() == (own && tc::sgemm::avx512_available()));
      // Large enough to be split over the two threads: by columns, then by rows.
      for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{40, 300, 200},
                             {200, 40, 300}, {1, 290, 600}, {5, 33, 7}}) {
        Problem p = problem(m, n, k, seed++);
        std::vector<float> weight = transposed(p.b, k, n);
        std::vector<float> packed(static_cast<size_t>(tc::sgemm::packed_b_floats(n, k)));
        // A Linear weight [n, k] and an addmm's B [k, n] pack to the same panels.
        tc::sgemm::pack_b_whole(n, k, weight.data(), true, k, packed.data());
        std::vector<float> fromRows(packed.size());
        tc::sgemm::pack_b_whole(n, k, p.b.data(), false, n, fromRows.data());
        CHECK(fromRows == packed);
        tc::sgemm::pack_b_whole_portable(n, k, p.b.data(), false, n, fromRows.data());
        CHECK(fromRows == packed);
        std::vector<float> c0 = initialC(m, n, 1.0f), c = c0;
        tc::gemm_packed(m, n, k, p.a.data(), packed.data(), 1.0, 1.0, c.data());
        expectProduct(p, c, 1.0f, 1.0f, c0, own ? "gemm_packed (own)" : "gemm_packed");
        std::vector<float> scaled = initialC(m, n, 0.0f);
        tc::gemm_packed(m, n, k, p.a.data(), packed.data(), -2.0, 0.0, scaled.data());
        expectProduct(p, scaled, -2.0f, 0.0f, c0, own ? "gemm_packed alpha (own)" : "alpha");
        std::vector<float> g = initialC(m, n, 0.0f);
        tc::gemm<float>(1, m, n, k, p.a.data(), 0, false, weight.data(), 0, true, 1.0, 0.0,
                        g.data());
        expectProduct(p, g, 1.0f, 0.0f, c0, own ? "gemm (own)" : "gemm");
      }
    }
  }
  tc_pool_destroy(pool);
  tc::sgemm::set_enabled(initially);
}
