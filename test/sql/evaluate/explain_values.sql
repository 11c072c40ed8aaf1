-- The value_text column of gbdt_explain and gbdt_explain_table: each
-- feature's value as the row has it (category text, date text, number as
-- written; a category the model never saw as the row spells it), NULL for
-- a NULL value and for the bias; the same for every class, with or without
-- top_k, and the same in the relation form as in the row form.  The
-- earlier columns keep their names and positions.
BEGIN;
SELECT plan(13);

CREATE TEMP TABLE ev AS
SELECT i AS id, (i % 7)::float8 AS a, (ARRAY['red', 'green', 'blue'])[1 + i % 3] AS col,
       date '2024-01-01' + (i % 50) AS d, CASE WHEN i % 4 = 0 THEN NULL ELSE i % 5 END::float8 AS b,
       ((i % 7) + (i % 3) + (i % 50) / 10.0)::float8 AS y,
       (ARRAY['x', 'y', 'z'])[1 + (i % 7) % 3] AS lab
FROM generate_series(1, 300) i;
CREATE TEMP TABLE evm AS
SELECT gbdt_train('ev', 'y', ARRAY['a', 'col', 'd', 'b'], 'reg:squarederror', '{"num_round": 3}') AS reg,
       gbdt_train('ev', 'lab', ARRAY['a', 'col', 'd', 'b'], 'multi:softprob', '{"num_round": 3}') AS multi;
-- Rows the model never saw: an unknown category, a value with quotes.
CREATE TEMP TABLE ev_new AS
SELECT 1 AS id, 2.5::float8 AS a, 'purple' AS col, date '2025-02-03' AS d, NULL::float8 AS b
UNION ALL SELECT 2, 1e20, 'it''s "red"', date '1999-12-31', -0.125;

-- The expected text of a feature of an ev row: its column as text.
CREATE FUNCTION pg_temp.col_text(r ev, f text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE f WHEN 'a' THEN r.a::text WHEN 'b' THEN r.b::text
                WHEN 'col' THEN r.col WHEN 'd' THEN r.d::text END $$;

SELECT is((SELECT array_agg(e.feature || '=' || coalesce(e.value_text, '<null>') ORDER BY e.feature)
           FROM ev, evm, gbdt_explain(reg, ev) e WHERE ev.id = 4),
          ARRAY['a=4', 'b=<null>', 'bias=<null>', 'col=green', 'd=2024-01-05'],
          'gbdt_explain: number, NULL value, bias, category text and date text');
SELECT is((SELECT count(*) FROM ev, evm, gbdt_explain(reg, ev) e
           WHERE e.feature <> 'bias' AND e.value_text IS DISTINCT FROM pg_temp.col_text(ev, e.feature)),
          0::bigint, 'gbdt_explain: every feature of every row shows its column as text');
SELECT is((SELECT count(*) FROM ev, evm, gbdt_explain(multi, ev) e
           WHERE e.feature <> 'bias' AND e.value_text IS DISTINCT FROM pg_temp.col_text(ev, e.feature)),
          0::bigint, 'multiclass: every class shows the row''s values');
SELECT is((SELECT count(*) FROM ev, evm, gbdt_explain(multi, ev, 1) e WHERE e.value_text IS NOT NULL),
          900::bigint, 'top_k 1: the shown feature of each row and class has its value, the bias none');
SELECT is((SELECT array_agg(e.feature || '=' || coalesce(e.value_text, '<null>') ORDER BY n.id, e.feature)
           FROM ev_new n, evm, gbdt_explain(reg, n) e WHERE e.feature <> 'bias'),
          ARRAY['a=2.5', 'b=<null>', 'col=purple', 'd=2025-02-03',
                'a=1e+20', 'b=-0.125', 'col=it''s "red"', 'd=1999-12-31'],
          'an unseen category and odd text show as the row spells them');
SELECT is((SELECT count(*) FROM ev, evm, gbdt_explain(reg, ev) e
           WHERE (e.feature = 'bias') <> (e.value IS NULL AND e.value_text IS NULL)
             AND ev.b IS NOT NULL),
          0::bigint, 'only the bias has neither value nor value_text on rows without NULLs');

-- gbdt_explain_table: the same rows as gbdt_explain, value_text included.
SELECT is_empty($$
  (SELECT t.key, t.feature, t.contribution, t.class, t.value_text FROM evm, gbdt_explain_table(multi, 'ev', 'id') t
   EXCEPT SELECT x.id::text, e.feature, e.contribution, e.class, e.value_text FROM ev x, evm, gbdt_explain(multi, x) e)
  UNION ALL
  (SELECT x.id::text, e.feature, e.contribution, e.class, e.value_text FROM ev x, evm, gbdt_explain(multi, x) e
   EXCEPT SELECT t.key, t.feature, t.contribution, t.class, t.value_text FROM evm, gbdt_explain_table(multi, 'ev', 'id') t)$$,
  'gbdt_explain_table = gbdt_explain for every row, value_text included');
SELECT is_empty($$
  (SELECT t.key, t.feature, t.value_text FROM evm, gbdt_explain_table(reg, 'ev_new', 'id', 2) t
   EXCEPT SELECT x.id::text, e.feature, e.value_text FROM ev_new x, evm, gbdt_explain(reg, x, 2) e)
  UNION ALL
  (SELECT x.id::text, e.feature, e.value_text FROM ev_new x, evm, gbdt_explain(reg, x, 2) e
   EXCEPT SELECT t.key, t.feature, t.value_text FROM evm, gbdt_explain_table(reg, 'ev_new', 'id', 2) t)$$,
  'top_k form: value_text of unseen rows as gbdt_explain(model, row, 2)');
SELECT is((SELECT count(*) FROM evm, gbdt_explain_table(reg, 'ev', 'id') t
           WHERE (t.feature = 'bias') AND t.value_text IS NOT NULL),
          0::bigint, 'gbdt_explain_table: the bias has no value_text');

-- Features that are elements of an array column show the element as read
-- (NULL for a NULL element), in both forms.
CREATE TEMP TABLE eva AS
SELECT i AS id, ARRAY[(i % 7)::float8, CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 3) / 4.0 END] AS v,
       ((i % 7) + (i % 3))::float8 AS y
FROM generate_series(1, 300) i;
CREATE TEMP TABLE evam AS
SELECT gbdt_train('eva', 'y', ARRAY['v'], 'reg:squarederror', '{"num_round": 3}') AS m;
SELECT is((SELECT array_agg(e.feature || '=' || coalesce(e.value_text, '<null>') ORDER BY eva.id, e.feature)
           FROM eva, evam, gbdt_explain(m, eva) e WHERE eva.id IN (5, 7)),
          ARRAY['bias=<null>', 'v[1]=5', 'v[2]=<null>', 'bias=<null>', 'v[1]=0', 'v[2]=0.25'],
          'array elements: the element as read, NULL for a NULL element');
SELECT is((SELECT array_agg(t.feature || '=' || coalesce(t.value_text, '<null>') ORDER BY t.key, t.feature)
           FROM evam, gbdt_explain_table(m, 'eva', 'id') t WHERE t.key IN ('5', '7')),
          ARRAY['bias=<null>', 'v[1]=5', 'v[2]=<null>', 'bias=<null>', 'v[1]=0', 'v[2]=0.25'],
          'gbdt_explain_table: array elements as gbdt_explain shows them');

-- The result columns: the earlier ones in place, value_text last.
SELECT is((SELECT proargnames::text FROM pg_proc WHERE proname = 'gbdt_explain'),
          '{model,row,top_k,feature,value,contribution,class,value_text}',
          'gbdt_explain: (feature, value, contribution, class, value_text)');
SELECT is((SELECT array_agg(proargnames::text ORDER BY pronargs) FROM pg_proc WHERE proname = 'gbdt_explain_table'),
          ARRAY['{model,relation,key,key,feature,contribution,class,value_text}',
                '{model,relation,key,top_k,key,feature,contribution,class,value_text}'],
          'gbdt_explain_table: (key, feature, contribution, class, value_text), both forms');

SELECT * FROM finish();
ROLLBACK;
