// Tests of torch.special's scalar functions in the kernel library's scalar layer
// (runtime/kernels/tc_math.h, special_detail): values in double against 20-digit references
// computed with mpmath at 40 digits, at points in every algorithm branch (series, Miller's
// recurrence, quadrature, asymptotic expansions, tails), PyTorch's edge values, and the
// polynomials against their closed forms.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <limits>

#include "tc_math.h"

namespace {

struct Point1 {
  double x, expected;
};
struct Point2 {
  double a, b, expected;
};

// 2e-13 relative: every branch is accurate to a few 1e-16 away from zeros of the function
// except the Airy series near its crossover at -7 (about 5e-12, checked separately below).
constexpr double kRelative = 2e-13;

void check1(const char *name, double (*f)(double), std::initializer_list<Point1> points) {
  for (const Point1 &p : points) {
    CAPTURE(name);
    CAPTURE(p.x);
    const double got = f(p.x);
    CHECK(std::fabs(got - p.expected) <= kRelative * std::fabs(p.expected));
  }
}

void check2(const char *name, double (*f)(double, double), std::initializer_list<Point2> points) {
  for (const Point2 &p : points) {
    CAPTURE(name);
    CAPTURE(p.a);
    CAPTURE(p.b);
    const double got = f(p.a, p.b);
    CHECK(std::fabs(got - p.expected) <= kRelative * std::fabs(p.expected));
  }
}

} // namespace

TEST_CASE("special functions: values in every branch match 40-digit references") {
  check1("erfinv", tc::erfinv<double>, {{1e-300, 8.8622692545275803586e-301}, {0.3, 2.7246271472675434502e-1}, {-0.49, -4.6586860023505733723e-1}, {0.5, 4.7693627620446987338e-1}, {0.9, 1.1630871536766741628}, {-0.999999, -3.4589107372754987775}, {0.9999999999990905, 5.0512540852493899671}});
  check1("ndtri", tc::ndtri<double>, {{1e-300, -3.7047096299361199237e+1}, {1e-10, -6.3613409024040561991}, {0.1, -1.2815515655446004353}, {0.3, -5.2440051270804081597e-1}, {0.5, 0.0}, {0.7, 5.2440051270804065631e-1}, {0.99, 2.3263478740408407676}});
  check1("erfcx", tc::erfcx<double>, {{-20.0, 1.0442939379528287901e+174}, {-1.5, 1.8653886256262733939e+1}, {0.5, 6.1569034419292587487e-1}, {5.0, 1.1070463773306862637e-1}, {25.5, 2.2108108052519826561e-2}, {30.0, 1.8795888861416751497e-2}, {10000.0, 5.6418958072680841152e-5}});
  check1("log_ndtr", tc::log_ndtr<double>, {{-100.0, -5.0055242086942050886e+3}, {-5.0, -1.5064998393988725736e+1}, {-0.5, -1.1759117615936186089}, {0.5, -3.6894641528865639307e-1}, {3.0, -1.3508099647481937988e-3}, {9.5, -1.0494515075362607493e-21}});
  check1("bessel_j0", tc::bessel_j0<double>, {{0.001, 9.99999750000015625e-1}, {1.5, 5.1182767173591812875e-1}, {-4.0, -3.9714980986384737229e-1}, {7.0, 3.0007927051955559665e-1}, {13.0, 2.06926102377067811e-1}, {19.0, 1.4662943965965120426e-1}, {25.0, 9.6266783275958116174e-2}, {100.5, 5.443657381441359099e-2}});
  check1("bessel_j1", tc::bessel_j1<double>, {{0.001, 4.9999993750000261457e-4}, {1.5, 5.5793650791009964199e-1}, {-4.0, 6.6043328023549136143e-2}, {8.0, 2.3463634685391462438e-1}, {13.0, -7.0318052121778371157e-2}, {19.0, -1.057014311424092668e-1}, {-25.0, 1.2535024958028990465e-1}, {100.5, -5.7791123996932020593e-2}});
  check1("bessel_y0", tc::bessel_y0<double>, {{0.001, -4.4714166113759232557}, {1.5, 3.8244892379775884396e-1}, {4.5, -1.9470500862950453327e-1}, {7.0, -2.5949743967209264884e-2}, {13.0, -7.8207864527875911021e-2}, {19.0, -1.0951969138534148427e-1}, {25.0, -1.2724943226800613783e-1}, {100.5, -5.8061227570355748507e-2}});
  check1("bessel_y1", tc::bessel_y1<double>, {{0.001, -6.3662216723113941482e+2}, {1.5, -4.1230862697391129595e-1}, {4.5, 3.0099732306965462342e-1}, {7.0, -3.0266723702418487006e-1}, {13.0, -2.1008140842069350592e-1}, {19.0, -1.4956011386265329167e-1}, {25.0, -9.8829964783237410053e-2}, {100.5, -5.4726102094683486458e-2}});
  check1("bessel_i0", tc::bessel_i0<double>, {{0.001, 1.000000250000015625}, {-3.0, 4.8807925858650240856}, {15.0, 3.3964937329791387952e+5}, {29.0, 2.9252063178569086627e+11}, {31.0, 2.0899629664919037954e+12}, {-80.0, 2.4751784043341704887e+33}});
  check1("bessel_i1", tc::bessel_i1<double>, {{0.001, 5.0000006250000261458e-4}, {-3.0, -3.9533702174026093965}, {15.0, 3.2812492197020639673e+5}, {29.0, 2.8743210812625481211e+11}, {31.0, 2.0559727952945647312e+12}, {-80.0, -2.459659579567540863e+33}});
  check1("bessel_i0e", tc::bessel_i0e<double>, {{0.001, 9.9900074958351555937e-1}, {-3.0, 2.4300035416182539847e-1}, {15.0, 1.0389953144882272143e-1}, {31.0, 7.1946496696983832763e-2}, {500.0, 1.7845706500153167237e-2}});
  check1("bessel_i1e", tc::bessel_i1e<double>, {{0.001, 4.9950031235422134737e-4}, {-3.0, -1.9682671329730085363e-1}, {15.0, 1.0037417504516665529e-1}, {31.0, 7.0776392834385680169e-2}, {-500.0, -1.7827851852898056461e-2}});
  check1("bessel_k0", tc::bessel_k0<double>, {{1e-05, 1.1628856980944362212e+1}, {0.5, 9.2441907122766586178e-1}, {1.9, 1.2884597927604749404e-1}, {2.1, 1.0078374088996693491e-1}, {10.0, 1.7780062316167651811e-5}, {24.0, 9.6088187808331156933e-12}, {26.0, 1.2498773979850723773e-12}, {300.0, 3.7236948548891432633e-132}});
  check1("bessel_k1", tc::bessel_k1<double>, {{1e-05, 9.9999999939355706916e+4}, {0.5, 1.6564411200033008937}, {1.9, 1.5966015303266762929e-1}, {2.1, 1.2274641153350789646e-1}, {10.0, 1.8648773453825584597e-5}, {24.0, 9.8069989304411444159e-12}, {26.0, 1.2736907792389236217e-12}, {300.0, 3.7298958583323726986e-132}});
  check1("bessel_k0e", tc::bessel_k0e<double>, {{0.5, 1.52410938577390953}, {1.9, 8.6145061675175578899e-1}, {2.1, 8.2301715253166205755e-1}, {10.0, 3.9163193443659866573e-1}, {26.0, 2.4463801494155148309e-1}, {10000.0, 1.2532984717699285288e-2}});
  check1("bessel_k1e", tc::bessel_k1e<double>, {{0.5, 2.7310097082117857054}, {1.9, 1.06747092981457005}, {2.1, 1.0023680527405790625}, {10.0, 4.1076657059578875113e-1}, {26.0, 2.4929899875354781789e-1}, {10000.0, 1.2533611351270505734e-2}});
  check1("spherical_bessel_j0", tc::spherical_bessel_j0<double>, {{0.001, 9.9999983333334166667e-1}, {0.4, 9.7354585577162622625e-1}, {-0.6, 9.4107078899172559962e-1}, {10.0, -5.440211108893698134e-2}});
  check1("airy_ai", tc::airy_ai<double>, {{-30.0, -8.7968188456842162833e-2}, {-8.0, -5.2705050356386202622e-2}, {-5.0, 3.5076100902411431979e-1}, {-1.0, 5.355608832923521188e-1}, {0.5, 2.3169360648083348977e-1}, {1.9, 4.0594420031529502034e-2}, {2.1, 2.9952602115866522488e-2}, {10.0, 1.1047532552898685934e-10}, {60.0, 2.7831487094969355371e-136}});
  check2("igamma", tc::igamma<double>, {{0.5, 0.2, 4.7291074313446192633e-1}, {2.5, 1.0, 1.5085496391539036377e-1}, {3.0, 10.0, 9.9723060428448842406e-1}, {30.0, 25.0, 1.821039159774551098e-1}, {100.0, 120.0, 9.7213626010947933852e-1}});
  check2("igammac", tc::igammac<double>, {{0.5, 0.2, 5.2708925686553807367e-1}, {2.5, 1.0, 8.4914503608460963623e-1}, {3.0, 10.0, 2.7693957155115759437e-3}, {30.0, 25.0, 8.178960840225448902e-1}, {100.0, 120.0, 2.7863739890520661484e-2}});
}

TEST_CASE("special functions: the Airy series near its lower end") {
  // Ai(-6.5) and Ai(-7.5) (mpmath): the Maclaurin series loses digits to cancellation there and
  // the asymptotic expansion is not yet at full accuracy; both stay within 1e-11.
  CHECK(std::fabs(tc::airy_ai(-6.5) - -2.3802030199711580e-1) < 1e-11 * 0.24);
  CHECK(std::fabs(tc::airy_ai(-7.5) - 3.2177571638064788e-1) < 1e-11 * 0.33);
}

TEST_CASE("special functions: PyTorch's values at zeros, infinities and outside the domain") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(tc::erfinv(1.0) == inf);
  CHECK(tc::erfinv(-1.0) == -inf);
  CHECK(std::isnan(tc::erfinv(1.5)));
  CHECK(std::signbit(tc::erfinv(-0.0)));
  CHECK(tc::ndtri(0.0) == -inf);
  CHECK(tc::ndtri(1.0) == inf);
  CHECK(std::isnan(tc::ndtri(-0.5)));
  CHECK(tc::erfcx(inf) == 0.0);
  CHECK(tc::erfcx(-inf) == inf);
  CHECK(tc::log_ndtr(-inf) == -inf);
  CHECK(tc::log_ndtr(inf) == 0.0);
  CHECK(std::isnan(tc::bessel_j0(inf)));
  CHECK(tc::bessel_y0(0.0) == -inf);
  CHECK(tc::bessel_y1(0.0) == -inf);
  CHECK(std::isnan(tc::bessel_y0(-1.0)));
  CHECK(std::isnan(tc::bessel_i0(inf)));
  CHECK(tc::bessel_i0e(-inf) == 0.0);
  CHECK(tc::bessel_k0(0.0) == inf);
  CHECK(tc::bessel_k1e(inf) == 0.0);
  CHECK(std::isnan(tc::bessel_k1(-2.0)));
  CHECK(tc::spherical_bessel_j0(-inf) == 0.0);
  CHECK(std::isnan(tc::airy_ai(-inf)));
  CHECK(tc::airy_ai(104.0) == 0.0);
  // igamma/igammac boundaries (SciPy's, as PyTorch).
  CHECK(std::isnan(tc::igamma(-1.0, 1.0)));
  CHECK(tc::igamma(0.0, 1.0) == 1.0);
  CHECK(tc::igammac(0.0, 1.0) == 0.0);
  CHECK(std::isnan(tc::igamma(0.0, 0.0)));
  CHECK(tc::igamma(2.0, 0.0) == 0.0);
  CHECK(tc::igammac(inf, 3.0) == 1.0);
  CHECK(tc::igamma(2.0, inf) == 1.0);
  // Float keeps float's results (computed in double, rounded once).
  CHECK(tc::bessel_j0(2.0f) == static_cast<float>(tc::bessel_j0(2.0)));
}

TEST_CASE("special functions: orthogonal polynomials against closed forms") {
  for (double x : {-0.9, -0.3, 0.2, 0.7, 1.3, -2.5}) {
    CAPTURE(x);
    const double approx = 1e-12 * (1.0 + std::pow(std::fabs(x), 9.0) * 600.0);
    // Degree 9 takes the trigonometric forms inside (-1, 1), the recurrence outside.
    const double t9 = x * (9 + x * x * (-120 + x * x * (432 + x * x * (-576 + x * x * 256))));
    CHECK(std::fabs(tc::chebyshev_t(x, 9.0) - t9) <= approx);
    CHECK(std::fabs(tc::chebyshev_t(x, 9.7) - t9) <= approx); // n truncates
    const double u3 = 8 * x * x * x - 4 * x;
    CHECK(std::fabs(tc::chebyshev_u(x, 3.0) - u3) <= approx);
    CHECK(std::fabs(tc::chebyshev_v(x, 2.0) - (4 * x * x - 2 * x - 1)) <= approx);
    CHECK(std::fabs(tc::chebyshev_w(x, 2.0) - (4 * x * x + 2 * x - 1)) <= approx);
    const double y = 2 * x - 1;
    CHECK(std::fabs(tc::shifted_chebyshev_u(x, 3.0) - (8 * y * y * y - 4 * y)) <= approx * 100);
    CHECK(std::fabs(tc::hermite_h(x, 3.0) - (8 * x * x * x - 12 * x)) <= approx);
    CHECK(std::fabs(tc::hermite_he(x, 4.0) - (x * x * x * x - 6 * x * x + 3)) <= approx);
    CHECK(std::fabs(tc::laguerre_l(x, 3.0) - (-x * x * x + 9 * x * x - 18 * x + 6) / 6) <= approx);
    CHECK(std::fabs(tc::legendre_p(x, 3.0) - (5 * x * x * x - 3 * x) / 2) <= approx);
  }
  // U_n(x) = sin((n+1) acos x) / sin(acos x) for large n, checked against the recurrence's
  // value of U_10(0.5) = sin(11 pi/3) / sin(pi/3) = -1.
  CHECK(std::fabs(tc::chebyshev_u(0.5, 10.0) + 1.0) < 1e-13);
  // PyTorch's shortcuts: negative n gives 0, |x| = 1 closed values, Hermite's degree limit.
  CHECK(tc::chebyshev_t(0.5, -1.0) == 0.0);
  CHECK(tc::legendre_p(0.5, std::nan("")) == 0.0);
  CHECK(tc::chebyshev_u(-1.0, 3.0) == -4.0);
  CHECK(tc::chebyshev_v(-1.0, 2.0) == 5.0);
  CHECK(tc::chebyshev_w(1.0, 2.0) == 5.0);
  CHECK(tc::laguerre_l(0.0, 7.0) == 1.0);
  CHECK(std::isnan(tc::hermite_h(0.5f, 129.0f)));
  CHECK(!std::isnan(tc::hermite_h(0.5, 129.0)));
}
