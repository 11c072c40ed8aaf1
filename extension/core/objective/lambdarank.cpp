// LambdaMART gradients of rank:pairwise, rank:ndcg and rank:map (XGBoost
// 3.x semantics: topk / mean pair construction, |delta metric| weighted
// RankNet pair gradients, score normalization by the margin difference,
// per-group lambda normalization).  See ranking.h.
//
// One round's work is one task per query group; a group's pair loops are
// O(documents x k) and the largest group may hold most of the rows, so the
// loops count their pairs and stop early on a cancel (GroupRun, PairCheck
// below).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>

#include "gradients.h"
#include "../common/interruptible.h"
#include "lambdarank.h"
#include "lambdarank_topk.h"
#include "../common/thread_pool.h"

namespace gbdt {

namespace {

// Per-thread buffers of one group's computation.
struct Scratch {
  std::vector<uint32_t> rank;    // local index at each rank position
  std::vector<uint32_t> by_label;  // rank positions ordered by label, descending
  std::vector<double> g, h;      // local gradient sums
  std::vector<double> n_rel, acc;  // rank:map statistics by rank position
  // topk of rank:ndcg and rank:pairwise (lambdarank_topk.h): by rank position
  std::vector<float> ry;
  std::vector<double> rs, rgain, rg, rh;
  TopkPairs topk;
};

// Deterministic generator for the mean pair method.
struct PairRng {
  uint64_t s;
  uint64_t next() {
    s += 0x9E3779B97F4A7C15ULL;
    return mix64(s);
  }
  // Uniform in [0, n).
  size_t below(size_t n) { return (size_t)((next() >> 11) % (uint64_t)n); }
};

// Pairs formed between two cancel checks inside a group's loops.
constexpr size_t kPairBlock = 4096;

// A thread's cancel check inside the pair loops.  The calling thread asks
// the cancel callback through its CancelPoller; worker threads may not call
// it and look at the flag the calling thread raises instead.  Either
// throws Cancelled; the flag is read by both, so a failing worker stops the
// others too.
class PairCheck {
 public:
  PairCheck(CancelPoller* poller, const CancelFlag* flag) : poller_(poller), flag_(flag) {}
  void tick(uint64_t pairs) {
    done_ += pairs;
    if (done_ < CancelPoller::kDefaultUnitsPerPoll) return;
    done_ = 0;
    if (poller_ != nullptr) poller_->poll_now();
    if (flag_->raised()) throw Cancelled();
  }

 private:
  CancelPoller* poller_;
  const CancelFlag* flag_;
  uint64_t done_ = 0;
};

// The groups of one round handed out to the threads (the calling thread and
// the pool's workers), with the first error of any of them.  Every group
// claimed is counted done, computed or not, so the calling thread can wait
// for the workers' groups while it polls the cancel callback: the pool's own
// join waits without polling, and one group can take minutes.
class GroupRun {
 public:
  explicit GroupRun(size_t n_groups) : n_(n_groups) {}
  // The next group to compute; false when none is left.  After a failure
  // the groups left are claimed and counted without being computed.
  bool claim(size_t* g) {
    for (;;) {
      const size_t t = next_.fetch_add(1, std::memory_order_relaxed);
      if (t >= n_) return false;
      if (!flag_.raised()) {
        *g = t;
        return true;
      }
      finished();
    }
  }
  void finished() { done_.fetch_add(1, std::memory_order_release); }
  // Keeps the first error and stops the other threads (the flag).
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (!error_) error_ = e;
    }
    flag_.raise();
  }
  const CancelFlag& flag() const { return flag_; }
  // Calling thread, after its own groups: waits until every group is done,
  // polling the cancel callback (a cancel raises the flag, so the workers
  // stop at their next check).
  void wait(CancelPoller* poller) {
    for (int i = 0; done_.load(std::memory_order_acquire) < n_; ++i) {
      if (!flag_.raised()) {
        try {
          poller->poll_now();
        } catch (...) {
          fail(std::current_exception());
        }
      }
      // Yield for a while (a worker finishing a small group), then sleep.
      if (i < 1000)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  const size_t n_;
  std::atomic<size_t> next_{0}, done_{0};
  CancelFlag flag_;
  std::mutex mu_;
  std::exception_ptr error_;
};

}  // namespace

uint64_t rank_pairs_per_round(const QueryGroups& groups, const float* labels,
                              const RankParams& rp) {
  const uint64_t k = (uint64_t)std::max(rp.num_pair, 1);
  uint64_t total = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const uint64_t cnt = groups.ptr[g + 1] - groups.ptr[g];
    if (rp.topk) {
      // Each of the first `top` documents with every one below it.
      const uint64_t top = std::min(cnt, k);
      total += top * (cnt - 1) - top * (top - 1) / 2;
      continue;
    }
    // mean: k partners per document, when the group has another level.
    const uint32_t* rows = groups.rows.data() + groups.ptr[g];
    bool levels = false;
    for (uint64_t i = 1; i < cnt && !levels; ++i) levels = labels[rows[i]] != labels[rows[0]];
    if (levels) total += k * cnt;
  }
  return total;
}

namespace {

// Refuses a training whose rounds would form more than
// kMaxRankPairsPerRound pairs, naming the parameter that sets them.
void check_pair_budget(Objective obj, const RankParams& rp, const QueryGroups& groups,
                       const float* labels) {
  const uint64_t pairs = rank_pairs_per_round(groups, labels, rp);
  if (pairs <= kMaxRankPairsPerRound) return;
  size_t largest = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    largest = std::max(largest, (size_t)(groups.ptr[g + 1] - groups.ptr[g]));
  throw InvalidInput(
      std::string("objective ") + objective_name(obj) + ": one round would form " +
      std::to_string(pairs) + " document pairs (lambdarank_pair_method " +
      (rp.topk ? "topk" : "mean") + ", parameter \"lambdarank_num_pair_per_sample\" = " +
      std::to_string(rp.num_pair) + ", " + std::to_string(groups.size()) +
      (groups.size() == 1 ? " query group of " : " query groups, the largest of ") +
      std::to_string(largest) + " rows), more than the " +
      std::to_string(kMaxRankPairsPerRound) +
      " a round may form: lower lambdarank_num_pair_per_sample or split the largest query "
      "groups");
}

}  // namespace

struct LambdaRank::Impl {
  Objective obj;
  RankParams rp;
  QueryGroups groups;
  const float* labels;
  uint64_t seed;
  std::unique_ptr<ThreadPool> pool;
  std::vector<Scratch> scratch;
  std::vector<double> discount;  // 1 / log2(i + 2)
  std::vector<double> inv_idcg;  // per group (rank:ndcg)
  std::vector<double> scale;     // per group: w_g * G / sum(w) (empty: unweighted)

  double gain(float y) const { return rp.exp_gain ? std::ldexp(1.0, (int)y) - 1.0 : (double)y; }

  void group(size_t gi, int round, const float* margins, double* grad, double* hess, Scratch* s,
             PairCheck* check);
  double topk_rows(size_t gi, const float* margins, bool spread, Scratch* s, PairCheck* check);
};

LambdaRank::LambdaRank(Objective obj, const RankParams& rp, QueryGroups groups,
                       const float* labels, uint64_t seed, int nthread, const float* weights)
    : impl_(new Impl) {
  // The checks below may throw (the pair budget, the group weights); a
  // constructor that throws never runs its destructor, so the Impl is owned
  // here until the object is complete.
  std::unique_ptr<Impl> owner(impl_);
  Impl& m = *impl_;
  m.obj = obj;
  m.rp = rp;
  m.groups = std::move(groups);
  m.labels = labels;
  m.seed = seed;
  const size_t ng = m.groups.size();
  check_pair_budget(obj, rp, m.groups, labels);
  if (weights != nullptr) {
    // XGBoost 3.x: each group's gradients times its weight and the mean
    // group weight's inverse, G / sum(w).
    m.scale = rank_group_weights(m.groups, weights);
    double sum_w = 0;
    for (double w : m.scale) sum_w += w;
    if (!(sum_w > 0))
      throw InvalidInput("weight column: every query group weighs 0; at least one group needs a "
                         "weight > 0");
    const double w_norm = (double)ng / sum_w;
    for (double& w : m.scale) w *= w_norm;
  }
  size_t max_cnt = 0;
  for (size_t g = 0; g < ng; ++g)
    max_cnt = std::max(max_cnt, (size_t)(m.groups.ptr[g + 1] - m.groups.ptr[g]));
  m.discount.resize(max_cnt + 1);
  for (size_t i = 0; i < m.discount.size(); ++i) m.discount[i] = 1.0 / std::log2((double)i + 2.0);
  if (obj == Objective::kRankNDCG) {
    m.inv_idcg.resize(ng);
    std::vector<float> ys;
    for (size_t g = 0; g < ng; ++g) {
      ys.clear();
      for (uint32_t i = m.groups.ptr[g]; i < m.groups.ptr[g + 1]; ++i)
        ys.push_back(labels[m.groups.rows[i]]);
      std::sort(ys.begin(), ys.end(), [](float a, float b) { return a > b; });
      size_t k = rp.topk ? std::min(ys.size(), (size_t)rp.num_pair) : ys.size();
      double idcg = 0;
      for (size_t i = 0; i < k; ++i) idcg += m.gain(ys[i]) * m.discount[i];
      m.inv_idcg[g] = idcg == 0.0 ? 0.0 : 1.0 / idcg;
    }
  }
  int nt = std::max(1, nthread);
  if ((size_t)nt > ng) nt = (int)std::max<size_t>(1, ng);
  m.pool.reset(new ThreadPool(nt));
  m.scratch.resize((size_t)m.pool->size());
  owner.release();
}

LambdaRank::~LambdaRank() { delete impl_; }

void LambdaRank::gradients(int round, const float* margins, double* grad, double* hess,
                           const CancelFn& cancel) {
  Impl& m = *impl_;
  CancelPoller poller(cancel);
  poller.poll_now();
  GroupRun run(m.groups.size());
  // One thread's share: groups until none is left; an error (a cancel seen
  // at a check) is kept by `run` and stops the others.
  auto groups_of = [&](int tid, CancelPoller* p) {
    PairCheck check(p, &run.flag());
    for (size_t g; run.claim(&g);) {
      try {
        m.group(g, round, margins, grad, hess, &m.scratch[(size_t)tid], &check);
      } catch (...) {
        run.fail(std::current_exception());
      }
      run.finished();
    }
  };
  // The workers start on their share (threads 1 ..); the calling thread
  // computes groups itself (thread 0), then waits for the workers' groups
  // while it polls; finish() joins them (and runs a share no worker took,
  // which finds no group left).
  const std::function<void(size_t, int)> worker = [&](size_t, int tid) { groups_of(tid, nullptr); };
  const size_t workers = (size_t)m.pool->size() - 1;
  if (workers > 0) m.pool->start(workers, worker);
  groups_of(0, &poller);
  run.wait(&poller);
  if (workers > 0) m.pool->finish();
  run.rethrow();
}

void LambdaRank::Impl::group(size_t gi, int round, const float* margins, double* grad,
                             double* hess, Scratch* s, PairCheck* check) {
  const uint32_t* rows = groups.rows.data() + groups.ptr[gi];
  const size_t cnt = groups.ptr[gi + 1] - groups.ptr[gi];
  s->g.assign(cnt, 0.0);
  s->h.assign(cnt, 0.0);
  auto lab = [&](size_t local) { return labels[rows[local]]; };
  auto mar = [&](size_t local) { return margins[rows[local]]; };
  // The model's ranking: margins descending, ties in row order.
  s->rank.resize(cnt);
  std::iota(s->rank.begin(), s->rank.end(), 0u);
  std::stable_sort(s->rank.begin(), s->rank.end(),
                   [&](uint32_t a, uint32_t b) { return mar(a) > mar(b); });
  check->tick(cnt);
  const bool spread = cnt > 0 && mar(s->rank.front()) != mar(s->rank.back());

  if (obj == Objective::kRankMap) {
    s->n_rel.resize(cnt);
    s->acc.resize(cnt);
    double nr = 0, ac = 0;
    for (size_t k = 0; k < cnt; ++k) {
      const double y = lab(s->rank[k]);
      nr += y;
      ac += y / (double)(k + 1);
      s->n_rel[k] = nr;
      s->acc[k] = ac;
    }
  }

  // |change of the metric| when the documents at rank positions hi (the
  // more relevant one) and lo swap.
  auto delta = [&](float y_hi, float y_lo, size_t hi, size_t lo) -> double {
    switch (obj) {
      case Objective::kRankNDCG: {
        const double gh = gain(y_hi), gl = gain(y_lo);
        const double before = gh * discount[hi] + gl * discount[lo];
        const double after = gl * discount[hi] + gh * discount[lo];
        return (before - after) * inv_idcg[gi];
      }
      case Objective::kRankMap: {
        // Positions in ranked order (a above b); MAP of binary labels.
        size_t a = hi, b = lo;
        float ya = y_hi, yb = y_lo;
        if (a > b) {
          std::swap(a, b);
          std::swap(ya, yb);
        }
        const double ra = (double)a + 1.0, rb = (double)b + 1.0;
        const double total = s->n_rel[cnt - 1];
        if (!(total > 0)) return 0.0;
        const double nb = s->n_rel[b], na = s->n_rel[a];
        const double between = s->acc[b - 1] - s->acc[a];
        if (ya < yb) return ((nb / rb - (na + 1.0) / ra) - between) / total;
        return ((na / ra - nb / rb) + between) / total;
      }
      default:
        return 1.0;
    }
  };

  double sum_lambda = 0.0;
  auto pair = [&](size_t i, size_t j) {  // rank positions
    size_t hi = i, lo = j;
    float yh = lab(s->rank[hi]), yl = lab(s->rank[lo]);
    if (yh == yl) return;
    if (yh < yl) {
      std::swap(hi, lo);
      std::swap(yh, yl);
    }
    const uint32_t ih = s->rank[hi], il = s->rank[lo];
    const double sh = mar(ih), sl = mar(il);
    const double sig = det_sigmoid(sh - sl);
    double dm = std::fabs(delta(yh, yl, hi, lo));
    if (rp.score_normalization && spread) dm /= std::fabs(sh - sl) + 0.01;
    const double lam = (sig - 1.0) * dm;
    const double hes = std::max(sig * (1.0 - sig), 1e-16) * dm * 2.0;
    s->g[ih] += lam;
    s->h[ih] += hes;
    s->g[il] -= lam;
    s->h[il] += hes;
    sum_lambda += -2.0 * lam;
  };

  // The pairs in a fixed order (the gradient sums are order-sensitive),
  // counted for the cancel checks in blocks of kPairBlock.
  const size_t np = (size_t)rp.num_pair;
  if (rp.topk && obj != Objective::kRankMap) {
    sum_lambda = topk_rows(gi, margins, spread, s, check);
  } else if (rp.topk) {
    const size_t top = std::min(cnt, np);
    for (size_t i = 0; i < top; ++i)
      for (size_t j0 = i + 1; j0 < cnt; j0 += kPairBlock) {
        const size_t j1 = std::min(cnt, j0 + kPairBlock);
        for (size_t j = j0; j < j1; ++j) pair(i, j);
        check->tick(j1 - j0);
      }
  } else if (cnt > 1) {
    // Rank positions ordered by relevance (descending, stable): buckets of
    // equal labels; each document gets np partners outside its bucket.
    s->by_label.resize(cnt);
    std::iota(s->by_label.begin(), s->by_label.end(), 0u);
    std::stable_sort(s->by_label.begin(), s->by_label.end(), [&](uint32_t a, uint32_t b) {
      return lab(s->rank[a]) > lab(s->rank[b]);
    });
    check->tick(cnt);
    PairRng rng{mix64(mix64(seed ^ 0x52414E4B4C414D42ULL) ^ mix64((uint64_t)round + 1)) ^
                mix64((uint64_t)gi * 0xD1B54A32D192ED03ULL + 7)};
    for (size_t i = 0; i < cnt;) {
      size_t j = i + 1;
      const float yb = lab(s->rank[s->by_label[i]]);
      while (j < cnt && lab(s->rank[s->by_label[j]]) == yb) ++j;
      const size_t n_left = i, n_right = cnt - j;
      if (n_left + n_right > 0) {
        for (size_t rep = 0; rep < np; ++rep) {
          for (size_t p = i; p < j; ++p) {
            size_t r = rng.below(n_left + n_right);
            if (r >= n_left) r += j - i;
            pair(s->by_label[p], s->by_label[r]);
          }
          check->tick(j - i);
        }
      }
      i = j;
    }
  }

  double norm = 1.0;
  if (rp.normalization) {
    if (!rp.topk)
      norm = 1.0 / (double)np;
    else if (sum_lambda > 0.0)
      norm = std::log2(1.0 + sum_lambda) / sum_lambda;
  }
  for (size_t l = 0; l < cnt; ++l) {
    grad[rows[l]] = s->g[l] * norm;
    hess[rows[l]] = s->h[l] * norm;
  }
  if (!scale.empty()) {
    const double w = scale[gi];
    for (size_t l = 0; l < cnt; ++l) {
      grad[rows[l]] *= w;
      hess[rows[l]] *= w;
    }
  }
}

// topk pairs of rank:ndcg and rank:pairwise: the group's labels, margins
// and gains gathered by rank position, the rows' pairs by TopkPairs::block() in
// blocks of kPairBlock partners, the sums put back by local index into s->g
// and s->h (what the plain loop leaves there).  Returns sum_lambda.
double LambdaRank::Impl::topk_rows(size_t gi, const float* margins, bool spread, Scratch* s,
                                   PairCheck* check) {
  const uint32_t* rows = groups.rows.data() + groups.ptr[gi];
  const size_t cnt = groups.ptr[gi + 1] - groups.ptr[gi];
  const bool ndcg = obj == Objective::kRankNDCG;
  s->ry.resize(cnt);
  s->rs.resize(cnt);
  s->rgain.resize(ndcg ? cnt : 0);
  s->rg.assign(cnt, 0.0);
  s->rh.assign(cnt, 0.0);
  for (size_t k = 0; k < cnt; ++k) {
    const uint32_t row = rows[s->rank[k]];
    s->ry[k] = labels[row];
    s->rs[k] = margins[row];
    if (ndcg) s->rgain[k] = gain(labels[row]);
  }
  TopkGroup t;
  t.cnt = cnt;
  t.y = s->ry.data();
  t.s = s->rs.data();
  t.gain = ndcg ? s->rgain.data() : nullptr;
  t.disc = discount.data();
  t.inv_idcg = ndcg ? inv_idcg[gi] : 0.0;
  t.norm_by_diff = rp.score_normalization && spread;
  t.g = s->rg.data();
  t.h = s->rh.data();
  const size_t top = std::min(cnt, (size_t)rp.num_pair);
  s->topk.prepare(t, top);
  check->tick(cnt * s->topk.lists());
  double sum_lambda = 0.0;
  for (size_t i = 0; i < top; ++i)
    for (size_t j0 = i + 1; j0 < cnt; j0 += kPairBlock) {
      const size_t j1 = std::min(cnt, j0 + kPairBlock);
      sum_lambda = s->topk.block(i, j0, j1, sum_lambda);
      check->tick(j1 - j0);
    }
  for (size_t k = 0; k < cnt; ++k) {
    s->g[s->rank[k]] = s->rg[k];
    s->h[s->rank[k]] = s->rh[k];
  }
  return sum_lambda;
}

}  // namespace gbdt
