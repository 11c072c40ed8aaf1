#include "continue_training.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "../data/binned_matrix.h"
#include "../metric/metrics.h"
#include "multi_quantile.h"
#include "../objective/objective.h"
#include "../common/thread_pool.h"
#include "../data/category_values.h"
#include "../data/unseen_categories.h"

namespace gbdt {

namespace {

std::string fmt_alpha(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

// a single-quantile init model continues with its own quantile: a list
// of quantiles (several outputs) or another alpha is an InvalidInput.
void check_single_quantile(const Model& init, const TrainParams& p) {
  const std::vector<double> a = model_quantile_alphas(init);
  if (a.size() != 1)
    throw InvalidInput("parameter \"init_model\": its quantile_alpha list of " +
                       std::to_string(a.size()) + " quantiles does not match its 1 output");
  if (p.quantile_alphas.size() > 1)
    throw InvalidInput("parameter \"quantile_alpha\" lists " +
                       std::to_string(p.quantile_alphas.size()) +
                       " quantiles, but init_model predicts the one quantile " + fmt_alpha(a[0]) +
                       ": continue it with quantile_alpha = " + fmt_alpha(a[0]) +
                       " (or leave quantile_alpha out)");
  if (p.quantile_alpha != a[0])
    throw InvalidInput("parameter \"quantile_alpha\" = " + fmt_alpha(p.quantile_alpha) +
                       " differs from init_model's quantile " + fmt_alpha(a[0]));
}

}  // namespace

void check_validation_params(const TrainParams& p) {
  if (!p.validation_relation.empty() && p.validation_fraction > 0)
    throw InvalidInput("parameters \"validation_relation\" and \"validation_fraction\" both "
                       "choose the validation rows: give only one of them");
}

void check_init_model(const Model& init, const std::vector<std::string>& names, TrainParams* p) {
  const int d = init.n_features();
  if (init.cuts.n_features() != d || init.trees.empty())
    throw InvalidInput("parameter \"init_model\": the model has no bin boundaries or no trees "
                       "(an imported model?); continued training needs a model made by "
                       "gbdt_train");
  for (const std::string& f : init.feature_names)
    if (std::find(names.begin(), names.end(), f) == names.end())
      throw InvalidInput("feature column \"" + f + "\" of init_model is missing from the rows");
  if (names != init.feature_names)
    throw InvalidInput("parameter \"init_model\": the features must be the init model's, in "
                       "its order (" + std::to_string(d) + " columns), got " +
                       std::to_string(names.size()));
  if (p->objective_set && p->objective != init.objective)
    throw InvalidInput(std::string("parameter \"objective\" = \"") + objective_name(p->objective) +
                       "\" differs from the objective of init_model, \"" +
                       objective_name(init.objective) + "\"");
  p->objective = init.objective;
  p->objective_set = true;
  if (objective_info(init.objective).multiclass) {
    if (p->num_class != 0 && p->num_class != init.num_output_group)
      throw InvalidInput("parameter \"num_class\" = " + std::to_string(p->num_class) +
                         " differs from init_model's " + std::to_string(init.num_output_group));
    p->num_class = init.num_output_group;
  }
  // several quantiles continue with the init model's.
  if (init.objective == Objective::kQuantile && init.num_output_group > 1) {
    const std::vector<double> a = model_quantile_alphas(init);
    if (p->quantile_alphas.size() > 1 && p->quantile_alphas != a)
      throw InvalidInput("parameter \"quantile_alpha\" differs from init_model's list of " +
                         std::to_string(a.size()) + " quantiles");
    if ((int)a.size() != init.num_output_group)
      throw InvalidInput("parameter \"init_model\": its quantile_alpha list does not match its " +
                         std::to_string(init.num_output_group) + " outputs");
    p->quantile_alphas = a;
    p->quantile_alpha = a[0];
  }
  if (init.objective == Objective::kQuantile && init.num_output_group == 1)
    check_single_quantile(init, *p);
  // the rounds added grow as many parallel trees as the init model's.
  if (p->num_parallel_tree != 1 && p->num_parallel_tree != init.num_parallel_tree)
    throw InvalidInput("parameter \"num_parallel_tree\" = " + std::to_string(p->num_parallel_tree) +
                       " differs from init_model's " + std::to_string(init.num_parallel_tree));
  p->num_parallel_tree = init.num_parallel_tree;
  if (p->base_score_set)
    throw InvalidInput("parameter \"base_score\" cannot be given with init_model: the "
                       "continued model keeps the init model's base_score");
  for (const auto& kv : init.params)
    if (kv.first == "max_bin") p->max_bin = std::atoi(kv.second.c_str());
}

BinnedInput bin_with_cuts(const TrainInput& in, const Cuts& cuts, int nthread) {
  BinnedInput b;
  b.cuts = cuts;
  b.matrix = bin_matrix(in.features, cuts, nthread);
  b.labels.assign(in.labels, in.labels + in.features.n_rows);
  if (in.weights) b.weights.assign(in.weights, in.weights + in.features.n_rows);
  // Ranking's query groups and survival:aft's upper bounds, as bin_input().
  if (in.query_group) b.query_group.assign(in.query_group, in.query_group + in.features.n_rows);
  if (in.labels_upper) b.labels_upper.assign(in.labels_upper, in.labels_upper + in.features.n_rows);
  b.feature_names = in.feature_names;
  b.feature_types = in.feature_types;
  b.rows_skipped = in.rows_skipped;
  b.seconds_load = in.seconds_load;
  return b;
}

ValidationRows make_validation_rows(const ColumnInput& x, const float* labels, const Cuts& cuts,
                                    int nthread, bool keep_floats, const float* weights) {
  ValidationRows v;
  v.matrix = bin_matrix(x, cuts, nthread);
  v.labels.assign(labels, labels + x.n_rows);
  if (weights) v.weights.assign(weights, weights + x.n_rows);
  if (keep_floats) {
    const size_t d = x.columns.size();
    v.x.resize(x.n_rows * d);
    for (size_t r = 0; r < x.n_rows; ++r)
      for (size_t f = 0; f < d; ++f) v.x[r * d + f] = x.columns[f][r];
  }
  return v;
}

std::vector<float> init_model_margins(const Model& init, const ColumnInput& x, int nthread) {
  const size_t n = x.n_rows, d = x.columns.size();
  const int K = init.num_output_group;
  std::vector<float> out(n * (size_t)K);
  auto work = [&](size_t lo, size_t hi, int) {
    std::vector<float> row(d);
    const CategoryCodes codes(init);  // unseen categories missing, as in scoring
    for (size_t r = lo; r < hi; ++r) {
      for (size_t f = 0; f < d; ++f) row[f] = x.columns[f][r];
      codes.mark_missing(row.data(), 1, d);
      float* a = &out[r * K];
      for (int k = 0; k < K; ++k) a[k] = (float)init.base_margin[k];
      for (size_t t = 0; t < init.trees.size(); ++t)
        a[init.tree_group[t]] += init.trees[t].value[init.trees[t].leaf_of(row.data())];
    }
  };
  // Worker threads of the engine's pool (signals blocked, joined here).
  const int nt = (int)std::max<size_t>(1, std::min<size_t>((size_t)std::max(nthread, 1), n / 4096 + 1));
  if (nt == 1) {
    work(0, n, 0);
  } else {
    ThreadPool pool(nt);
    pool.run_blocks(n, work);
  }
  return out;
}

void init_model_validation(const Model& init, const ValidationRows& v,
                           const std::vector<std::string>& metrics, const ValidationMetricFn& metric,
                           std::vector<double>* margins, std::vector<double>* history) {
  const ObjectiveInfo& oi = objective_info(init.objective);
  const size_t n = v.matrix.n_rows;
  const int d = v.matrix.n_features, K = init.num_output_group;
  std::vector<int> missing_bin((size_t)d);
  for (int f = 0; f < d; ++f) missing_bin[f] = init.cuts.nbins(f);
  std::vector<float> acc(n * (size_t)K);
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < K; ++k) acc[i * K + k] = (float)init.base_margin[k];
  std::vector<double> pred(acc.size());
  const bool floats = !v.x.empty();
  // The floats with unseen categories missing, as in scoring (category_values.h).
  const CategoryCodes codes(init);
  std::vector<float> coded;
  const float* vx = v.x.data();
  if (floats && !codes.empty()) {
    coded = v.x;
    codes.mark_missing(coded.data(), n, (size_t)d);
    vx = coded.data();
  }
  const int rounds = init.num_rounds();
  for (int r = 0; r < rounds; ++r) {
    const int tpr = init.trees_per_round();  // K * num_parallel_tree
    for (int j = 0; j < tpr; ++j) {
      const size_t t = (size_t)r * tpr + j;
      const Tree& tr = init.trees[t];
      const int g = init.tree_group[t];
      for (size_t i = 0; i < n; ++i) {
        const int32_t leaf = floats ? tr.leaf_of(vx + i * (size_t)d)
                                    : v.matrix.leaf_of_row(tr, i, missing_bin.data());
        acc[i * K + g] += tr.value[leaf];
      }
    }
    pred.assign(acc.begin(), acc.end());
    // What the metrics see, as the training's rounds (trainer.cpp's eval_transform).
    for (size_t i = 0; i < n; ++i) {
      if (oi.eval_transform)
        oi.eval_transform(&pred[i * K], K);
      else
        transform_margins(init, &pred[i * K]);
    }
    for (const std::string& name : metrics) history->push_back(metric(name, pred.data()));
  }
  margins->assign(acc.begin(), acc.end());
}

Model continue_training(const TrainInput& in, const Model& init, TrainParams p,
                        const TrainHooks& hooks, const std::string& target_name,
                        const TrainInput* valid) {
  if (in.features.n_rows == 0) throw InvalidInput("no rows to train on");
  check_init_model(init, in.feature_names, &p);
  const int nthread = p.nthread > 0 ? p.nthread : default_nthread();
  BinnedInput b = bin_with_cuts(in, init.cuts, nthread);
  // categorical features keep the init model's dictionaries; a code it
  // has not seen counts as missing in the new rounds (unseen_categories.h).
  if (init.has_categorical()) {
    b.feature_types = init.feature_types;
    b.categories = init.categories;
    bin_unseen_categories_as_missing(init.categories, init.cuts, in.features, &b.matrix);
  }
  const std::vector<float> margins = init_model_margins(init, in.features, nthread);
  ValidationRows v;
  TrainExtras extras;
  extras.init_model = &init;
  extras.init_margins = &margins;
  if (valid != nullptr) {
    v = make_validation_rows(valid->features, valid->labels, init.cuts, nthread, true,
                             valid->weights);
    // Ranking's query groups and survival:aft's upper bounds of the rows.
    const size_t nv = valid->features.n_rows;
    if (valid->query_group) v.query_group.assign(valid->query_group, valid->query_group + nv);
    if (valid->labels_upper) v.labels_upper.assign(valid->labels_upper, valid->labels_upper + nv);
    extras.validation = &v;
  }
  return train_binned(std::move(b), p, hooks, target_name, extras);
}

}  // namespace gbdt
