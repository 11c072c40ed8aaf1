-- gbdt 0.1 -> 0.2 upgrade.  Every SQL change of release 0.2 is made here as
-- well as in sql/gbdt.sql (the 0.2 install script); test/sql/00_upgrade.sql
-- checks that both give the same objects.
\echo Use "ALTER EXTENSION gbdt UPDATE TO '0.2'" to load this file. \quit
