#!/usr/bin/env bash
# Search-path safety of the extension's SQL, two checks:
#
#   bash scripts/check-sql-safety.sh            # both (needs a running server: PG* variables, superuser)
#   bash scripts/check-sql-safety.sh --static   # only (b), no server
#
# (a) Catalog: in a fresh database with CREATE EXTENSION gbdt, every function
#     of the extension (pg_depend) in LANGUAGE sql or plpgsql must pin
#     search_path=pg_catalog, pg_temp in its proconfig, so a role that can
#     CREATE in a schema on the caller's search path (public before
#     PostgreSQL 15, or a granted schema) cannot capture a call it makes
#     (public.count(text) beats pg_catalog.count("any") on an exact match).
#     C functions must carry no SET clause (one GUC save/restore per scoring
#     call); their SPI texts are checked by (b) instead.
# (b) Static: every query text the glue (extension/pg/**/*.cpp) hands to SPI is
#     found (the literal given to SPI_execute*/SPI_prepare*/SPI_cursor_open*,
#     or the literals of the psprintf/appendStringInfo* calls that built the
#     variable given to it, in the same top-level function) and must not call
#     a function without a schema (pg_catalog.x, or a %s placeholder filled
#     with a quoted schema name), read a relation without a schema after
#     FROM/JOIN/INTO/UPDATE/TABLE (a %s placeholder stands for a
#     quote_qualified_identifier), or use an operator outside
#     OPERATOR(pg_catalog.op) (operators are looked up on the search path
#     too; IN, LIKE, BETWEEN, ANY/ALL and IS DISTINCT FROM resolve "=" or
#     "~~" by name as well).
#
# Prints one line per finding and a last line "check-sql-safety: ok|FAIL: ..."
# and exits non-zero on a finding.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python3}
MODE=${1:-all}
FAILED=0
DETAIL=()

# ---- (b) static scan of the SPI query texts ------------------------------------
static_out=$("$PY" - $(find "$ROOT"/extension/pg -name '*.cpp' | sort) <<'PY'
import re, sys

# Words that may stand before "(" in a query without being a function call
# looked up on the search path: SQL syntax (CAST, COALESCE, NULLIF, GREATEST,
# LEAST, ARRAY, ROW are grammar constructs, not catalog functions) and the
# clause keywords that precede a parenthesized subquery or list.
KEYWORDS_BEFORE_PAREN = {
    "CAST", "COALESCE", "NULLIF", "GREATEST", "LEAST", "ARRAY", "ROW", "EXISTS",
    "VALUES", "OPERATOR", "SELECT", "FROM", "JOIN", "WHERE", "AND", "OR", "NOT",
    "AS", "ON", "USING", "OVER", "FILTER", "LATERAL", "DISTINCT", "WITH", "LIMIT",
}
# Constructs that look an operator up by name on the search path.
OPERATOR_WORDS = re.compile(r"\b(IN|LIKE|ILIKE|SIMILAR|BETWEEN|ANY|ALL|SOME)\b|\bIS\s+(NOT\s+)?DISTINCT\s+FROM\b",
                            re.IGNORECASE)
OPERATOR_CHARS = re.compile(r"(<>|!=|<=|>=|\|\||!~|~|=|<|>|\+|/|%|\^|@|#|&)")
SPI_CALL = re.compile(r"\bSPI_(execute\w*|prepare\w*|cursor_open\w*|exec|execp)\s*\(")

def strip_comments(src):
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1]); i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i); i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2); out.append(" "); i = n if j < 0 else j + 2
        else:
            out.append(c); i += 1
    return "".join(out)

def literals_at(text, pos):
    """The adjacent string literals starting at pos (after blanks), joined."""
    m = re.compile(r'\s*("(?:[^"\\]|\\.)*")').match(text, pos)
    parts = []
    while m:
        parts.append(bytes(m.group(1)[1:-1], "utf-8").decode("unicode_escape"))
        pos = m.end()
        m = re.compile(r'\s*("(?:[^"\\]|\\.)*")').match(text, pos)
    return "".join(parts) if parts else None

def first_arg(text, pos):
    depth, j = 0, pos
    while j < len(text):
        c = text[j]
        if c in "([{": depth += 1
        elif c in ")]}":
            if depth == 0: break
            depth -= 1
        elif c == "," and depth == 0: break
        elif c == '"':
            j += 1
            while text[j] != '"': j += 2 if text[j] == "\\" else 1
        j += 1
    return text[pos:j].strip()

def query_texts(chunk):
    """(description, text) of every query text given to SPI in a chunk."""
    found = []
    for m in SPI_CALL.finditer(chunk):
        at = m.end()
        if m.group(1) in ("cursor_open_with_args", "cursor_parse_open"):
            at += len(chunk[at:]) - len(chunk[at:].lstrip())
            at += len(first_arg(chunk, at)) + 1   # the query text follows the cursor's name
            at += len(chunk[at:]) - len(chunk[at:].lstrip())
        arg = first_arg(chunk, at)
        lit = literals_at(chunk, at)
        if lit is not None and arg.startswith('"'):
            found.append((m.group(0).rstrip("( "), lit)); continue
        var = re.sub(r"\.data$", "", arg.lstrip("&*").strip())
        if not re.fullmatch(r"[A-Za-z_]\w*", var):
            found.append((m.group(0), None)); continue
        parts = []
        for b in re.finditer(r"\b%s\s*=\s*psprintf\s*\(" % re.escape(var), chunk):
            parts.append(literals_at(chunk, b.end()))
        for b in re.finditer(r"\bappendStringInfo\w*\s*\(\s*&\s*%s\s*," % re.escape(var), chunk):
            lit = literals_at(chunk, b.end())
            # An identifier appended through quote_identifier() is no call.
            if lit is None and re.match(r"\s*quote_(?:qualified_)?identifier\s*\(", chunk[b.end():]):
                continue
            parts.append(lit)
        for b in re.finditer(r"\b%s\s*=\s*" % re.escape(var), chunk):
            lit = literals_at(chunk, b.end())
            if lit is not None: parts.append(lit)
        if not parts or any(p is None for p in parts):
            found.append(("%s(%s)" % (m.group(0).rstrip("( "), var), None)); continue
        found.append(("%s(%s)" % (m.group(0).rstrip("( "), var), " ".join(parts)))
    return found

def findings(sql):
    bad = []
    s = re.sub(r"%(?:[-+ #0]*\d*(?:\.\d+)?(?:l|ll|z|h)?)[sdiufgxX]", " __ARG__ ", sql)
    s = re.sub(r"'(?:[^']|'')*'", " __LIT__ ", s)      # SQL string constants
    s = re.sub(r'"(?:[^"]|"")*"', " __QID__ ", s)      # quoted identifiers
    s = re.sub(r"\$\d+", " __PARAM__ ", s)
    # Qualified operators are fine; remove them before looking for bare ones.
    s = re.sub(r"OPERATOR\s*\(\s*pg_catalog\s*\.\s*[^)\s]+\s*\)", " __OP__ ", s, flags=re.IGNORECASE)
    s = s.replace("::", " __CAST__ ")
    for m in re.finditer(r"((?:[A-Za-z_]\w*|__\w+__)\s*\.\s*)?([A-Za-z_]\w*)\s*\(", s):
        qual, name = m.group(1), m.group(2)
        if qual:
            schema = qual.rstrip(". \t")
            if schema not in ("pg_catalog", "__ARG__"):
                bad.append("function %s%s() is not in pg_catalog or the extension's schema" % (qual.strip(), name))
        elif name.upper() not in KEYWORDS_BEFORE_PAREN and not name.startswith("__"):
            bad.append("unqualified function call %s()" % name)
    for m in re.finditer(r"\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+(ONLY\s+)?([^\s,()]+)?", s, flags=re.IGNORECASE):
        rel = m.group(3)
        if rel is None:
            continue                                   # a subquery or the end of a fragment
        if rel == "__ARG__" or re.fullmatch(r"(?:[A-Za-z_]\w*|__ARG__|__QID__)\.(?:[A-Za-z_]\w*|__QID__)", rel):
            continue
        bad.append("relation %s after %s has no schema" % (rel, m.group(1).upper()))
    for m in OPERATOR_WORDS.finditer(s):
        bad.append("%s resolves an operator on the search path" % m.group(0).upper())
    for m in OPERATOR_CHARS.finditer(s):
        bad.append("operator %s without OPERATOR(pg_catalog.%s)" % (m.group(1), m.group(1)))
    return bad

n_texts, problems = 0, []
for path in sys.argv[1:]:
    src = strip_comments(open(path, encoding="utf-8").read())
    line_of = lambda pos: src.count("\n", 0, pos) + 1
    start = 0
    for m in list(re.finditer(r"^\}.*$", src, flags=re.MULTILINE)) + [None]:
        end = m.end() if m else len(src)
        chunk = src[start:end]
        for what, text in query_texts(chunk):
            n_texts += 1
            where = "%s:%d" % (path.split("/extension/")[-1], line_of(start + chunk.find(what.split("(")[0])))
            if text is None:
                problems.append("%s: %s: query text not found (pass a literal, or build the variable with psprintf/appendStringInfo)" % (where, what))
                continue
            for b in findings(text):
                problems.append("%s: %s: %s in: %s" % (where, what, b, " ".join(text.split())))
        start = end
for p in problems:
    print("  " + p)
print("static: %d SPI query texts, %d findings" % (n_texts, len(problems)))
sys.exit(1 if problems else 0)
PY
)
static_rc=$?
echo "$static_out"
if [ "$static_rc" = 0 ]; then
  DETAIL+=("$(echo "$static_out" | tail -n1)")
else
  FAILED=1
  DETAIL+=("$(echo "$static_out" | tail -n1)")
fi

# ---- (a) catalog: pinned search paths ---------------------------------------------
if [ "$MODE" != "--static" ]; then
  BIN=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
  DB=gbdt_sqlsafety
  "$BIN/dropdb" --if-exists "$DB" >/dev/null 2>&1
  if ! "$BIN/createdb" "$DB"; then
    FAILED=1; DETAIL+=("createdb $DB failed")
  else
    cat_out=$("$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$DB" 2>&1 <<'SQL'
CREATE EXTENSION gbdt;
-- Each row is a finding.
SELECT format('  %s: LANGUAGE %s without SET search_path = pg_catalog, pg_temp (proconfig %s)',
              p.oid::regprocedure, l.lanname, coalesce(p.proconfig::text, 'none'))
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gbdt'
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e' AND l.lanname IN ('sql', 'plpgsql')
  AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
UNION ALL
SELECT format('  %s: LANGUAGE c with a SET clause (proconfig %s): qualify its SPI texts instead',
              p.oid::regprocedure, p.proconfig)
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gbdt'
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e' AND l.lanname = 'c' AND p.proconfig IS NOT NULL
ORDER BY 1;
SELECT format('catalog: %s sql/plpgsql functions of gbdt checked',
              count(*) FILTER (WHERE l.lanname IN ('sql', 'plpgsql')))
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gbdt'
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e';
SQL
)
    cat_rc=$?
    echo "$cat_out"
    "$BIN/dropdb" --if-exists "$DB" >/dev/null 2>&1
    if [ "$cat_rc" != 0 ] || echo "$cat_out" | grep -q '^  '; then
      FAILED=1
      DETAIL+=("catalog: $(echo "$cat_out" | grep -c '^  ') functions without a pinned search path${cat_rc/#0/}")
    else
      DETAIL+=("$(echo "$cat_out" | tail -n1)")
    fi
  fi
fi

if [ "$FAILED" = 0 ]; then
  echo "check-sql-safety: ok: $(IFS=';'; echo "${DETAIL[*]}")"
else
  echo "check-sql-safety: FAIL: $(IFS=';'; echo "${DETAIL[*]}")"
  exit 1
fi
