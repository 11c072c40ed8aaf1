-- Ranking trainings stop on a cancel inside a query group: the LambdaRank
-- pair loops are O(documents x lambdarank_num_pair_per_sample) per query and
-- one query may hold every row, so they poll (the calling thread) and stop
-- at the flag it raises (worker threads).  A 1 s statement_timeout stops
-- one round over a single query of 60,000 documents paired in full (1.8e9
-- pairs, several seconds even with the vectorized pair loop), the mean
-- method with 1e5 partners per document over 20,000 documents (2e9 pairs,
-- minutes) and four threads over two queries of 60,000; a round
-- that would form more than 2^32 pairs is refused before it starts.
BEGIN;
SELECT plan(9);
\ir ../lib/timed.sql

CREATE TEMP TABLE rc1 AS
SELECT g AS id, (g % 5)::float8 AS rel, ((g * 7919) % 10007) / 10007.0 AS x, 1 AS q
FROM generate_series(1, 20000) g;
CREATE TEMP TABLE rc1big AS
SELECT g AS id, (g % 5)::float8 AS rel, ((g * 7919) % 10007) / 10007.0 AS x, 1 AS q
FROM generate_series(1, 60000) g;
CREATE TEMP TABLE rc2 AS
SELECT g AS id, (g % 5)::float8 AS rel, ((g * 7919) % 10007) / 10007.0 AS x,
       CASE WHEN g <= 200 THEN 2 + g % 50 ELSE g % 2 END AS q
FROM generate_series(1, 120200) g;
CREATE TEMP TABLE rc3 AS
SELECT g AS id, (g % 5)::float8 AS rel, ((g * 7919) % 100003) / 100003.0 AS x, 1 AS q
FROM generate_series(1, 100000) g;

SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE t1 AS SELECT * FROM pg_temp.timed($$SELECT gbdt_train('rc1big', 'rel', ARRAY['x'], 'rank:ndcg',
  '{"group_column": "q", "num_round": 1, "lambdarank_num_pair_per_sample": 1000000}')$$);
CREATE TEMP TABLE t2 AS SELECT * FROM pg_temp.timed($$SELECT gbdt_train('rc1', 'rel', ARRAY['x'], 'rank:ndcg',
  '{"group_column": "q", "num_round": 1, "lambdarank_pair_method": "mean", "lambdarank_num_pair_per_sample": 100000}')$$);
CREATE TEMP TABLE t3 AS SELECT * FROM pg_temp.timed($$SELECT gbdt_train('rc2', 'rel', ARRAY['x'], 'rank:pairwise',
  '{"group_column": "q", "num_round": 1, "nthread": 4, "lambdarank_num_pair_per_sample": 1000000}')$$);
SET LOCAL statement_timeout = 0;

SELECT is(err, 'canceling statement due to statement timeout', 'topk, one query paired in full: cancelled') FROM t1;
SELECT cmp_ok(seconds, '<', 3.0::float8, format('within %s s of a 1 s timeout', round(seconds::numeric, 2))) FROM t1;
SELECT is(err, 'canceling statement due to statement timeout', 'mean, 1e5 partners per document: cancelled') FROM t2;
SELECT cmp_ok(seconds, '<', 3.0::float8, format('within %s s', round(seconds::numeric, 2))) FROM t2;
SELECT is(err, 'canceling statement due to statement timeout', 'four threads, two large queries: cancelled') FROM t3;
SELECT cmp_ok(seconds, '<', 3.0::float8, format('within %s s', round(seconds::numeric, 2))) FROM t3;

SELECT throws_ok($$SELECT gbdt_train('rc3', 'rel', ARRAY['x'], 'rank:ndcg',
                   '{"group_column": "q", "num_round": 1, "lambdarank_num_pair_per_sample": 1000000}')$$,
                 '22023',
                 'objective rank:ndcg: one round would form 4999950000 document pairs (lambdarank_pair_method topk, parameter "lambdarank_num_pair_per_sample" = 1000000, 1 query group of 100000 rows), more than the 4294967296 a round may form: lower lambdarank_num_pair_per_sample or split the largest query groups',
                 'a round of more than 2^32 pairs is refused, the parameter named');
SELECT lives_ok($$SELECT gbdt_train('rc3', 'rel', ARRAY['x'], 'rank:ndcg', '{"group_column": "q", "num_round": 1}')$$,
                'the default truncation trains on the same query');
SELECT lives_ok($$SELECT gbdt_train('rc1', 'rel', ARRAY['x'], 'rank:ndcg', '{"group_column": "q", "num_round": 1}')$$,
                'the session trains normally after the cancels');

SELECT * FROM finish();
ROLLBACK;
