// Seed corpus generator for the fuzz targets: real models trained by the
// engine (every objective, missing values, a +Infinity last cut), written as
//   <out>/model_decoder/<name>.bin     flag byte 1 (reseal) + model bytes
//   <out>/model_decoder/<name>.raw     flag byte 0 + model bytes (checksum intact)
//   <out>/model_decoder/<name>.txt     flag byte 2 + text form
//   <out>/xgb_json/<name>.json         the model exported as XGBoost JSON
//   usage: gen_seeds OUTDIR
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "model/model.h"
#include "gbm/params.h"
#include "gbm/trainer.h"
#include "model/xgb_json.h"

using namespace gbdt;

namespace {

void write(const std::string& path, uint8_t flag, const std::string& body, bool with_flag) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  if (with_flag) std::fputc(flag, f);
  std::fwrite(body.data(), 1, body.size(), f);
  std::fclose(f);
}

Model train(Objective obj, int rounds, int depth, int d, int n, bool inf_max) {
  std::vector<std::vector<float>> cols((size_t)d, std::vector<float>((size_t)n));
  std::vector<float> y((size_t)n);
  uint64_t s = 12345;
  auto rnd = [&] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(s >> 11) / 9007199254740992.0;
  };
  for (int r = 0; r < n; ++r) {
    double z = 0;
    for (int f = 0; f < d; ++f) {
      float v = (float)(rnd() * 4 - 2);
      if (rnd() < 0.1) v = NAN;
      cols[f][r] = v;
      if (v == v) z += (f + 1) * v;
    }
    if (inf_max && r == 0) cols[0][r] = 3.4028235e38f;  // last cut of feature 0: +Infinity
    switch (obj) {
      case Objective::kLogistic: y[r] = z > 0 ? 1.0f : 0.0f; break;
      case Objective::kSoftprob: y[r] = (float)(((int)std::fabs(z * 2)) % 3); break;
      case Objective::kPoisson: y[r] = (float)std::floor(std::exp(0.3 * z)); break;
      default: y[r] = (float)z;
    }
  }
  TrainInput in;
  in.features.n_rows = (size_t)n;
  for (const auto& c : cols) in.features.columns.push_back(c.data());
  in.labels = y.data();
  for (int f = 0; f < d; ++f) in.feature_names.push_back("x" + std::to_string(f));
  in.feature_types.assign((size_t)d, FeatureType::kFloat);
  TrainParams p;
  p.objective = obj;
  p.objective_set = true;
  p.num_round = rounds;
  p.max_depth = depth;
  p.max_bin = 16;
  p.nthread = 1;
  TrainHooks hooks;
  hooks.default_device = "cpu";
  return train_model(in, p, hooks, "label");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gen_seeds OUTDIR\n");
    return 2;
  }
  const std::string out = argv[1];
  struct Spec {
    const char* name;
    Objective obj;
    int rounds, depth, d, n;
    bool inf_max;
  } specs[] = {
      {"reg", Objective::kSquaredError, 3, 3, 3, 200, false},
      {"bin", Objective::kLogistic, 2, 2, 2, 100, false},
      {"multi", Objective::kSoftprob, 2, 2, 3, 150, false},
      {"poisson", Objective::kPoisson, 2, 3, 2, 100, false},
      {"infcut", Objective::kSquaredError, 1, 2, 2, 60, true},
  };
  for (const Spec& s : specs) {
    Model m = train(s.obj, s.rounds, s.depth, s.d, s.n, s.inf_max);
    std::vector<uint8_t> b = serialize_model(m);
    std::string bytes(b.begin(), b.end());
    write(out + "/model_decoder/" + s.name + ".bin", 1, bytes, true);
    write(out + "/model_decoder/" + s.name + ".raw", 0, bytes, true);
    write(out + "/model_decoder/" + s.name + ".txt", 2, model_to_text(m), true);
    try {
      write(out + "/xgb_json/" + s.name + ".json", 0, export_xgboost_json(m), false);
    } catch (const InvalidInput&) {
      // +Infinity cut used as a threshold: no JSON form.
    }
  }
  std::printf("gen_seeds: %zu models written to %s\n", sizeof(specs) / sizeof(specs[0]), out.c_str());
  return 0;
}
