// gbdt_partition_model(model gbdt_model, key text[]) -> gbdt_model
//
// One sub-model of a partitioned model (gbdt_train's partition_by): the
// model trained on the rows of key (one text value per key column, NULL
// for a NULL key value), byte for byte as it was trained; NULL when no
// sub-model has that key.  A NULL key array gives the global model (NULL
// when the model has none).
#include <string>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "model/model_type.h"

#include "gbdt/model.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_partition_model);
}

using namespace gbdt_pg;

Datum gbdt_partition_model(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  if (m->partitions == nullptr)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_partition_model: the model is not partitioned"),
                    errhint("A partitioned model is trained with params {\"partition_by\": ...}.")));
  const gbdt::PartitionedModel& pm = *m->partitions;
  const std::vector<uint8_t>* bytes = nullptr;
  if (PG_ARGISNULL(1)) {
    if (pm.global_bytes.empty()) PG_RETURN_NULL();
    bytes = &pm.global_bytes;
  } else {
    ArrayType* arr = PG_GETARG_ARRAYTYPE_P(1);
    if (ARR_NDIM(arr) > 1)
      ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                      errmsg("gbdt_partition_model: key must be a one-dimensional text array")));
    Datum* elems;
    bool* nulls;
    int n;
    deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
    if (n != (int)pm.column_names.size())
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("gbdt_partition_model: the model has %d key column%s, the key %d value%s",
                             (int)pm.column_names.size(), pm.column_names.size() == 1 ? "" : "s", n,
                             n == 1 ? "" : "s")));
    const char** utf8 = (const char**)palloc(sizeof(char*) * (n + 1));
    for (int i = 0; i < n; i++)
      utf8[i] = nulls[i] ? nullptr : server_to_model_string(TextDatumGetCString(elems[i]));
    int g = -1;
    run_engine([&] {
      std::vector<std::string> key;
      std::vector<uint8_t> null;
      for (int i = 0; i < n; i++) {
        key.emplace_back(utf8[i] != nullptr ? utf8[i] : "");
        null.push_back(utf8[i] == nullptr ? 1 : 0);
      }
      g = pm.find(key, null);
    });
    if (g < 0) PG_RETURN_NULL();
    bytes = &pm.groups[g].bytes;
  }
  struct varlena* v = nullptr;
  run_engine([&] { v = bytes_to_varlena_nothrow(*bytes); });
  PG_RETURN_POINTER(compressed_model_value(v));
}
