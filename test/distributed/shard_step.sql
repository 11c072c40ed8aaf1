-- gbdt_shard_step on a shard database (run by test/distributed/loopback.sh
-- in gbdt_shard1, whose public.t holds ids 1..400, y NULL on ids 97, 194,
-- 291 and 388): open reads the named relation with the caller's rights
-- (privileges and row-level security) and leaves out rows without a
-- target; the same token twice, a 9th open training and a column that is
-- not a number are errors; the trainings survive failed statements and
-- close frees them.  The open request is built here in the engine's wire
-- format (little-endian uint64 lengths, extension/core/distributed/wire.h).
BEGIN;
SELECT plan(17);

CREATE FUNCTION pg_temp.u64(n int) RETURNS bytea LANGUAGE sql AS $$
  SELECT decode(lpad(to_hex(n % 256), 2, '0') || lpad(to_hex(n / 256), 2, '0') || '000000000000', 'hex') $$;
CREATE FUNCTION pg_temp.str(t text) RETURNS bytea LANGUAGE sql AS $$
  SELECT pg_temp.u64(octet_length(convert_to(t, 'UTF8'))) || convert_to(t, 'UTF8') $$;
CREATE FUNCTION pg_temp.req(rel text, target text, feats text[], weight text DEFAULT '') RETURNS bytea
  LANGUAGE sql AS $$
  SELECT pg_temp.str(rel) || pg_temp.str(target) || pg_temp.u64(cardinality(feats))
         || (SELECT string_agg(pg_temp.str(f), ''::bytea ORDER BY o) FROM unnest(feats) WITH ORDINALITY u(f, o))
         || pg_temp.str(weight) || '\x00000000'::bytea $$;
-- The first fields of the open reply (Describe): rows, features, weighted, rows skipped.
CREATE FUNCTION pg_temp.u64_at(b bytea, at int) RETURNS bigint LANGUAGE sql AS $$
  SELECT get_byte(b, at)::bigint + get_byte(b, at + 1) * 256 + get_byte(b, at + 2) * 65536 $$;
CREATE FUNCTION pg_temp.tok(k int) RETURNS text LANGUAGE sql AS $$ SELECT lpad(to_hex(k), 32, '0') $$;

CREATE TABLE replies (k int, reply bytea);
INSERT INTO replies
SELECT 1, gbdt_shard_step(pg_temp.tok(1), 'open', pg_temp.req('public.t', 'y', ARRAY['x1', 'x2', 'd'], 'w'));
SELECT is(pg_temp.u64_at(reply, 0), 396::bigint, 'open: the rows with a target') FROM replies WHERE k = 1;
SELECT is(pg_temp.u64_at(reply, 13), 4::bigint, 'open: the rows without one, counted') FROM replies WHERE k = 1;
SELECT is(get_byte(reply, 12), 1, 'open: weighted') FROM replies WHERE k = 1;

SELECT throws_like($$SELECT gbdt_shard_step(pg_temp.tok(1), 'open', pg_temp.req('public.t', 'y', ARRAY['x1']))$$,
                   'a gbdt shard training with this token is already open in this session', 'the same token twice');
INSERT INTO replies
SELECT k, gbdt_shard_step(pg_temp.tok(k), 'open', pg_temp.req('public.t', 'y', ARRAY['x1']))
FROM generate_series(2, 8) k;
SELECT is(count(*), 8::bigint, 'eight open trainings in one session') FROM replies;
SELECT throws_like($$SELECT gbdt_shard_step(pg_temp.tok(9), 'open', pg_temp.req('public.t', 'y', ARRAY['x1']))$$,
                   'this session already has 8 gbdt shard trainings open', 'a 9th is an error');
-- After the failed statements, the trainings are still there.
SELECT is(octet_length(gbdt_shard_step(pg_temp.tok(1), 'labels', '\x')), 8 + 396 * 4 + 8 + 396 * 4,
          'a later statement steps the open training (labels and weights of 396 rows)');
SELECT throws_like($$SELECT gbdt_shard_step(pg_temp.tok(1), 'no such step', '\x')$$,
                   'unknown gbdt shard request "no such step"', 'an unknown step is the engine''s error');
SELECT is(gbdt_shard_step(pg_temp.tok(8), 'close', '\x'), '\x'::bytea, 'close');
SELECT is(gbdt_shard_step(pg_temp.tok(8), 'close', '\x'), '\x'::bytea, 'close twice');
SELECT ok(octet_length(gbdt_shard_step(pg_temp.tok(9), 'open', pg_temp.req('public.t', 'y', ARRAY['x1']))) > 0,
          'after a close, another training opens');
SELECT lives_ok($$SELECT gbdt_shard_step(pg_temp.tok(k), 'close', '\x') FROM generate_series(1, 9) k$$, 'close all');

-- What the shard reads.
SELECT throws_like($$SELECT gbdt_shard_step(pg_temp.tok(1), 'open', pg_temp.req('public.t', 'y', ARRAY['x1', 'c']))$$,
                   'feature column "c" of relation "t" has type text: training across servers reads only numeric columns',
                   'a text column is an error naming it');
SELECT throws_like($$SELECT gbdt_shard_step(pg_temp.tok(1), 'open', pg_temp.req('public.nope', 'y', ARRAY['x1']))$$,
                   'relation "public.nope" of the gbdt shard training does not exist on this server',
                   'an unknown relation');
CREATE TABLE secret AS SELECT * FROM t;
SET LOCAL ROLE gbdt_shard_reader;
SELECT throws_like($$SELECT gbdt_shard_step(pg_temp.tok(1), 'open', pg_temp.req('public.secret', 'y', ARRAY['x1']))$$,
                   'permission denied for table secret', 'the caller''s rights: SELECT');
RESET ROLE;
ALTER TABLE secret ENABLE ROW LEVEL SECURITY;
CREATE POLICY low_ids ON secret FOR SELECT TO gbdt_shard_reader USING (id <= 100);
GRANT SELECT ON secret TO gbdt_shard_reader;
SET LOCAL ROLE gbdt_shard_reader;
SELECT is(pg_temp.u64_at(gbdt_shard_step(pg_temp.tok(1), 'open', pg_temp.req('public.secret', 'y', ARRAY['x1'])), 0),
          99::bigint, 'row-level security applies (ids 1..100, one without a target)');
SELECT lives_ok($$SELECT gbdt_shard_step(pg_temp.tok(1), 'close', '\x')$$, 'the mapped role closes it');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
