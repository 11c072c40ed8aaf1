// GPU vs CPU backend benchmark of the gbdt engine (no PostgreSQL).
//
//   build/gpu_bench [--rows 1000000,10000000] [--features 28] [--rounds 500]
//                   [--depth 8] [--eta 0.1] [--max_bin 256] [--missing 0.02]
//                   [--backends cuda,cpu] [--cpu-max-rounds N] [--nthread N]
//                   [--dump DIR] [--json FILE] [--warmup] [--max-seconds S]
//
// For each size: generates a deterministic Higgs-like binary data set (the
// formula of ../shared/tools/gen_synth.py, with counter-based uniforms) with
// `rows` training rows plus rows/5 held-out rows, bins it once (timed:
// "binning"), then per backend runs the boosting loop on the TreeBackend
// directly so that phase_seconds() can be reported: transfer (host->device
// data and margins), gradients, histograms, split evaluation, partition,
// prediction update; total wall time of the boosting loop; held-out AUC.
// When both backends ran all rounds it also reports whether their models are
// byte-identical.
//
// --cpu-max-rounds N: the CPU backend runs only N rounds (its time is then
// also given scaled to --rounds, marked "extrapolated").
// --warmup: a small CUDA training first, outside the timings (context, first
// kernel loads).  --max-seconds S: each backend stops boosting after S
// seconds (the rounds run and seconds per round are reported), so a run fits
// a device lease.  The models are compared over the CPU's rounds (the first
// trees of the CUDA model against the CPU's model, byte for byte).
// --dump DIR: writes DIR/bench_<rows>.{train,test}.{x,y}.f32 (row-major
// float32, NaN = missing) for test/gpu/xgb_gpu_bench.py.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tree/tree_backend.h"
#include "data/binned_matrix.h"
#include "objective/gradients.h"
#include "metric/metrics.h"
#include "model/model.h"
#include "gbm/params.h"
#include "data/quantile.h"
#include "gbm/trainer.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double unif(uint64_t stream, uint64_t i) {
  return (double)(gbdt::mix64(gbdt::mix64(stream) ^ i) >> 11) * (1.0 / 9007199254740992.0);
}

struct Data {
  size_t n = 0;
  int d = 0;
  std::vector<std::vector<float>> cols;  // column-major
  std::vector<float> y;
};

// Higgs-like binary data (gen_synth.py's target function).  Rows [first,
// first + n) of an infinite deterministic sequence.
Data make_data(size_t first, size_t n, int d, double missing, uint64_t seed) {
  Data D;
  D.n = n;
  D.d = d;
  D.cols.assign((size_t)d, std::vector<float>(n));
  D.y.resize(n);
  std::vector<double> w((size_t)d * 8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = unif(seed, i) * 2.0 - 1.0;
  // Rows are independent draws: filled by threads in chunks (same values).
  auto fill = [&](size_t i0, size_t i1) {
  std::vector<double> x((size_t)d);
  for (size_t i = i0; i < i1; ++i) {
    const uint64_t r = first + i;
    for (int f = 0; f < d; ++f) {
      double u1 = unif(seed + 1 + 2 * (uint64_t)f, r), u2 = unif(seed + 2 + 2 * (uint64_t)f, r);
      double v = std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * M_PI * u2);
      if (f % 4 == 3) v = std::fabs(v) * 1.5;
      x[f] = v;
    }
    double z[8] = {0};
    for (int f = 0; f < d; ++f)
      for (int j = 0; j < 8; ++j) z[j] += x[f] * w[(size_t)f * 8 + j];
    double score = std::tanh(z[0]) + 0.5 * z[1] * z[2] - 0.3 * std::fabs(z[3]) +
                   0.2 * std::sin(3.0 * z[4]) + 0.1 * z[5] * z[5] - 0.1;
    double prob = 1.0 / (1.0 + std::exp(-1.5 * score));
    D.y[i] = unif(seed ^ 0x7A6E1ULL, r) < prob ? 1.0f : 0.0f;
    for (int f = 0; f < d; ++f) {
      float v = (float)x[f];
      if (missing > 0 && unif(seed ^ (0xA11CEULL + (uint64_t)f), r) < missing) v = NAN;
      D.cols[f][i] = v;
    }
  }
  };
  const size_t nt = std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), n / 65536 + 1));
  std::vector<std::thread> th;
  for (size_t t = 0; t < nt; ++t) th.emplace_back(fill, n * t / nt, n * (t + 1) / nt);
  for (auto& t : th) t.join();
  return D;
}

void dump(const Data& D, const std::string& path_prefix) {
  std::vector<float> x(D.n * (size_t)D.d);
  for (size_t r = 0; r < D.n; ++r)
    for (int f = 0; f < D.d; ++f) x[r * D.d + f] = D.cols[f][r];
  std::ofstream ox(path_prefix + ".x.f32", std::ios::binary);
  ox.write((const char*)x.data(), (std::streamsize)(x.size() * sizeof(float)));
  std::ofstream oy(path_prefix + ".y.f32", std::ios::binary);
  oy.write((const char*)D.y.data(), (std::streamsize)(D.y.size() * sizeof(float)));
  if (!ox || !oy) throw std::runtime_error("cannot write " + path_prefix + ".*.f32");
}

std::vector<std::string> split_csv(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

struct Result {
  std::string backend;
  int rounds = 0;           // rounds run (fewer than asked when --max-seconds stopped it)
  double seconds = 0;       // boosting loop incl. init (transfer)
  double auc = NAN;
  std::vector<std::pair<std::string, double>> phases;
  std::vector<uint8_t> model_bytes;
  gbdt::Model model;
  std::string error;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {1000000, 10000000};
  int d = 28, rounds = 500, depth = 8, max_bin = 256, cpu_max_rounds = 0, nthread = 0;
  double eta = 0.1, missing = 0.02, max_seconds = 0;
  bool warmup = false;
  std::vector<std::string> backends = {"cuda", "cpu"};
  std::string dump_dir, json_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "gpu_bench: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--rows") {
      sizes.clear();
      for (auto& s : split_csv(next())) sizes.push_back((size_t)std::stoull(s));
    } else if (a == "--features") d = std::stoi(next());
    else if (a == "--rounds") rounds = std::stoi(next());
    else if (a == "--depth") depth = std::stoi(next());
    else if (a == "--eta") eta = std::stod(next());
    else if (a == "--max_bin") max_bin = std::stoi(next());
    else if (a == "--missing") missing = std::stod(next());
    else if (a == "--backends") backends = split_csv(next());
    else if (a == "--cpu-max-rounds") cpu_max_rounds = std::stoi(next());
    else if (a == "--nthread") nthread = std::stoi(next());
    else if (a == "--dump") dump_dir = next();
    else if (a == "--max-seconds") max_seconds = std::stod(next());
    else if (a == "--warmup") warmup = true;
    else if (a == "--json") json_path = next();
    else {
      std::cerr << "gpu_bench: unknown argument " << a << " (see the header of test/gpu/gpu_bench.cpp)\n";
      return 2;
    }
  }
  if (nthread <= 0) nthread = gbdt::default_nthread();
  std::cout << "gpu_bench: cuda " << gbdt::cuda_build_info_json() << "\n";
  for (const std::string& b : backends)
    if (b == "cuda" && gbdt::cuda_device_count() == 0) {
      std::cout << "gpu_bench: no usable CUDA device; SKIPPED\n";
      return 77;
    }
  // --warmup: the CUDA context, the kernels' first loads and the allocator
  // are set up on a small training outside the timings.
  if (warmup)
    for (const std::string& b : backends)
      if (b == "cuda") {
        auto tw = Clock::now();
        Data w = make_data(0, 4096, d, missing, 7);
        gbdt::ColumnInput ci;
        ci.n_rows = w.n;
        for (auto& c : w.cols) ci.columns.push_back(c.data());
        gbdt::Cuts cuts = gbdt::compute_cuts(ci, max_bin, nthread);
        gbdt::BinnedMatrix bm = gbdt::bin_matrix(ci, cuts, nthread);
        gbdt::BoostData bd;
        bd.matrix = &bm;
        bd.cuts = &cuts;
        bd.labels = w.y.data();
        bd.n_rows = w.n;
        bd.objective = gbdt::Objective::kLogistic;
        bd.split = gbdt::SplitParams{1.0, 0.0, 0.0, 1.0, 0.0, eta};
        bd.max_depth = depth;
        bd.nthread = nthread;
        auto be = gbdt::make_cuda_backend(bd);
        be->init(bd, std::vector<float>(w.n, 0.0f));
        std::vector<uint8_t> mask((size_t)d, 1);
        for (int r = 0; r < 3; ++r) {
          std::vector<gbdt::Tree> t;
          be->boost_round(r, mask, &t);
        }
        std::vector<float> mg;
        be->margins(&mg);
        std::printf("warm-up (CUDA context, 3 rounds on 4096 rows): %.3f s\n", since(tw));
      }
  std::ostringstream js;
  js << "[";
  bool first_json = true;
  for (size_t n : sizes) {
    std::cout << "\n== " << n << " training rows x " << d << " features (+" << n / 5
              << " held out), binary:logistic, " << rounds << " rounds, depth " << depth
              << ", eta " << eta << ", max_bin " << max_bin << ", missing " << missing
              << ", nthread " << nthread << " ==\n";
    auto tg = Clock::now();
    Data tr = make_data(0, n, d, missing, 42);
    Data te = make_data(n, n / 5 ? n / 5 : 1, d, missing, 42);
    std::cout << "data generated in " << since(tg) << " s\n";
    if (!dump_dir.empty()) {
      std::string pre = dump_dir + "/bench_" + std::to_string(n);
      dump(tr, pre + ".train");
      dump(te, pre + ".test");
      std::cout << "data written to " << pre << ".{train,test}.{x,y}.f32\n";
    }
    // Binning (once, shared by both backends: the trainer's path).
    auto tb = Clock::now();
    gbdt::ColumnInput ci;
    ci.n_rows = n;
    for (auto& c : tr.cols) ci.columns.push_back(c.data());
    gbdt::Cuts cuts = gbdt::compute_cuts(ci, max_bin, nthread);
    gbdt::BinnedMatrix bm = gbdt::bin_matrix(ci, cuts, nthread);
    double t_bin = since(tb);
    std::cout << "binning (CPU, shared by both backends): " << t_bin << " s\n";

    double mean = 0;
    for (float v : tr.y) mean += v;
    mean /= (double)n;
    mean = std::min(std::max(mean, 1e-6), 1 - 1e-6);
    const double base = std::log(mean / (1 - mean));

    gbdt::BoostData bd;
    bd.matrix = &bm;
    bd.cuts = &cuts;
    bd.labels = tr.y.data();
    bd.n_rows = n;
    bd.num_group = 1;
    bd.objective = gbdt::Objective::kLogistic;
    bd.split = gbdt::SplitParams{1.0, 0.0, 0.0, 1.0, 0.0, eta};
    bd.max_depth = depth;
    bd.nthread = nthread;

    std::vector<float> xte(te.n * (size_t)d);
    for (size_t r = 0; r < te.n; ++r)
      for (int f = 0; f < d; ++f) xte[r * d + f] = te.cols[f][r];

    std::vector<Result> results;
    for (const std::string& b : backends) {
      Result res;
      res.backend = b;
      res.rounds = (b == "cpu" && cpu_max_rounds > 0) ? std::min(rounds, cpu_max_rounds) : rounds;
      try {
        auto t0 = Clock::now();
        std::unique_ptr<gbdt::TreeBackend> be =
            b == "cuda" ? gbdt::make_cuda_backend(bd) : gbdt::make_cpu_backend();
        std::vector<float> margins(n, (float)base);
        be->init(bd, margins);
        gbdt::Model m;
        m.objective = gbdt::Objective::kLogistic;
        m.num_output_group = 1;
        m.base_margin = {base};
        m.base_score = mean;
        m.cuts = cuts;
        for (int f = 0; f < d; ++f) m.feature_names.push_back("f" + std::to_string(f));
        m.feature_types.assign((size_t)d, gbdt::FeatureType::kFloat);
        m.class_labels = {0.0, 1.0};
        std::vector<uint8_t> mask((size_t)d, 1);
        const int asked = res.rounds;
        for (int r = 0; r < asked; ++r) {
          if (max_seconds > 0 && r > 0 && since(t0) > max_seconds) {
            res.rounds = r;  // stopped by --max-seconds: seconds per round stays valid
            break;
          }
          std::vector<gbdt::Tree> trees;
          be->boost_round(r, mask, &trees);
          for (auto& t : trees) {
            for (int32_t i = 0; i < t.num_nodes(); ++i)
              if (!t.is_leaf(i)) t.threshold[i] = cuts.values[cuts.ptr[t.feature[i]] + t.split_bin[i]];
            m.trees.push_back(std::move(t));
            m.tree_group.push_back(0);
          }
        }
        be->margins(&margins);  // includes the device->host copy
        res.seconds = since(t0);
        res.phases = be->phase_seconds();
        std::vector<double> pred(te.n);
        gbdt::predict_batch(m, xte.data(), te.n, pred.data(), nthread);
        res.auc = gbdt::compute_metric("auc", m.objective, 1, pred.data(), te.y.data(), te.n);
        res.model_bytes = gbdt::serialize_model(m);
        res.model = std::move(m);
      } catch (const std::exception& e) {
        res.error = e.what();
      }
      results.push_back(res);
      std::printf("%-5s ", b.c_str());
      if (!res.error.empty()) {
        std::printf("ERROR: %s\n", res.error.c_str());
        continue;
      }
      std::printf("%4d rounds  %9.3f s", res.rounds, res.seconds);
      if (res.rounds < rounds)
        std::printf("  (%.3f s extrapolated to %d rounds)", res.seconds * rounds / res.rounds, rounds);
      std::printf("  held-out AUC %.6f\n", res.auc);
      for (auto& ph : res.phases) std::printf("        %-18s %9.3f s\n", ph.first.c_str(), ph.second);
    }
    const Result* rc = nullptr;
    const Result* rg = nullptr;
    int models_equal = -1, equal_rounds = 0;  // -1: not compared
    for (auto& r : results) {
      if (r.backend == "cpu" && r.error.empty()) rc = &r;
      if (r.backend == "cuda" && r.error.empty()) rg = &r;
    }
    if (rc && rg) {
      std::printf("speedup cuda vs cpu backend (seconds per round): %.2fx\n",
                  (rc->seconds / std::max(1, rc->rounds)) / (rg->seconds / std::max(1, rg->rounds)));
      // The models over the rounds both ran (the CPU may run fewer:
      // --cpu-max-rounds; either may be stopped by --max-seconds).
      equal_rounds = std::min(rc->rounds, rg->rounds);
      auto prefix = [equal_rounds](gbdt::Model m) {
        m.trees.resize((size_t)equal_rounds);
        m.tree_group.resize((size_t)equal_rounds);
        return gbdt::serialize_model(m);
      };
      models_equal = prefix(rg->model) == prefix(rc->model) ? 1 : 0;
      std::printf("models byte-identical over the first %d rounds: %s\n", equal_rounds,
                  models_equal ? "yes" : "NO");
    }
    for (auto& r : results) {
      js << (first_json ? "" : ",") << "\n  {\"rows\": " << n << ", \"features\": " << d
         << ", \"backend\": \"" << r.backend << "\", \"rounds\": " << r.rounds
         << ", \"depth\": " << depth << ", \"binning_s\": " << t_bin;
      if (r.error.empty()) {
        js << ", \"seconds\": " << r.seconds << ", \"seconds_per_round\": "
           << (r.rounds ? r.seconds / r.rounds : 0.0) << ", \"auc\": " << r.auc
           << ", \"models_equal\": " << models_equal << ", \"equal_rounds\": " << equal_rounds
           << ", \"phases\": {";
        for (size_t i = 0; i < r.phases.size(); ++i)
          js << (i ? ", " : "") << "\"" << r.phases[i].first << "\": " << r.phases[i].second;
        js << "}";
      } else {
        js << ", \"error\": \"" << r.error << "\"";
      }
      js << "}";
      first_json = false;
    }
  }
  js << "\n]\n";
  if (!json_path.empty()) {
    std::ofstream o(json_path);
    o << js.str();
  } else {
    std::cout << "\n" << js.str();
  }
  return 0;
}
