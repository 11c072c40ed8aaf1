// Pooled metrics of a partitioned model's evaluation (partition_pool.h).
// Everything here is PostgreSQL-zone code over palloc'd arrays; the
// metrics themselves are eval_metrics_json's, run through run_engine.
#include "score/partition_pool.h"

#include <cstring>

#include "convert.h"

#include "gbdt/train.h"

namespace gbdt_pg {

enum class PoolKind : uint8_t { kConcat, kUnion, kNone };

struct PartitionPool {
  PoolKind kind;
  const char* refusal;
  const gbdt::Model* const* models;
  int n;
  const char* objective;  // the union's objective name (null: the first model's)
  EvalRows rows;          // the pooled rows (concat) or sums (union)
  size_t cap;             // concat: rows that rows.labels / rows.preds hold
  // union: the classes seen so far, each as class class_index[u] of
  // class_model[u] (same_class compares them)
  const gbdt::Model** class_model;
  int* class_index;
  int nclasses;
  int classes_cap;
};

namespace {

bool is_union_objective(gbdt::Objective o) {
  return o == gbdt::Objective::kLogistic || gbdt::objective_info(o).multiclass;
}

// Classes of classifier m: K of a multiclass model, 2 of a binary one.
int class_count(const gbdt::Model* m) {
  return gbdt::objective_info(m->objective).multiclass ? m->num_output_group : 2;
}

// The label value of class k of classifier m (a model of labels 0 .. K-1
// without stored values: k).
double class_value(const gbdt::Model* m, int k) {
  return k < (int)m->class_labels.size() ? m->class_labels[k] : (double)k;
}

// Whether class i of classifier a is class j of classifier b: the same name
// (models of class names) or label value.
bool same_class(const gbdt::Model* a, int i, const gbdt::Model* b, int j) {
  if (a->class_names.empty() != b->class_names.empty()) return false;
  if (!a->class_names.empty()) return a->class_names[i] == b->class_names[j];
  return class_value(a, i) == class_value(b, j);
}

// "[a, b]": the classes of m, for a refusal.
char* class_list(const gbdt::Model* m) {
  StringInfoData s;
  initStringInfo(&s);
  appendStringInfoChar(&s, '[');
  for (int k = 0; k < class_count(m); k++) {
    if (k) appendStringInfoString(&s, ", ");
    if (!m->class_names.empty())
      appendStringInfoString(&s, model_to_server_string(m->class_names[k].c_str()));
    else
      appendStringInfo(&s, "%g", class_value(m, k));
  }
  appendStringInfoChar(&s, ']');
  return s.data;
}

bool same_classes(const gbdt::Model* a, const gbdt::Model* b) {
  if (class_count(a) != class_count(b)) return false;
  for (int k = 0; k < class_count(a); k++)
    if (!same_class(a, k, b, k)) return false;
  return true;
}

// How models pool (partition_pool.h), and why not when they do not.
PoolKind pool_kind(const gbdt::Model* const* models, const char* const* names, int n, const char** refusal,
                   const char** objective) {
  const gbdt::Model* m0 = models[0];
  const gbdt::ObjectiveInfo& oi0 = gbdt::objective_info(m0->objective);
  bool same_objective = true, union_ok = is_union_objective(m0->objective), classes_differ = false;
  int other = -1;
  for (int i = 1; i < n; i++) {
    if ((i & 1023) == 0) CHECK_FOR_INTERRUPTS();
    const gbdt::Model* m = models[i];
    if (m->objective != m0->objective || m->num_output_group != m0->num_output_group) {
      same_objective = false;
      if (other < 0) other = i;
    }
    union_ok = union_ok && is_union_objective(m->objective);
    if ((oi0.binary || oi0.multiclass) && !classes_differ && !same_classes(m, m0)) {
      classes_differ = true;
      if (other < 0) other = i;
    }
  }
  if (same_objective && !oi0.multiclass && !(oi0.binary && classes_differ)) return PoolKind::kConcat;
  if (union_ok) {
    if (!same_objective || !oi0.multiclass) *objective = "multi:softprob";
    return PoolKind::kUnion;
  }
  const gbdt::Model* mo = models[other];
  if (!same_objective)
    *refusal = psprintf("the models predict differently: %s is %s with %d outputs, %s is %s with %d outputs", names[0],
                        gbdt::objective_name(m0->objective), m0->num_output_group, names[other],
                        gbdt::objective_name(mo->objective), mo->num_output_group);
  else
    *refusal = psprintf("the %s models were trained on different classes: %s has %s, %s has %s",
                        gbdt::objective_name(m0->objective), names[0], class_list(m0), names[other], class_list(mo));
  return PoolKind::kNone;
}

// The union index of each class of m (added to the union when new).
int* union_map(PartitionPool* p, const gbdt::Model* m) {
  const int K = class_count(m);
  int* map = (int*)palloc(sizeof(int) * K);
  for (int k = 0; k < K; k++) {
    int u = -1;
    if (k < p->nclasses && same_class(p->class_model[k], p->class_index[k], m, k))
      u = k;  // the usual case: the same classes in the same order
    for (int j = 0; u < 0 && j < p->nclasses; j++)
      if (same_class(p->class_model[j], p->class_index[j], m, k)) u = j;
    if (u < 0) {
      if (p->nclasses == p->classes_cap) {
        p->classes_cap *= 2;
        p->class_model = (const gbdt::Model**)repalloc(p->class_model, sizeof(gbdt::Model*) * p->classes_cap);
        p->class_index = (int*)repalloc(p->class_index, sizeof(int) * p->classes_cap);
        const size_t bytes = sizeof(uint64_t) * p->classes_cap;
        p->rows.class_tp = (uint64_t*)repalloc(p->rows.class_tp, bytes);
        p->rows.class_actual = (uint64_t*)repalloc(p->rows.class_actual, bytes);
        p->rows.class_predicted = (uint64_t*)repalloc(p->rows.class_predicted, bytes);
      }
      u = p->nclasses++;
      p->class_model[u] = m;
      p->class_index[u] = k;
      p->rows.class_tp[u] = p->rows.class_actual[u] = p->rows.class_predicted[u] = 0;
    }
    map[k] = u;
  }
  return map;
}

// A binary:logistic model's rows as a two-class model's streamed sums
// (probabilities 1 - p and p), by the multiclass rows' own arithmetic.
EvalRows binary_as_two_classes(const EvalRows* r) {
  EvalRows t = *r;
  t.stream = true;
  t.K = 2;
  t.mlogloss_sum = t.error_sum = 0;
  t.class_tp = (uint64_t*)palloc0(sizeof(uint64_t) * 2);
  t.class_actual = (uint64_t*)palloc0(sizeof(uint64_t) * 2);
  t.class_predicted = (uint64_t*)palloc0(sizeof(uint64_t) * 2);
  t.confusion = nullptr;
  for (size_t i = 0; i < r->n; i++) {
    const double o[2] = {1.0 - r->preds[i], r->preds[i]};
    stream_row(&t, r->labels[i] > 0.5f ? 1 : 0, o);
    if ((i & 65535) == 65535) CHECK_FOR_INTERRUPTS();
  }
  return t;
}

void add_union(PartitionPool* p, const EvalRows* r) {
  EvalRows two;
  if (!r->stream) {
    two = binary_as_two_classes(r);
    r = &two;
  }
  const int* map = union_map(p, r->model);
  for (int k = 0; k < r->K; k++) {
    p->rows.class_tp[map[k]] += r->class_tp[k];
    p->rows.class_actual[map[k]] += r->class_actual[k];
    p->rows.class_predicted[map[k]] += r->class_predicted[k];
  }
  p->rows.mlogloss_sum += r->mlogloss_sum;
  p->rows.error_sum += r->error_sum;
}

void add_concat(PartitionPool* p, const EvalRows* r) {
  EvalRows* o = &p->rows;
  const size_t K = (size_t)r->K;
  if (o->n + r->n > p->cap) {
    size_t cap = p->cap > 0 ? p->cap : 16384;
    while (cap < o->n + r->n) cap *= 2;
    const bool first = p->cap == 0;
    o->labels = (float*)(first ? palloc_extended(sizeof(float) * cap, MCXT_ALLOC_HUGE)
                               : repalloc_huge(o->labels, sizeof(float) * cap));
    o->preds = (double*)(first ? palloc_extended(sizeof(double) * cap * K, MCXT_ALLOC_HUGE)
                               : repalloc_huge(o->preds, sizeof(double) * cap * K));
    if (r->upper != nullptr)
      o->upper = (float*)(first ? palloc_extended(sizeof(float) * cap, MCXT_ALLOC_HUGE)
                                : repalloc_huge(o->upper, sizeof(float) * cap));
    p->cap = cap;
  }
  memcpy(o->labels + o->n, r->labels, sizeof(float) * r->n);
  memcpy(o->preds + o->n * K, r->preds, sizeof(double) * r->n * K);
  if (r->upper != nullptr) memcpy(o->upper + o->n, r->upper, sizeof(float) * r->n);
  o->K = r->K;
  o->target = r->target;
  o->upper_column = r->upper_column;
}

}  // namespace

PartitionPool* pool_start(const gbdt::Model* const* models, const char* const* names, int n) {
  PartitionPool* p = (PartitionPool*)palloc0(sizeof(PartitionPool));
  p->models = models;
  p->n = n;
  p->rows = EvalRows();
  p->rows.model = n > 0 ? models[0] : nullptr;
  p->kind = n > 0 ? pool_kind(models, names, n, &p->refusal, &p->objective) : PoolKind::kNone;
  if (n == 0) p->refusal = "no row was scored";
  if (p->kind == PoolKind::kUnion) {
    p->classes_cap = 16;
    p->class_model = (const gbdt::Model**)palloc(sizeof(gbdt::Model*) * p->classes_cap);
    p->class_index = (int*)palloc(sizeof(int) * p->classes_cap);
    p->rows.stream = true;
    p->rows.class_tp = (uint64_t*)palloc(sizeof(uint64_t) * p->classes_cap);
    p->rows.class_actual = (uint64_t*)palloc(sizeof(uint64_t) * p->classes_cap);
    p->rows.class_predicted = (uint64_t*)palloc(sizeof(uint64_t) * p->classes_cap);
  }
  return p;
}

const char* pool_refusal(const PartitionPool* p) { return p->refusal; }

void pool_add(PartitionPool* p, int i, const EvalRows* r) {
  if (p->kind == PoolKind::kNone) return;
  Assert(r->model == p->models[i]);
  (void)i;
  if (p->kind == PoolKind::kUnion)
    add_union(p, r);
  else
    add_concat(p, r);
  p->rows.n += r->n;
  p->rows.skipped += r->skipped;
}

void pool_skip(PartitionPool* p, uint64 rows) { p->rows.skipped += rows; }

char* pool_metrics_json(PartitionPool* p, double threshold) {
  if (p->kind == PoolKind::kNone) return nullptr;
  if (p->rows.n == 0) {
    p->refusal = "no row was scored";
    return nullptr;
  }
  p->rows.K = p->kind == PoolKind::kUnion ? p->nclasses : p->rows.K;
  return eval_metrics_json(&p->rows, threshold, p->objective);
}

}  // namespace gbdt_pg
