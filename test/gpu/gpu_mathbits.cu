// Device-vs-host bit test of the engine's shared math (det_math.h,
// gradients.h, objective_grad.h): the same __host__ __device__ functions
// evaluated by a kernel and by the host on the same inputs must give the same
// bits, or the CUDA backend's trees could differ from the CPU backend's.
// The device branches (#if __CUDA_ARCH__: rint, ldexp, __double2ll_rn) run
// only here and in the backend's kernels.
//
//   build/gpu_mathbits [--count N]     exit 0 equal, 1 differ, 77 no device
//
// Built with nvcc for the device (test/gpu/build.sh); with
// -DGBDT_CUDA_EMULATION against test/gpu/emu the "kernel" runs on the host,
// so the emulated run checks the program, not the device's arithmetic (it
// says so).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "objective/gradients.h"
#include "objective/objective.h"

#if defined(GBDT_CUDA_EMULATION)
#define MB_LAUNCH(k, g, b) ::gbdt_emu::launcher(k, (unsigned)(g), (unsigned)(b), 0)
#else
#define MB_LAUNCH(k, g, b) k<<<(g), (b)>>>
#endif

namespace {

// Values per input: det_exp, det_log, det_log1p, det_sigmoid, quantize,
// the scalar objectives' g and h, softmax g and h.
constexpr int kScalarObjs = 10;
constexpr int kOut = 5 + 2 * kScalarObjs + 2;

const gbdt::Objective kObjs[kScalarObjs] = {
    gbdt::Objective::kSquaredError, gbdt::Objective::kLogistic,    gbdt::Objective::kPoisson,
    gbdt::Objective::kAbsoluteError, gbdt::Objective::kPseudoHuber, gbdt::Objective::kQuantile,
    gbdt::Objective::kSquaredLog,   gbdt::Objective::kGamma,       gbdt::Objective::kTweedie,
    gbdt::Objective::kHinge};

struct Objs {
  gbdt::Objective o[kScalarObjs];
};

// Everything one input x (with label y) gives, as doubles (bits compared).
__host__ __device__ void eval_all(double x, double y, const Objs& objs, gbdt::GradParams gp,
                                  double* out) {
  out[0] = gbdt::det_exp(x);
  out[1] = gbdt::det_log(x);
  out[2] = gbdt::det_log1p(x);
  out[3] = gbdt::det_sigmoid(x);
  out[4] = (double)gbdt::quantize(x, 1099511627776.0);  // 2^40
  for (int i = 0; i < kScalarObjs; ++i) {
    gbdt::GradHess gh = gbdt::scalar_gradient(objs.o[i], x, y, gp);
    out[5 + 2 * i] = gh.g;
    out[6 + 2 * i] = gh.h;
  }
  float m[3] = {(float)x, (float)(0.5 * y), (float)(x - y)};
  double mx, sum;
  gbdt::softmax_prepare(m, 3, &mx, &sum);
  gbdt::GradHess s = gbdt::softmax_gradient(m, 0, mx, sum, 1);
  out[5 + 2 * kScalarObjs] = s.g;
  out[6 + 2 * kScalarObjs] = s.h;
}

__global__ void k_eval_all(const double* xs, const double* ys, size_t n, Objs objs,
                           gbdt::GradParams gp, double* out) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    eval_all(xs[i], ys[i], objs, gp, out + i * kOut);
}

const char* kNames[5] = {"det_exp", "det_log", "det_log1p", "det_sigmoid", "quantize"};

std::string out_name(int j) {
  if (j < 5) return kNames[j];
  if (j >= 5 + 2 * kScalarObjs) return j == 5 + 2 * kScalarObjs ? "softmax g" : "softmax h";
  const int i = (j - 5) / 2;
  return std::string(gbdt::objective_name(kObjs[i])) + ((j - 5) % 2 ? " h" : " g");
}

// Inputs: special values, the ranges where range reduction and the series
// switch, and a deterministic spread over [-750, 750] and tiny magnitudes.
void make_inputs(size_t n, std::vector<double>* xs, std::vector<double>* ys) {
  const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0.34657359027997264, -0.34657359027997264,
                            709.0, 709.5, -740.0, -745.0, 1e-300, 5e-324, 1e-17, -1e-17,
                            0.70710678118654752, 1.4142135623730951, 2.0, 1e308, -0.999999,
                            (double)NAN, (double)INFINITY, -(double)INFINITY};
  for (double v : special) {
    xs->push_back(v);
    ys->push_back(v == v && std::fabs(v) < 1e3 ? v * 0.5 + 1.0 : 1.0);
  }
  for (size_t i = xs->size(); i < n; ++i) {
    const uint64_t h = gbdt::mix64(i * 0x9E3779B97F4A7C15ULL + 17);
    const double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
    double x;
    switch (i % 4) {
      case 0: x = (u - 0.5) * 1500.0; break;                     // the exp range
      case 1: x = (u - 0.5) * 8.0; break;                        // around the margins
      case 2: x = std::ldexp(u + 0.5, (int)(h % 200) - 100); break;  // magnitudes
      default: x = u * 3.0; break;                               // positive labels
    }
    xs->push_back(x);
    ys->push_back((double)((h >> 7) % 5) * 0.75 + (i % 2 ? 0.0 : 0.1));
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 200000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--count") == 0 && i + 1 < argc) n = (size_t)std::atoll(argv[++i]);
    else {
      std::fprintf(stderr, "usage: gpu_mathbits [--count N]\n");
      return 2;
    }
  }
#if defined(GBDT_CUDA_EMULATION)
  std::printf("gpu_mathbits: CPU EMULATION: the kernel runs on the host (host branches); "
              "the device's arithmetic is NOT tested here\n");
#endif
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("gpu_mathbits: no CUDA device; SKIPPED\n");
    return 77;
  }
  std::vector<double> xs, ys;
  make_inputs(n, &xs, &ys);
  n = xs.size();
  Objs objs;
  for (int i = 0; i < kScalarObjs; ++i) objs.o[i] = kObjs[i];
  gbdt::GradParams gp;
  gp.max_delta_step = 0.7;
  gp.huber_slope = 1.3;
  gp.quantile_alpha = 0.3;
  gp.tweedie_variance_power = 1.4;

  double *dx = nullptr, *dy = nullptr, *dout = nullptr;
  const size_t out_n = n * (size_t)kOut;
  if (cudaMalloc((void**)&dx, n * 8) != cudaSuccess || cudaMalloc((void**)&dy, n * 8) != cudaSuccess ||
      cudaMalloc((void**)&dout, out_n * 8) != cudaSuccess) {
    std::printf("gpu_mathbits: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpyAsync(dx, xs.data(), n * 8, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(dy, ys.data(), n * 8, cudaMemcpyHostToDevice);
  MB_LAUNCH(k_eval_all, (n + 255) / 256, 256)(dx, dy, n, objs, gp, dout);
  cudaError_t e = cudaGetLastError();
  std::vector<double> dev(out_n);
  if (e == cudaSuccess) e = cudaMemcpyAsync(dev.data(), dout, out_n * 8, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("gpu_mathbits: FAILED: CUDA error %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dout);

  size_t bad = 0;
  std::vector<size_t> bad_per(kOut, 0);
  double host[kOut];
  for (size_t i = 0; i < n; ++i) {
    eval_all(xs[i], ys[i], objs, gp, host);
    for (int j = 0; j < kOut; ++j) {
      const double d = dev[i * kOut + j];
      if (std::memcmp(&d, &host[j], 8) == 0) continue;
      if (bad < 20)
        std::printf("DIFF %s(x=%.17g, y=%.17g): device %.17g host %.17g\n", out_name(j).c_str(),
                    xs[i], ys[i], d, host[j]);
      ++bad;
      ++bad_per[j];
    }
  }
  for (int j = 0; j < kOut; ++j)
    if (bad_per[j]) std::printf("  %s: %zu of %zu inputs differ\n", out_name(j).c_str(), bad_per[j], n);
  std::printf("gpu_mathbits: %zu inputs x %d functions: %s (%zu differ)\n", n, kOut,
              bad ? "FAILED" : "bit-identical", bad);
  return bad ? 1 : 0;
}
