// Training across servers, measured in one process (make bench runs it):
// 2 to 4 shards of a synthetic table behind the in-process loopback link
// (test/unit/distributed/loopback_link.h), against one server's training on
// the same rows, in one run on this machine.  Reports, per shard count:
//  - the bytes the coordinator received per tree (histograms and gradient
//    maxima) and per level, against the histogram bound (nodes built x
//    features x bins x 16 B per shard) and against the rows' size (what
//    reading every row through the coordinator moves: 4 B per value);
//  - the time ratio distributed / one server.  The shards run one after
//    another here (one process), so the ratio is the protocol's overhead
//    on the same work, not the speed-up of shards on their own machines.
// Also checks that every distributed model's bytes equal one server's.
//   build/distributed_bench [rows=1000000] [features=28] [rounds=20] [nthread=2]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../unit/distributed/loopback_link.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<uint8_t> bytes_of(gbdt::Model m) {
  m.report.seconds_load = m.report.seconds_bin = m.report.seconds_train = 0;
  return gbdt::serialize_model(m);
}

long arg(int argc, char** argv, const char* key, long def) {
  const size_t k = std::strlen(key);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], key, k) == 0 && argv[i][k] == '=') return std::atol(argv[i] + k + 1);
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = (size_t)arg(argc, argv, "rows", 1000000);
  const int d = (int)arg(argc, argv, "features", 28);
  const int rounds = (int)arg(argc, argv, "rounds", 20);
  const int nthread = (int)arg(argc, argv, "nthread", 2);
  const gbdt_test::Data D = gbdt_test::make_data(n, d, gbdt_test::Task::kBinary, 0.05, 21);
  gbdt::TrainParams p = gbdt_test::params_for(gbdt_test::Task::kBinary, rounds, nthread);
  p.eta = 0.1;
  p.max_depth = 6;

  auto t0 = std::chrono::steady_clock::now();
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  const gbdt::Model local = gbdt::train_model(D.input(), p, hooks, "label");
  const double t_local = seconds_since(t0);
  const std::vector<uint8_t> want = bytes_of(local);
  const double row_bytes = (double)n * (d + 1) * 4.0;
  size_t nodes_built = 0;  // histograms one shard builds per tree: root + one child per split
  for (const gbdt::Tree& t : local.trees) nodes_built += 1 + (size_t)(t.num_nodes() - 1) / 2;
  const double per_tree_nodes = (double)nodes_built / (double)local.trees.size();
  const double bins = (double)local.cuts.total_hist_bins();

  std::printf("# training across servers, in one process: %zu rows x %d features, %d rounds, depth 6, "
              "nthread %d\n",
              n, d, rounds, nthread);
  std::printf("one server: %.2f s; rows' size %.1f MiB\n\n", t_local, row_bytes / 1048576.0);
  std::printf("| shards | time / one server | MiB received per tree | per level | histogram bound per tree | "
              "per tree / rows' size | same bytes |\n|---|---|---|---|---|---|---|\n");
  int bad = 0;
  for (int S = 2; S <= 4; ++S) {
    std::vector<size_t> bounds;
    for (int s = 0; s <= S; ++s) bounds.push_back(n * (size_t)s / (size_t)S);
    gbdt::ShardTraffic traffic;
    t0 = std::chrono::steady_clock::now();
    const gbdt::Model m = gbdt_test::train_shards(D, p, bounds, nullptr, &traffic);
    const double t = seconds_since(t0);
    const bool same = bytes_of(m) == want;
    bad += !same;
    const double trees = (double)m.trees.size();
    const double per_tree = (double)traffic.bytes_trees / trees;
    const double bound = per_tree_nodes * bins * 16.0 * S;
    std::printf("| %d | %.2f | %.3f | %.3f | %.3f | %.5f | %s |\n", S, t / t_local, per_tree / 1048576.0,
                per_tree / 1048576.0 / (p.max_depth + 1), bound / 1048576.0, per_tree / row_bytes,
                same ? "yes" : "NO");
  }
  return bad ? 1 : 0;
}
