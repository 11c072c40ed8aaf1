// gbdt_train(relation regclass, target text, features text[] DEFAULT NULL,
//            objective text DEFAULT NULL, params jsonb DEFAULT '{}') -> gbdt_model
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "guard.h"
#include "gucs.h"
#include "module.h"
#include "notice_relay.h"
#include "relation_reader.h"
#include "train_data.h"
#include "train_load.h"

#include "model.h"
#include "objective.h"
#include "params.h"
#include "trainer.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_train);
}

namespace gbdt_pg {
namespace {

// ---- parameters ----

struct ParamList {
  int n = 0;
  int cap = 0;
  char** keys = nullptr;
  char** values = nullptr;
  bool* is_string = nullptr;
};

void param_add(ParamList* p, const char* key, const char* value, bool is_string) {
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 16;
    if (p->keys == nullptr) {
      p->keys = (char**)palloc(sizeof(char*) * p->cap);
      p->values = (char**)palloc(sizeof(char*) * p->cap);
      p->is_string = (bool*)palloc(sizeof(bool) * p->cap);
    } else {
      p->keys = (char**)repalloc(p->keys, sizeof(char*) * p->cap);
      p->values = (char**)repalloc(p->values, sizeof(char*) * p->cap);
      p->is_string = (bool*)repalloc(p->is_string, sizeof(bool) * p->cap);
    }
  }
  p->keys[p->n] = pstrdup(key);
  p->values[p->n] = pstrdup(value);
  p->is_string[p->n] = is_string;
  p->n++;
}

bool param_has(const ParamList* p, const char* key) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->keys[i], key) == 0) return true;
  return false;
}

// Top-level keys of a jsonb object as key/value texts.
void params_from_jsonb(Jsonb* jb, ParamList* out) {
  if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("params must be a JSON object, got a JSON %s",
                           JB_ROOT_IS_SCALAR(jb) ? "scalar" : "array"),
                    errhint("Example: '{\"num_round\": 50, \"max_depth\": 4}'")));
  JsonbIterator* it = JsonbIteratorInit(&jb->root);
  JsonbValue v;
  JsonbIteratorToken tok;
  char* key = nullptr;
  while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE) {
    if (tok == WJB_KEY) {
      key = pnstrdup(v.val.string.val, v.val.string.len);
      continue;
    }
    if (tok != WJB_VALUE) continue;
    switch (v.type) {
      case jbvString: {
        char* s = pnstrdup(v.val.string.val, v.val.string.len);
        param_add(out, key, s, true);
        break;
      }
      case jbvNumeric: {
        char* s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));
        param_add(out, key, s, false);
        break;
      }
      case jbvBool:
        param_add(out, key, v.val.boolean ? "true" : "false", false);
        break;
      case jbvNull:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("parameter \"%s\" must not be null", key)));
        break;
      case jbvBinary:
        // C: a JSON array (eval_metric lists) goes to the engine as its JSON text;
        // T: so do the constraint parameters' JSON lists/objects, as XGBoost takes them.
        if (JsonContainerIsArray(v.val.binary.data) || strcmp(key, "monotone_constraints") == 0 ||
            strcmp(key, "interaction_constraints") == 0) {
          param_add(out, key, JsonbToCString(nullptr, v.val.binary.data, v.val.binary.len), false);
          break;
        }
        /* fall through */
      default:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("parameter \"%s\" must be a number, string or boolean, not a JSON "
                               "object or array",
                               key)));
    }
  }
}

// ---- feature resolution ----

void resolve_features(const RelInfo* rel, const char* target, ArrayType* arr, FeatureSet* fs) {
  int natts = rel->desc->natts;
  fs->names = (const char**)palloc(sizeof(char*) * (natts + 1));
  fs->kinds = (ValKind*)palloc(sizeof(ValKind) * (natts + 1));
  fs->n = 0;

  if (arr == nullptr) {
    StringInfoData skipped;
    initStringInfo(&skipped);
    int nskipped = 0;
    for (int i = 0; i < natts; i++) {
      Form_pg_attribute a = TupleDescAttr(rel->desc, i);
      if (a->attisdropped) continue;
      const char* name = NameStr(a->attname);
      if (strcmp(name, target) == 0) continue;
      ValKind k = kind_for_type(a->atttypid);
      if (k == ValKind::kNone) {
        appendStringInfo(&skipped, "%s\"%s\" (%s)", nskipped ? ", " : "", name,
                         format_type_be(a->atttypid));
        nskipped++;
        continue;
      }
      fs->names[fs->n] = pstrdup(name);
      fs->kinds[fs->n] = k;
      fs->n++;
    }
    if (nskipped > 0)
      ereport(NOTICE, (errmsg("gbdt_train: skipping %d column%s of unsupported type: %s", nskipped,
                              nskipped == 1 ? "" : "s", skipped.data)));
    if (fs->n == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("relation \"%s\" has no feature columns of a supported type besides "
                             "the target \"%s\"",
                             rel->name, target),
                      errhint("Supported types are smallint, integer, bigint, real, double "
                              "precision, numeric and boolean.")));
    return;
  }

  if (ARR_NDIM(arr) > 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("features must be a one-dimensional text array")));
  Datum* elems;
  bool* enulls;
  int nelems;
  deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
  if (nelems == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("features must name at least one column")));
  fs->names = (const char**)palloc(sizeof(char*) * nelems);
  fs->kinds = (ValKind*)palloc(sizeof(ValKind) * nelems);
  for (int i = 0; i < nelems; i++) {
    if (enulls[i])
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("features must not contain NULL (element %d)", i + 1)));
    char* name = TextDatumGetCString(elems[i]);
    if (strcmp(name, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("column \"%s\" is the target and cannot also be a feature", name)));
    for (int j = 0; j < fs->n; j++)
      if (strcmp(fs->names[j], name) == 0)
        ereport(ERROR, (errcode(ERRCODE_DUPLICATE_COLUMN),
                        errmsg("feature column \"%s\" is listed more than once", name)));
    fs->kinds[fs->n] = require_numeric_column(rel, name, "feature");
    fs->names[fs->n] = name;
    fs->n++;
  }
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_train(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("relation must not be NULL")));
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("target must not be NULL")));
  Oid relid = PG_GETARG_OID(0);
  char* target = text_to_cstring(PG_GETARG_TEXT_PP(1));
  ArrayType* feat_arr = PG_ARGISNULL(2) ? nullptr : PG_GETARG_ARRAYTYPE_P(2);
  char* objective = PG_ARGISNULL(3) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(3));
  Jsonb* params_jb = PG_ARGISNULL(4) ? nullptr : PG_GETARG_JSONB_P(4);

  // Parameters first: bad parameters fail fast, before reading any data.
  ParamList params;
  if (params_jb != nullptr) params_from_jsonb(params_jb, &params);
  bool objective_given = param_has(&params, "objective") || objective != nullptr;
  if (objective != nullptr) param_add(&params, "objective", objective, true);
  if (guc_verbose && !param_has(&params, "verbose") && !param_has(&params, "verbosity"))
    param_add(&params, "verbose", "true", false);

  // Check the parameters with the engine before the (possibly long) load.
  bool verbose = false;
  int max_bin = 256, nthread_requested = 0;
  size_t sample_rows = 0;
  MemoryShape memory{1, 1, 6, 256, 0.0, false};
  {
    const ParamList* pl = &params;
    run_engine([&] {
      std::vector<gbdt::ParamKV> kvs;
      for (int i = 0; i < pl->n; i++) kvs.push_back({pl->keys[i], pl->values[i], pl->is_string[i]});
      gbdt::TrainParams p;
      gbdt::apply_params(kvs, &p);
      verbose = p.verbose;
      max_bin = p.max_bin;
      sample_rows = (size_t)p.bin_sample_rows;
      nthread_requested = p.nthread;
      memory.num_class = gbdt::objective_info(p.objective).multiclass && p.num_class > 0 ? p.num_class : 1;
      memory.max_depth = p.max_depth;
      memory.max_bin = p.max_bin;
      memory.validation_fraction = p.validation_fraction;
      memory.subsample = p.subsample < 1.0;
    });
  }
  // At most gbdt.max_threads (a NOTICE when an explicit nthread is lowered).
  const int nthread = capped_threads(nthread_requested, "nthread");
  memory.nthread = nthread;


  RelInfo* rel = open_rel_info(relid);
  Form_pg_attribute tatt = find_column(rel, target);
  if (tatt == nullptr) report_missing_column(rel, target);
  ValKind target_kind = require_numeric_column(rel, target, "target");
  if (target_kind == ValKind::kBool && !objective_given)
    param_add(&params, "objective", "binary:logistic", true);

  FeatureSet fs;
  resolve_features(rel, target, feat_arr, &fs);
  fs.model_names = (const char**)palloc(sizeof(char*) * (fs.n > 0 ? fs.n : 1));
  for (int f = 0; f < fs.n; f++) fs.model_names[f] = server_to_model_string(fs.names[f]);
  int nf = fs.n;

  // ---- load ----
  MemoryContext data_cxt =
      AllocSetContextCreate(CurrentMemoryContext, "gbdt training data", ALLOCSET_DEFAULT_SIZES);
  LoadSpec spec{rel, target, target_kind, &fs, max_bin, sample_rows, nthread, memory};
  LoadResult loaded;
  load_training_data(spec, data_cxt, &loaded);
  gbdt::BinnedInput* data = loaded.data;
  if (data->rows_skipped > 0)
    ereport(NOTICE, (errmsg("gbdt_train: skipped %llu row%s with a NULL target \"%s\"",
                            (unsigned long long)data->rows_skipped,
                            data->rows_skipped == 1 ? "" : "s", target)));
  if (verbose)
    ereport(NOTICE, (errmsg("gbdt_train: loaded %zu rows x %d features in %.3f s (%d pass%s, "
                            "cuts from %zu rows)",
                            data->matrix.n_rows, nf, data->seconds_load + data->seconds_bin,
                            loaded.passes, loaded.passes == 1 ? "" : "es", loaded.sample_rows)));

  // ---- train (engine) ----
  struct varlena* result = nullptr;
  NoticeRelay relay;  // progress NOTICEs, sent as the rounds finish
  const double memory_limit = max_memory_bytes();
  bool over_limit = false;  // the engine's gbdt.max_memory budget was exceeded
  const char* device = device_setting_name();
  {
    const ParamList* pl = &params;
    EngineError err;
    catch_engine(&err, [&] {
      std::vector<gbdt::ParamKV> kvs;
      for (int i = 0; i < pl->n; i++) kvs.push_back({pl->keys[i], pl->values[i], pl->is_string[i]});
      gbdt::TrainParams p;
      gbdt::apply_params(kvs, &p);
      if (p.device.empty()) p.device = device;
      p.nthread = nthread;

      // NOTICEs go out from this (the backend's) thread as the engine calls
      // back; an error raised by one (a cancel noticed by ereport) stops the
      // training and is re-raised below.
      auto relay_line = [&relay](const std::string& m) {
        if (!relay.emit(m.c_str())) throw gbdt::Cancelled();
      };
      gbdt::TrainHooks hooks;
      hooks.cancel = [] { return interrupt_pending(); };
      if (p.verbose) hooks.log = relay_line;
      hooks.notice = relay_line;
      hooks.default_device = device;
      gbdt::MemoryBudget budget(memory_limit, "gbdt.max_memory");
      hooks.budget = &budget;

      gbdt::Model model;
      try {
        model = gbdt::train_binned(std::move(*data), p, hooks, std::string(target));
      } catch (const gbdt::MemoryLimitExceeded&) {
        over_limit = true;
        throw;
      }
      if (p.verbose) {
        char line[256];
        snprintf(line, sizeof line,
                 "gbdt_train: backend %s, load %.3f s, bin %.3f s, train %.3f s, memory "
                 "peak %s (gbdt.max_memory %s)",
                 model.report.backend.c_str(), model.report.seconds_load,
                 model.report.seconds_bin, model.report.seconds_train,
                 gbdt::format_bytes(budget.peak()).c_str(),
                 gbdt::format_bytes(memory_limit).c_str());
        relay_line(line);
      }
      std::vector<uint8_t> bytes = gbdt::serialize_model(model);
      result = bytes_to_varlena_nothrow(bytes);
    });
    // All C++ objects of the training are gone here.
    MemoryContextDelete(data_cxt);
    // The engine's buffers were freed by its destructors (also on error and
    // cancel), but glibc keeps freed pages of the worker threads' arenas
    // mapped; give them back so repeated trainings do not grow the backend.
    malloc_trim(0);
    relay.rethrow();  // an error raised while sending a NOTICE, as it was
    if (over_limit && err.kind == EngineErrKind::kResource)
      ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("%s", err.message)));
    if (err.kind != EngineErrKind::kNone) {
      ErrorStyle style = default_style();
      raise_engine_error(&err, style);
    }
  }
  PG_RETURN_POINTER(result);
}
