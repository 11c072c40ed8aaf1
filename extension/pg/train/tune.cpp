// gbdt_tune(relation regclass, target text, features text[] DEFAULT NULL,
//           objective text DEFAULT NULL, params jsonb DEFAULT '{}',
//           search jsonb DEFAULT '{}', trials int DEFAULT NULL,
//           nfold int DEFAULT 3, seed bigint DEFAULT 0)
//   -> TABLE(trial int, params jsonb, metric text, score float8,
//            score_std float8, rounds int)
//
// A parameter search by cross-validation.  `search` maps parameter names to
// a JSON list of values (a grid: every combination, or `trials` of them
// drawn with the seed) or to a range {"min": a, "max": b, "log": bool,
// "int": bool} (drawn uniformly, on a log scale with "log", rounded with
// "int"; needs `trials`).  The relation is read and binned once (gbdt_cv's
// request to gbdt_train, cv.h) and every trial is cross-validated on those
// rows and the same folds; a trial's score is its mean test metric at its
// best round, which is exactly what gbdt_cv with the trial's params gives.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "train/cv.h"

#include "guard.h"

extern "C" {
#include "funcapi.h"
#include "utils/json.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_tune);
}

namespace gbdt_pg {
namespace {

constexpr int kMaxTrials = 1000;

// A parameter value as the params reader gives it: its text, and whether
// it was a JSON string.  palloc'd, like everything here before the engine
// call (an ERROR then leaves no C++ object behind).
struct PgKV {
  const char* value;
  bool is_string;
};

// One searched parameter: a list of values or a range.
struct SearchDim {
  const char* key;
  PgKV* values;  // the list (nvalues; none for a range)
  int nvalues;
  bool range;
  double lo, hi;
  bool log, integer;
};

// Parameters that change what is read or how it is binned: one load serves
// every trial, so they are set in params, not searched.
bool searchable(const char* key) {
  static const char* fixed[] = {"max_bin", "bin_sample_rows", "weight_column", "group_column",
                                "qid_column", "label_upper_bound_column", "categorical_features",
                                "max_categories", "exclude", "objective", "num_class",
                                "validation_fraction", "validation_relation", "nthread", "device"};
  for (const char* f : fixed)
    if (strcmp(key, f) == 0) return false;
  return true;
}

uint64_t splitmix(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
double unit(uint64_t* s) { return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

PgKV scalar_kv(const char* key, const JsonbValue& v) {
  PgKV kv{nullptr, false};
  switch (v.type) {
    case jbvString:
      kv.value = pnstrdup(v.val.string.val, v.val.string.len);
      kv.is_string = true;
      break;
    case jbvNumeric:
      kv.value = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));
      break;
    case jbvBool:
      kv.value = v.val.boolean ? "true" : "false";
      break;
    default:
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("search: parameter \"%s\" lists a value that is not a number, "
                             "string or boolean",
                             key)));
  }
  return kv;
}

double range_number(const char* key, const char* field, JsonbContainer* obj, bool required,
                    double dflt) {
  JsonbValue k;
  k.type = jbvString;
  k.val.string.val = (char*)field;
  k.val.string.len = (int)strlen(field);
  JsonbValue* v = findJsonbValueFromContainer(obj, JB_FOBJECT, &k);
  if (v == nullptr) {
    if (required)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("search: the range of parameter \"%s\" needs \"%s\"", key, field)));
    return dflt;
  }
  if (v->type == jbvBool) return v->val.boolean ? 1 : 0;
  if (v->type != jbvNumeric)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("search: \"%s\" of parameter \"%s\" must be a number", field, key)));
  return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

// The search object's dimensions, *n of them (errors name the parameter at fault).
SearchDim* parse_search(Jsonb* jb, int* n) {
  if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("search must be a JSON object of parameter names"),
                    errhint("Example: '{\"max_depth\": [2, 4, 6], \"eta\": {\"min\": 0.01, "
                            "\"max\": 0.3, \"log\": true}}'")));
  const int cap = (int)JB_ROOT_COUNT(jb);
  SearchDim* dims = (SearchDim*)palloc0(sizeof(SearchDim) * (cap > 0 ? cap : 1));
  *n = 0;
  JsonbIterator* it = JsonbIteratorInit(&jb->root);
  JsonbValue v;
  JsonbIteratorToken tok;
  char* key = nullptr;
  while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE) {
    CHECK_FOR_INTERRUPTS();
    if (tok == WJB_KEY) {
      key = pnstrdup(v.val.string.val, v.val.string.len);
      continue;
    }
    if (tok != WJB_VALUE) continue;
    if (!searchable(key))
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("search: parameter \"%s\" cannot be searched: it changes the rows "
                             "read or their bins, which every trial shares; set it in params",
                             key)));
    if (*n >= cap) break;
    SearchDim& d = dims[(*n)++];
    d.key = key;
    if (v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data)) {
      const int len = (int)JsonContainerSize(v.val.binary.data);
      d.values = (PgKV*)palloc(sizeof(PgKV) * (len > 0 ? len : 1));
      JsonbIterator* ai = JsonbIteratorInit(v.val.binary.data);
      JsonbValue e;
      while ((tok = JsonbIteratorNext(&ai, &e, true)) != WJB_DONE) {
        CHECK_FOR_INTERRUPTS();
        if (tok == WJB_ELEM && d.nvalues < len) d.values[d.nvalues++] = scalar_kv(key, e);
      }
      if (d.nvalues == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("search: parameter \"%s\" lists no values", key)));
    } else if (v.type == jbvBinary && JsonContainerIsObject(v.val.binary.data)) {
      JsonbContainer* o = v.val.binary.data;
      d.range = true;
      d.lo = range_number(key, "min", o, true, 0);
      d.hi = range_number(key, "max", o, true, 0);
      d.log = range_number(key, "log", o, false, 0) != 0;
      d.integer = range_number(key, "int", o, false, 0) != 0;
      if (!(std::isfinite(d.lo) && std::isfinite(d.hi) && d.lo <= d.hi) || (d.log && !(d.lo > 0)))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("search: the range of parameter \"%s\" [%g, %g] is not valid: "
                               "min <= max, both finite%s",
                               key, d.lo, d.hi, d.log ? ", min > 0 with \"log\"" : "")));
    } else {
      d.values = (PgKV*)palloc(sizeof(PgKV));  // one value: a grid of one
      d.values[0] = scalar_kv(key, v);
      d.nvalues = 1;
    }
  }
  if (*n == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("search names no parameter: give lists or ranges of values"),
                    errhint("Example: '{\"max_depth\": [2, 4, 6]}'")));
  return dims;
}

const char* number_text(double x, bool integer) {
  return integer ? psprintf("%lld", (long long)std::llround(x)) : psprintf("%.17g", x);
}

// The trials: the whole grid (in order, the first parameter slowest) or
// `trials` draws with the seed (distinct grid points while the grid has
// enough; ranges drawn per trial).
// Returns n x ndims values (trial-major); *n_out gets n.
PgKV* make_trials(const SearchDim* dims, int ndims, int trials, bool trials_given, uint64_t seed,
                  int* n_out) {
  double grid = 1;
  bool any_range = false;
  for (int i = 0; i < ndims; i++) {
    if (dims[i].range) any_range = true;
    else grid *= (double)dims[i].nvalues;
  }
  if (!trials_given && any_range)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("search has a range of values: pass trials => the number of draws")));
  if (!trials_given && grid > kMaxTrials)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("search grid has %.0f points, more than %d trials", grid, kMaxTrials),
                    errhint("Pass trials => N to draw N of them.")));
  if (trials_given && (trials < 1 || trials > kMaxTrials))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("trials = %d is out of range: must be in [1, %d]", trials, kMaxTrials)));
  const int n = trials_given ? trials : (int)grid;
  // Grid indices: all of them, or n distinct ones drawn (partial
  // Fisher-Yates over a grid of at most 1e6 points; else with repeats).
  uint64_t s = seed ^ 0x7475E3ULL;
  double* points = (double*)palloc(sizeof(double) * (n > 0 ? n : 1));
  if (!trials_given) {
    for (int i = 0; i < n; i++) points[i] = i;
  } else if (grid <= 1e6 && !any_range && n <= grid) {
    const size_t G = (size_t)grid;
    double* all = (double*)palloc(sizeof(double) * G);
    for (size_t i = 0; i < G; i++) all[i] = (double)i;
    for (int i = 0; i < n; i++) {
      CHECK_FOR_INTERRUPTS();
      const size_t j = i + (size_t)(splitmix(&s) % (uint64_t)(G - i));
      std::swap(all[(size_t)i], all[j]);
      points[i] = all[(size_t)i];
    }
  } else {
    for (int i = 0; i < n; i++) points[i] = std::floor(unit(&s) * grid);
  }
  PgKV* out = (PgKV*)palloc(sizeof(PgKV) * (size_t)n * ndims);
  for (int t = 0; t < n; t++) {
    CHECK_FOR_INTERRUPTS();
    double rest = points[t];
    double stride = grid;
    for (int i = 0; i < ndims; i++) {
      const SearchDim& d = dims[i];
      PgKV& kv = out[(size_t)t * ndims + i];
      if (d.range) {
        const double u = unit(&s);
        const double x = d.log ? std::exp(std::log(d.lo) + u * (std::log(d.hi) - std::log(d.lo)))
                               : d.lo + u * (d.hi - d.lo);
        kv = {number_text(std::min(std::max(x, d.lo), d.hi), d.integer), false};
        continue;
      }
      stride /= (double)d.nvalues;
      int idx = (int)std::floor(rest / stride);
      if (idx >= d.nvalues) idx = d.nvalues - 1;
      rest -= (double)idx * stride;
      kv = d.values[idx];
    }
  }
  *n_out = n;
  return out;
}

// The trial's parameters as JSON: params with the trial's values set.
Jsonb* trial_params(Jsonb* base, const SearchDim* dims, int ndims, const PgKV* kvs) {
  StringInfoData t;
  initStringInfo(&t);
  appendStringInfoChar(&t, '{');
  for (int i = 0; i < ndims; i++) {
    if (i) appendStringInfoString(&t, ", ");
    escape_json(&t, dims[i].key);
    appendStringInfoString(&t, ": ");
    if (kvs[i].is_string)
      escape_json(&t, kvs[i].value);
    else
      appendStringInfoString(&t, kvs[i].value);
  }
  appendStringInfoChar(&t, '}');
  Datum trial = DirectFunctionCall1(jsonb_in, CStringGetDatum(t.data));
  return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(base), trial));
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

extern "C" Datum gbdt_tune(PG_FUNCTION_ARGS) {
  for (int a : {0, 1, 5, 7, 8})
    if (PG_ARGISNULL(a))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("%s must not be NULL",
                             a == 0 ? "relation" : a == 1 ? "target" : a == 5 ? "search"
                             : a == 7 ? "nfold" : "seed")));
  const int nfold = PG_GETARG_INT32(7);
  const int64 seed = PG_GETARG_INT64(8);
  check_fold_args(nfold, seed);
  Jsonb* base = PG_ARGISNULL(4) ? DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")))
                                : PG_GETARG_JSONB_P(4);
  int ndims = 0, T = 0;
  const SearchDim* dims = parse_search(PG_GETARG_JSONB_P(5), &ndims);
  const PgKV* kv = make_trials(dims, ndims, PG_ARGISNULL(6) ? 0 : PG_GETARG_INT32(6),
                               !PG_ARGISNULL(6), (uint64_t)seed, &T);
  // Each trial's parameters are checked (unknown names, ranges) before the
  // load; the engine's copies are built in the same step.
  std::vector<std::vector<gbdt::ParamKV>>* trials = nullptr;
  std::vector<gbdt::CvHistory>* hist = nullptr;
  run_engine([&] {
    std::unique_ptr<std::vector<std::vector<gbdt::ParamKV>>> tr(
        new std::vector<std::vector<gbdt::ParamKV>>((size_t)T));
    for (int t = 0; t < T; t++) {
      for (int i = 0; i < ndims; i++) {
        const PgKV& x = kv[(size_t)t * ndims + i];
        (*tr)[(size_t)t].push_back({dims[i].key, x.value, x.is_string});
      }
      gbdt::TrainParams p;
      gbdt::apply_params((*tr)[(size_t)t], &p);
    }
    std::unique_ptr<std::vector<gbdt::CvHistory>> h(new std::vector<gbdt::CvHistory>());
    h->reserve((size_t)T);
    trials = tr.release();
    hist = h.release();
  });
  CvRequest req{nfold, false, (uint64_t)seed, nullptr, trials, hist};
  PG_TRY();
  {
    run_cv_train(fcinfo, &req);
  }
  PG_CATCH();
  {
    delete trials;
    delete hist;
    PG_RE_THROW();
  }
  PG_END_TRY();

  // The scores out of the C++ objects (plain arithmetic), then free them.
  struct Row {
    const char* metric;
    double score, sd;
    int rounds;
  };
  Row* rows = (Row*)palloc0(sizeof(Row) * (T > 0 ? T : 1));
  const int done = (int)hist->size();
  char* metric_names = (char*)palloc0(64 * (size_t)(T > 0 ? T : 1));  // 63 bytes a name
  for (int t = 0; t < done; t++) {
    const gbdt::CvHistory& h = (*hist)[(size_t)t];
    const size_t M = h.metrics.size();
    // The best round of the last metric's mean test value.
    const bool higher = M && gbdt::metric_higher_is_better(h.metrics.back());
    int best = -1;
    for (int r = 0; r < h.rounds && M; r++) {
      const double v = h.test_mean[(size_t)r * M + M - 1];
      if (best < 0 || (higher ? v > h.test_mean[(size_t)best * M + M - 1]
                              : v < h.test_mean[(size_t)best * M + M - 1]))
        best = r;
    }
    rows[t].rounds = best + 1;
    rows[t].score = best >= 0 ? h.test_mean[(size_t)best * M + M - 1] : NAN;
    rows[t].sd = best >= 0 ? h.test_std[(size_t)best * M + M - 1] : NAN;
    // metric names are short: copied into the buffer without an allocation.
    if (M) strncpy(metric_names + 64 * (size_t)t, h.metrics.back().c_str(), 63);
  }
  delete trials;
  delete hist;
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  for (int t = 0; t < done; t++) {
    CHECK_FOR_INTERRUPTS();
    Datum values[6] = {Int32GetDatum(t + 1),
                       JsonbPGetDatum(trial_params(base, dims, ndims, &kv[(size_t)t * ndims])),
                       CStringGetTextDatum(metric_names + 64 * (size_t)t), Float8GetDatum(rows[t].score),
                       Float8GetDatum(rows[t].sd), Int32GetDatum(rows[t].rounds)};
    bool nulls[6] = {false, false, false, false, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return (Datum)0;
}
