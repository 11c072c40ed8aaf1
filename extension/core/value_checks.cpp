#include "value_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "interruptible.h"

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
                        const CancelFn& cancel) {
  CancelPoller poll(cancel);
  ValueCheck c;
  bool whole = true;
  bool any = false;
  for (size_t r = 0; r < n; r++) {
    poll.tick();
    const float v = x[r];
    if (v != v) continue;
    if (!any) {
      c.lo = c.hi = v;
      any = true;
    }
    c.lo = std::min(c.lo, (double)v);
    c.hi = std::max(c.hi, (double)v);
    whole &= std::isfinite(v) && std::floor(v) == v;
    c.present++;
  }
  if (!any) {
    c.checked = true;
    return c;
  }
  const double span = c.hi - c.lo + 1.0;
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
