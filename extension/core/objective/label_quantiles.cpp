#include "label_quantiles.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gbdt {
namespace {

// Rows sorted at once with std::stable_sort before the merges (a run takes
// a few microseconds).
constexpr size_t kRun = 1024;

// Merges the sorted runs a[0, na) and b[0, nb) (b after a in index order)
// into out, stably: an element of b goes first only when strictly smaller.
// Ticks poll once per stretch of elements placed.
void merge_runs(const float* y, const size_t* a, size_t na, const size_t* b, size_t nb,
                size_t* out, CancelPoller* poll) {
  size_t i = 0, j = 0, o = 0;
  while (i < na && j < nb) {
    // Neither run can end within `steps` elements: no bound checks inside.
    const size_t steps = std::min<size_t>(std::min(na - i, nb - j), 4096);
    for (size_t s = 0; s < steps; ++s) out[o++] = y[b[j]] < y[a[i]] ? b[j++] : a[i++];
    if (poll != nullptr) poll->tick(steps);
  }
  std::copy(a + i, a + na, out + o);
  std::copy(b + j, b + nb, out + o + (na - i));
  if (poll != nullptr) poll->tick((na - i) + (nb - j));
}

}  // namespace

void stable_value_order(const float* y, size_t n, std::vector<size_t>* idx, CancelPoller* poll) {
  idx->resize(n);
  std::iota(idx->begin(), idx->end(), (size_t)0);
  size_t* a = idx->data();
  auto less = [y](size_t l, size_t r) { return y[l] < y[r]; };
  for (size_t b = 0; b < n; b += kRun) {
    const size_t e = std::min(n, b + kRun);
    std::stable_sort(a + b, a + e, less);
    if (poll != nullptr) poll->tick((e - b) * 10);  // about log2(kRun) steps per element
  }
  if (n <= kRun) return;
  // Bottom-up merges of neighbouring runs, between idx and a buffer.
  std::vector<size_t> buf(n);
  size_t* src = a;
  size_t* dst = buf.data();
  for (size_t width = kRun; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(n, lo + width), hi = std::min(n, lo + 2 * width);
      merge_runs(y, src + lo, mid - lo, src + mid, hi - mid, dst + lo, poll);
    }
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

void cumulative_weights(const float* w, const std::vector<size_t>& idx, std::vector<double>* cdf) {
  cdf->resize(idx.size());
  double s = 0;
  for (size_t i = 0; i < idx.size(); ++i) (*cdf)[i] = (s += w[idx[i]]);
}

double quantile_from_order(const float* y, size_t n, const std::vector<size_t>& idx,
                           const std::vector<double>* cdf, double alpha) {
  if (n == 0) return 0.0;
  if (cdf == nullptr) {
    const double nn = (double)n;
    if (alpha <= 1.0 / (nn + 1)) return y[idx[0]];
    if (alpha >= nn / (nn + 1)) return y[idx[n - 1]];
    const double x = alpha * (nn + 1);
    const double k = std::floor(x) - 1;
    const double d = (x - 1) - k;
    const double v0 = y[idx[(size_t)k]], v1 = y[idx[(size_t)k + 1]];
    return v0 + d * (v1 - v0);
  }
  const double s = cdf->back();
  const size_t j = (size_t)(std::lower_bound(cdf->begin(), cdf->end(), alpha * s) - cdf->begin());
  return y[idx[std::min(j, n - 1)]];
}

double label_quantile_polled(const float* y, const float* w, size_t n, double alpha,
                             CancelPoller* poll) {
  std::vector<size_t> idx;
  stable_value_order(y, n, &idx, poll);
  std::vector<double> cdf;
  if (w != nullptr) cumulative_weights(w, idx, &cdf);
  return quantile_from_order(y, n, idx, w ? &cdf : nullptr, alpha);
}

std::vector<double> label_quantiles(const float* y, const float* w, size_t n,
                                    const std::vector<double>& alphas, const CancelFn& cancel) {
  CancelPoller poll(cancel);
  poll.poll_now();
  std::vector<size_t> idx;
  stable_value_order(y, n, &idx, &poll);
  std::vector<double> cdf;
  if (w != nullptr) cumulative_weights(w, idx, &cdf);
  std::vector<double> r;
  r.reserve(alphas.size());
  for (double a : alphas) r.push_back(quantile_from_order(y, n, idx, w ? &cdf : nullptr, a));
  return r;
}

}  // namespace gbdt
