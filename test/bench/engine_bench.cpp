// Engine-only training/evaluation on a data file (no PostgreSQL):
//   engine_bench FILE [key=value ...] [test_every=5] [model_out=PATH] [cat=F,F,...]
// FILE: CSV (header label,f0,...), headerless TSV (label first) or a float32
// .npy matrix [label, features...].  Rows with index % test_every ==
// test_every-1 are held out (0 = none).  model_out: writes the serialized
// model with the report's timings zeroed (byte-comparable across runs).
// cat: 0-based feature indices to train as categorical (values are codes
// 0..n-1, n = the largest code + 1; NaN = missing).
// Prints JSON with timings, peak RSS during training and held-out metrics.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "tree/tree_backend.h"
#include "data_file.h"
#include "predictor/explain.h"
#include "metric/metrics.h"
#include "model/model.h"
#include "gbm/trainer.h"

// Peak resident set (VmHWM, kB) and its reset (Linux >= 4.0).
static long vm_hwm_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.compare(0, 6, "VmHWM:") == 0) return std::atol(line.c_str() + 6);
  return -1;
}
static void reset_hwm() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: engine_bench FILE [param=value ...]\n";
    return 2;
  }
  try {
    auto t0 = std::chrono::steady_clock::now();
    DataFile df = read_data_file(argv[1]);
    double t_read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<gbdt::ParamKV> kvs;
    int test_every = 5;
    std::string model_out;
    std::vector<int> cat_cols;
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      size_t eq = a.find('=');
      if (eq == std::string::npos) throw std::runtime_error("bad argument " + a);
      std::string k = a.substr(0, eq), v = a.substr(eq + 1);
      if (k == "test_every") test_every = std::stoi(v);
      else if (k == "model_out") model_out = v;
      else if (k == "cat") {
        for (size_t a = 0; a < v.size();) {
          size_t z = v.find(',', a);
          if (z == std::string::npos) z = v.size();
          cat_cols.push_back(std::stoi(v.substr(a, z - a)));
          a = z + 1;
        }
      }
      else kvs.push_back({k, v, false});
    }
    gbdt::TrainParams p;
    gbdt::apply_params(kvs, &p);
    const size_t n = df.rows();
    const int d = (int)df.cols.size();
    std::vector<std::vector<float>> tr(d), te(d);
    std::vector<float> ytr, yte;
    for (size_t r = 0; r < n; ++r) {
      bool test = test_every > 0 && (r % test_every) == (size_t)(test_every - 1);
      (test ? yte : ytr).push_back(df.labels[r]);
      for (int f = 0; f < d; ++f) (test ? te : tr)[f].push_back(df.cols[f][r]);
    }
    df.cols.clear();
    gbdt::TrainInput in;
    in.features.n_rows = ytr.size();
    for (int f = 0; f < d; ++f) in.features.columns.push_back(tr[f].data());
    in.labels = ytr.data();
    in.feature_names = df.names;
    if (!cat_cols.empty()) {
      in.feature_types.assign((size_t)d, gbdt::FeatureType::kFloat);
      in.categories.assign((size_t)d, {});
      for (int f : cat_cols) {
        if (f < 0 || f >= d) throw std::runtime_error("cat: no feature " + std::to_string(f));
        float mx = -1;
        for (float x : tr[f]) if (x > mx) mx = x;
        for (float x : te[f]) if (x > mx) mx = x;
        in.feature_types[f] = gbdt::FeatureType::kCategorical;
        for (int c = 0; c <= (int)mx; ++c) in.categories[f].push_back(std::to_string(c));
      }
    }
    gbdt::TrainHooks hooks;
    hooks.default_device = "cpu";
    long rss_before_kb = vm_hwm_kb();
    reset_hwm();
    rss_before_kb = vm_hwm_kb();
    auto t1 = std::chrono::steady_clock::now();
    gbdt::Model m = gbdt::train_model(in, p, hooks);
    double t_train = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    long rss_peak_kb = vm_hwm_kb();
    if (!model_out.empty()) {
      gbdt::Model c = m;
      c.report.seconds_load = c.report.seconds_bin = c.report.seconds_train = 0;
      std::vector<uint8_t> bytes = gbdt::serialize_model(c);
      std::ofstream o(model_out, std::ios::binary);
      o.write((const char*)bytes.data(), (std::streamsize)bytes.size());
      if (!o) throw std::runtime_error("cannot write " + model_out);
    }
    std::cout << "{\"rows_train\": " << ytr.size() << ", \"rows_test\": " << yte.size()
              << ", \"read_s\": " << t_read << ", \"train_s\": " << t_train
              << ", \"bin_s\": " << m.report.seconds_bin << ", \"boost_s\": " << m.report.seconds_train
              << ", \"backend\": \"" << m.report.backend << "\""
              << ", \"rss_input_kb\": " << rss_before_kb << ", \"rss_peak_kb\": " << rss_peak_kb;
    if (!yte.empty()) {
      const int K = m.num_output_group;
      std::vector<float> x(yte.size() * d);
      for (size_t r = 0; r < yte.size(); ++r)
        for (int f = 0; f < d; ++f) x[r * d + f] = te[f][r];
      std::vector<double> pred(yte.size() * K);
      auto tp = std::chrono::steady_clock::now();
      gbdt::predict_batch(m, x.data(), yte.size(), pred.data(), p.nthread > 0 ? p.nthread : gbdt::default_nthread());
      double t_pred = std::chrono::duration<double>(std::chrono::steady_clock::now() - tp).count();
      std::cout << ", \"predict_rows_per_s\": " << (double)yte.size() / t_pred;
      // The batch path must give the very bits of the one-row path.
      size_t mismatch = 0;
      std::vector<double> one((size_t)K);
      auto t1r = std::chrono::steady_clock::now();
      for (size_t r = 0; r < yte.size(); ++r) {
        gbdt::predict_margin_row(m, &x[r * d], one.data());
        gbdt::transform_margins(m, one.data());
        if (std::memcmp(one.data(), &pred[r * K], sizeof(double) * K) != 0) ++mismatch;
      }
      double t_row = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1r).count();
      std::cout << ", \"predict_one_row_rows_per_s\": " << (double)yte.size() / t_row;
      std::cout << ", \"predict_mismatch\": " << mismatch;
      for (auto& kv : gbdt::evaluate_all(m.objective, K, pred.data(), yte.data(), yte.size()))
        std::cout << ", \"test_" << kv.first << "\": " << gbdt::json_number(kv.second);
    }
    std::cout << "}" << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
