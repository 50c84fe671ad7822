"""CMake options for bundles that a test builds only to run them and compare their outputs.

A bundle builds as CMake's Release by default (-O3). The suites build hundreds of bundles on two
cores, where -O3 costs two to four times the compile time of -O2 for the same numerics: without
-ffast-math, GCC's optimization level does not change floating-point results, so an output test
at -O2 checks what -O3 computes. The shipped build itself (Release, -O3, the CPU dispatch on) is
built and checked by tests/e2e/test_bundles.py, the golden tests, the LLM `generate` test and the
benchmark smoke test.

The CUDA emulation compiles the CUDA source as C++ to run its kernels on the CPU; what it checks
is the kernels' logic, so -O1 (a third less compile time than -O2 there) is enough.
"""

OUTPUT_TEST_CPU = ["-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"]
OUTPUT_TEST_CUDA_EMULATED = ["-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"]


def output_test_flags(cmake_args):
    """The build flags above for a bundle configured with `cmake_args`."""
    if "-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON" in cmake_args:
        return OUTPUT_TEST_CUDA_EMULATED
    return OUTPUT_TEST_CPU
