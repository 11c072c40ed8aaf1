-- pg_temp.reseal(bytes): recomputes the checksum of a gbdt model's bytes
-- (64-bit FNV-1a over everything but the last 8 bytes, stored little-endian
-- in them), so a test can craft a model whose fields were edited by hand.
CREATE FUNCTION pg_temp.reseal(b bytea) RETURNS bytea
LANGUAGE plpgsql AS $$
DECLARE
  h numeric := 1469598103934665603;  -- the format's FNV offset basis
  p numeric := 1099511628211;
  two64 numeric := 18446744073709551616;
  n int := length(b) - 8;
  lo int;
BEGIN
  FOR i IN 0 .. n - 1 LOOP
    lo := (h % 256)::int;
    h := ((h - lo + (lo # get_byte(b, i))) * p) % two64;
  END LOOP;
  FOR i IN 0 .. 7 LOOP
    b := set_byte(b, n + i, (h % 256)::int);
    h := div(h, 256);
  END LOOP;
  RETURN b;
END $$;
