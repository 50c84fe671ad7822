// Tests of tcg::sort and tcg::embedding_bag on the CUDA emulation against tc::sort and
// tc::embedding_bag: both sort paths (shared-memory bitonic rows and merge passes over long
// rows), ties, NaN, strided rows and every dtype family; bags with padding, per-sample weights,
// every mode and an out-of-range index.
#include <cmath>
#include <cstdint>

#include "lib_test_util.h"

namespace {

using namespace lib_test;

template <typename T>
void checkSort(int64_t outer, int64_t extent, int64_t inner, bool descending, double low,
               double high, bool withNan = false) {
  Context context;
  const int64_t count = outer * extent * inner;
  Array<T> input = randomArray<T>(count, low, high, 31);
  if constexpr (!std::is_integral<T>::value) {
    if (withNan)
      for (int64_t i = 0; i < count; i += 7)
        input[i] = tc::cast<T>(NAN);
  }
  Array<T> wantValues(count);
  Array<int64_t> wantIndices(count);
  tc::sort(input.data(), outer, extent, inner, descending, wantValues.data(), wantIndices.data());
  const int64_t workspace = tcg::sort_workspace_elements(count, extent);
  Buffer<T> x(input), values(count), keys(workspace);
  Buffer<int64_t> indices(count), positions(workspace);
  REQUIRE_OK(tcg::sort(context.ex, x.data(), outer, extent, inner, descending, values.data(),
                       indices.data(), workspace ? keys.data() : nullptr,
                       workspace ? positions.data() : nullptr));
  expectEqual(indices.read(), wantIndices);
  expectNear(values.read(), wantValues, 0, 0);
}

TEST_CASE("tcg::sort: stable, NaN largest, both paths, strided rows") {
  checkSort<float>(3, 37, 1, false, -5, 5);
  checkSort<float>(2, 100, 3, true, -2, 2, true);     // strided rows, NaN first
  checkSort<tc::half>(4, 64, 1, false, -3, 3, true);  // ties (half rounding), NaN last
  checkSort<int64_t>(5, 33, 2, true, 0, 6);           // many ties: stable order
  checkSort<int32_t>(1, 1, 1, false, -9, 9);          // one element
  checkSort<bool>(2, 9, 1, false, 0, 2);
  checkSort<float>(2, 2100, 1, false, -1, 1);         // long rows: merge passes
  checkSort<tc::bfloat16>(1, 3000, 2, true, -4, 4, true);
  checkSort<int16_t>(2, 4097, 1, false, -20, 20);     // ties across merge runs
  checkSort<double>(0, 5, 1, false, 0, 1);            // no rows
  CHECK_FALSE(tcg::sort<float>(Context().ex, nullptr, 1, 5000, 1, false, nullptr, nullptr,
                               nullptr, nullptr)
                  .ok()); // long rows without a workspace
}

template <typename T, typename I>
void checkBag(tc::bag_mode mode, bool includeLast, int64_t padding, bool weighted) {
  Context context;
  const int64_t V = 13, D = 5, count = 17;
  const Array<T> table = randomArray<T>(V * D, -3, 3, 41);
  const Array<I> index = randomArray<I>(count, 0, V, 43);
  const int64_t numOffsets = 6;
  Array<I> offsets(numOffsets);
  const int64_t starts[] = {0, 4, 4, 9, 16, 17}; // an empty bag and a one-element bag
  for (int64_t b = 0; b < numOffsets; ++b)
    offsets[b] = static_cast<I>(starts[b]);
  const Array<T> weights = randomArray<T>(count, -1, 1, 47);
  const int64_t bags = includeLast ? numOffsets - 1 : numOffsets;
  Array<T> want(bags * D);
  REQUIRE(tc::embedding_bag(table.data(), V, D, index.data(), count, offsets.data(), numOffsets,
                            includeLast, mode, padding, weighted ? weights.data() : nullptr,
                            want.data()));
  Buffer<T> w(table), y(bags * D), psw(weights);
  Buffer<I> idx(index), off(offsets);
  REQUIRE_OK(tcg::embedding_bag(context.ex, w.data(), V, D, idx.data(), count, off.data(),
                                numOffsets, includeLast, static_cast<tcg::bag_mode>(mode),
                                padding, weighted ? psw.data() : nullptr, y.data()));
  expectNear(y.read(), want, std::is_same<T, float>::value ? 1e-6 : 1e-2, 1e-5);
  CHECK(context.errorFlag() == 0);
}

TEST_CASE("tcg::embedding_bag: modes, padding, per-sample weights, bad indices") {
  checkBag<float, int64_t>(tc::bag_mode::sum, false, -1, false);
  checkBag<float, int32_t>(tc::bag_mode::sum, true, 3, true);
  checkBag<float, int64_t>(tc::bag_mode::mean, false, 5, false);
  checkBag<tc::half, int64_t>(tc::bag_mode::max, true, 2, false);
  checkBag<double, int32_t>(tc::bag_mode::mean, true, -1, false);
  Context context;
  const Array<float> table = randomArray<float>(6, -1, 1, 3);
  Array<int64_t> index(3), offsets(1);
  index[0] = 0;
  index[1] = 3; // out of [0, 3)
  index[2] = 1;
  offsets[0] = 0;
  Buffer<float> w(table), y(2);
  Buffer<int64_t> idx(index), off(offsets);
  context.ex.error_site = 2;
  REQUIRE_OK(tcg::embedding_bag(context.ex, w.data(), 3, 2, idx.data(), 3, off.data(), 1, false,
                                tcg::bag_mode::sum, -1, static_cast<const float *>(nullptr),
                                y.data()));
  const tcg::gather_error record = context.gatherError();
  CHECK(record.flag == 1);
  CHECK(record.site == 2);
  CHECK(record.position == 1);
  CHECK(record.value == 3);
  CHECK(record.extent == 3);
  int64_t bad = -1;
  Array<float> host(2);
  CHECK_FALSE(tc::embedding_bag(table.data(), 3, 2, index.data(), 3, offsets.data(), 1, false,
                                tc::bag_mode::sum, -1, static_cast<const float *>(nullptr),
                                host.data(), &bad));
  CHECK(bad == 1);
}

} // namespace
