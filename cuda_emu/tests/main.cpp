// Entry point of the doctest binary that runs CUDA code on the CPU emulation of CUDA.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
