-- gbdt 0.2 -> 0.3 upgrade.  Every SQL change of release 0.3 is made here as
-- well as in sql/gbdt.sql (the 0.3 install script); scripts/test-upgrade.sh
-- checks that both give the same objects and that data stored under earlier
-- releases still loads and scores.
\echo Use "ALTER EXTENSION gbdt UPDATE TO '0.3'" to load this file. \quit
