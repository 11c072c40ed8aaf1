#include "value_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "../common/interruptible.h"

namespace gbdt {

namespace {

// Fills distinct, unique and determines from per-value tallies: `groups`
// distinct values, `mixed` of them with more than one label.
void conclude(ValueCheck* c, size_t groups, size_t mixed) {
  c->distinct = groups;
  c->unique = c->present >= kUniqueMinRows &&
              (double)groups >= kUniqueFraction * (double)c->present;
  c->determines = groups >= 2 && mixed == 0 && c->present >= kDetermineRowsPerValue * groups;
}

// Whole numbers in a span of `span` values from lo: a first label and a
// "seen" / "mixed" state per value.
void tally_span(const float* x, const float* y, size_t n, double lo, size_t span, ValueCheck* c,
                CancelPoller* poll) {
  std::vector<float> first(span);
  std::vector<uint8_t> state(span, 0);  // 0 unseen, 1 one label, 2 more labels
  for (size_t r = 0; r < n; r++) {
    poll->tick();
    const float v = x[r];
    if (v != v) continue;
    const size_t k = (size_t)((double)v - lo);
    if (state[k] == 0) {
      state[k] = 1;
      first[k] = y[r];
    } else if (state[k] == 1 && first[k] != y[r]) {
      state[k] = 2;
    }
  }
  size_t groups = 0, mixed = 0;
  for (size_t k = 0; k < span; k++) {
    poll->tick();
    groups += state[k] != 0;
    mixed += state[k] == 2;
  }
  conclude(c, groups, mixed);
}

// Any values: (value, label) pairs sorted.
void tally_sorted(const float* x, const float* y, size_t n, ValueCheck* c, CancelPoller* poll) {
  std::vector<std::pair<float, float>> p;
  p.reserve(c->present);
  for (size_t r = 0; r < n; r++) {
    poll->tick();
    if (x[r] == x[r]) p.emplace_back(x[r] + 0.0f, y[r]);  // -0 and +0 as one value
  }
  poll->poll_now();
  std::sort(p.begin(), p.end());
  poll->poll_now();
  size_t groups = 0, mixed = 0;
  for (size_t i = 0; i < p.size();) {
    size_t j = i + 1;
    bool one = true;
    while (j < p.size() && p[j].first == p[i].first) {
      one &= p[j].second == p[i].second;
      j++;
    }
    poll->tick(j - i);
    groups++;
    mixed += !one;
    i = j;
  }
  conclude(c, groups, mixed);
}

}  // namespace

ValueCheck check_values(const float* x, const float* labels, size_t n, bool allow_sort,
                        bool want_determines, const CancelFn& cancel) {
  CancelPoller poll(cancel);
  ValueCheck c;
  // The range, whether every present value is a whole number, and the
  // present rows, in blocks between polls.  Every finite float of
  // magnitude 2^23 or more is a whole number (no call to floor per row).
  float lo = INFINITY, hi = -INFINITY;
  bool whole = true;
  size_t present = 0;
  constexpr size_t kBlock = 4096;
  for (size_t from = 0; from < n; from += kBlock) {
    const size_t to = std::min(n, from + kBlock);
    // No branch per row (missing values come and go at random): a missing
    // value takes part as lo / hi themselves and as a whole number.
    bool w = true;
    for (size_t r = from; r < to; r++) {
      const float v = x[r];
      const bool p = v == v;
      present += p;
      lo = std::min(lo, p ? v : lo);
      hi = std::max(hi, p ? v : hi);
      const float a = p ? std::fabs(v) : 0.0f;
      const float t = std::min(a, 0x1p23f);  // a >= 2^23: whole; t = 2^23 is
      w &= (float)(int32_t)t == t;           // whole and fits an int32
    }
    whole &= w;
    poll.tick(to - from);
  }
  const bool any = present > 0;
  whole &= std::isfinite(lo) && std::isfinite(hi);
  c.present = present;
  c.lo = any ? lo + 0.0f : 0.0;
  c.hi = any ? hi + 0.0f : 0.0;
  if (!any) {
    c.checked = true;
    return c;
  }
  const double span = c.hi - c.lo + 1.0;
  // Whole numbers spanning fewer values than kUniqueFraction of the rows
  // cannot be unique: when that is all the caller asks, no table is needed.
  if (!want_determines && whole && span < kUniqueFraction * (double)c.present) {
    c.checked = true;
    return c;
  }
  const double max_span = std::max(4.0 * (double)n, 65536.0);
  if (whole && span <= max_span) {
    tally_span(x, labels, n, c.lo, (size_t)span, &c, &poll);
  } else if (allow_sort) {
    tally_sorted(x, labels, n, &c, &poll);
  } else {
    return c;
  }
  c.checked = true;
  return c;
}

}  // namespace gbdt
