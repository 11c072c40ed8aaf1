#!/usr/bin/env bash
# The house checks: structure rules that need no build and no server.
#
#   bash scripts/check-house.sh            # all four checks
#   GBDT_LONG_FUNCTIONS=report bash scripts/check-house.sh   # long functions listed, not failed
#
#  a. comments: no people's letter tags ("// W: ...", "-- B: ...", "// X"), no
#     "engineer X", no "issue N" references in extension/, cuda/, test/ and
#     scripts/ (they belong in commit messages; test/bench/RESULTS.md, the
#     benchmark history, is exempt);
#  b. the glue (extension/pg/) includes engine headers only as "gbdt/*.h"
#     (extension/core/include/gbdt/), never an engine file by relative path;
#  c. no function over 150 lines in extension/ and cuda/.  GBDT_LONG_FUNCTIONS
#     says what an offender does: "fail" (the default) lists them and fails,
#     "report" lists them and passes;
#  d. every repository path that README.md, CONTRIBUTING.md, CHANGELOG.md and
#     docs/*.md name in `code` or as a link exists (a glob must match a file).
#
# The last line is "check-house: ok ..." or "check-house: FAIL ..." (what
# scripts/test.sh records); the exit status is 0 when every check passed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
LONG_MODE=${GBDT_LONG_FUNCTIONS:-fail}
MAX_LINES=${GBDT_MAX_FUNCTION_LINES:-150}
PY=${PYTHON:-python3}

# The files of the tree: tracked ones and new ones git does not ignore.
tree_files() { git ls-files --cached --others --exclude-standard -- "$@" | while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done; }

failed=()
summary=()

# ---- a. comment tags ---------------------------------------------------------
# A tag is one capital letter (optionally a digit) and a colon right after a
# comment marker: "// W:", "-- B2:", "# T:".  "issue N" in any case.
# A comment that is only such a letter ("// X" after a statement) is one too.
TAG_RE='(//|/\*|--|#)[[:space:]]*[A-Z][0-9]?:[[:space:]]|(//|/\*)[[:space:]]*[A-Z][0-9]?([[:space:]]*\*/)?[[:space:]]*$|[Ee]ngineers? [A-Z]\b|[Ii]ssues? #?[0-9]+'
tag_hits=$(tree_files extension cuda test scripts | grep -v -e '^test/bench/RESULTS\.md$' -e '^scripts/check-house\.sh$' \
           | tr '\n' '\0' | xargs -0 -r grep -nIE "$TAG_RE" -- 2>/dev/null)
if [ -n "$tag_hits" ]; then
  echo "check-house (a): letter tags, engineer names or issue numbers (say what they name instead):"
  echo "$tag_hits" | sed 's/^/  /'
  failed+=("$(echo "$tag_hits" | wc -l) comment tags")
else
  summary+=("no comment tags")
fi

# ---- b. the glue's engine includes -------------------------------------------
# An include of the glue must resolve inside extension/pg (from the file's
# folder or from extension/pg, the glue's -I) or be "gbdt/...", which must
# exist under extension/core/include.
inc_bad=()
while IFS= read -r f; do
  dir=$(dirname "$f")
  while IFS= read -r inc; do
    case "$inc" in
      gbdt/*)
        [ -f "extension/core/include/$inc" ] || inc_bad+=("$f: \"$inc\" is not in extension/core/include") ;;
      *)
        # Found from the file's folder or extension/pg: a glue header, or
        # (by a relative path out of the glue) an engine or other file of
        # the repository, which is the fault.  Not found: a PostgreSQL or
        # system header.
        hit=""
        for cand in "$dir/$inc" "extension/pg/$inc"; do
          [ -f "$cand" ] && { hit=$(realpath -m --relative-to=. "$cand"); break; }
        done
        case "$hit" in
          ""|extension/pg/*) ;;
          *) inc_bad+=("$f: \"$inc\" is $hit, outside the glue (include a gbdt/*.h header)") ;;
        esac ;;
    esac
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$f")
done < <(tree_files extension/pg | grep -E '\.(h|hpp|c|cc|cpp)$')
if [ "${#inc_bad[@]}" -gt 0 ]; then
  echo "check-house (b): the glue includes engine files other than gbdt/*.h:"
  printf '  %s\n' "${inc_bad[@]}"
  failed+=("${#inc_bad[@]} glue includes")
else
  summary+=("glue includes gbdt/*.h only")
fi

# ---- c. function lengths -----------------------------------------------------
read -r -d '' FUNC_PY <<'PYEOF'
# Prints "path:line: name N lines" for every function body longer than the
# limit.  Comments, strings and preprocessor lines are blanked first; a
# function is a brace block at namespace/class level whose header (the text
# since the last ';', '{' or '}') has a parameter list and is not a
# class/struct/union/enum/namespace/extern block or an initializer.
import re, sys
limit = int(sys.argv[1])

def blank(src):
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j
        elif c == 'R' and src.startswith('R"', i):
            m = re.match(r'R"([^()\\ ]{0,16})\(', src[i:])
            if not m:
                out.append(c); i += 1; continue
            end = src.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            out.append(' ' * (min(j + 1, n) - i)); i = j + 1
        else:
            out.append(c); i += 1
    text = ''.join(out)
    # Preprocessor lines (with continuations) are not code for this count.
    return re.sub(r'(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)

SCOPE = re.compile(r'\b(class|struct|union|enum|namespace)\b|extern\s*$|\bextern\s+$')
for path in sys.stdin.read().split():
    try:
        src = blank(open(path, encoding='utf-8', errors='replace').read())
    except OSError:
        continue
    stack = []          # for each open brace: 'scope', 'func' or 'block'
    head_start = 0      # index after the last ';', '{' or '}'
    func_open = None    # (index, name) of the function being read
    for i, c in enumerate(src):
        if c == '{':
            kind = 'block'
            if all(k == 'scope' for k in stack):
                head = src[head_start:i]
                h = ' '.join(head.split())
                if SCOPE.search(h.split('(')[0]) or h.endswith('extern "C"') or h == 'extern':
                    kind = 'scope'
                elif '(' in h and not re.search(r'=\s*$', h) and not h.rstrip().endswith(']'):
                    kind = 'func'
                    pre = h.split('(')[0].split()
                    func_open = (i, pre[-1] if pre else '?')
                elif h == '' or h.startswith('extern'):
                    kind = 'scope'
            stack.append(kind)
            head_start = i + 1
        elif c == '}':
            if stack:
                kind = stack.pop()
                if kind == 'func' and func_open:
                    start_line = src.count('\n', 0, func_open[0]) + 1
                    end_line = src.count('\n', 0, i) + 1
                    length = end_line - start_line + 1
                    if length > limit:
                        print(f"{path}:{start_line}: {func_open[1]} {length} lines")
                    func_open = None
            head_start = i + 1
        elif c == ';':
            head_start = i + 1
PYEOF
long=$(tree_files extension cuda | grep -E '\.(h|hpp|c|cc|cpp|cu|cuh)$' | "$PY" -c "$FUNC_PY" "$MAX_LINES")
nlong=$(printf '%s' "$long" | grep -c . || true)
if [ "$nlong" -gt 0 ]; then
  echo "check-house (c): functions over $MAX_LINES lines ($nlong; GBDT_LONG_FUNCTIONS=$LONG_MODE):"
  echo "$long" | sort -t' ' -k3,3nr | sed 's/^/  /'
  if [ "$LONG_MODE" = fail ]; then failed+=("$nlong functions over $MAX_LINES lines"); else summary+=("$nlong functions over $MAX_LINES lines (reported)"); fi
else
  summary+=("no function over $MAX_LINES lines")
fi

# ---- d. the paths the docs name ----------------------------------------------
docs=(README.md CONTRIBUTING.md CHANGELOG.md docs/*.md)
missing=$("$PY" - "${docs[@]}" <<'PYEOF'
# A path is a `code` span or a link target that starts with a top-level
# folder or file of the repository (extension/, test/, docs/, Makefile, ...);
# a link target relative to the page is checked from the page's folder.
import glob, os, re, subprocess, sys
tops = set()
for f in subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
                        capture_output=True, text=True).stdout.split():
    tops.add(f.split('/')[0])
tops.discard('build')
def slugs(page):
    out = set()
    body = re.sub(r'(?ms)^```.*?^```', '', open(page, encoding='utf-8').read())
    for h in re.findall(r'(?m)^#{1,6}\s+(.*?)\s*$', body):
        h = re.sub(r'[`*]', '', h).strip().lower()  # GitHub keeps '_' (pg_cron)
        out.add(re.sub(r'[^\w\- ]', '', h).replace(' ', '-'))
    return out
def exists(p):
    p = p.rstrip('/')
    if any(ch in p for ch in '*?['):
        return bool(glob.glob(p))
    return os.path.exists(p)
for doc in sys.argv[1:]:
    if not os.path.exists(doc):
        print(f"{doc}: the page itself is missing"); continue
    text = open(doc, encoding='utf-8').read()
    text_nofence = re.sub(r'(?ms)^```.*?^```', '', text)
    cands = []
    for m in re.finditer(r'`([^`\n]+)`', text_nofence):
        for tok in m.group(1).split():
            cands.append((tok, False))
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        cands.append((m.group(1), True))
    # Anchors of links into a page (#section, page.md#section): GitHub's
    # slugs of the page's headings.
    for m in re.finditer(r'\]\(([^)\s]*)#([^)\s]+)\)', text):
        target = os.path.normpath(os.path.join(os.path.dirname(doc), m.group(1))) if m.group(1) else doc
        if target.endswith('.md') and os.path.exists(target):
            if m.group(2) not in slugs(target):
                print(f"{doc}: {m.group(1)}#{m.group(2)} (no such heading)")
    seen = set()
    for tok, is_link in cands:
        tok = tok.strip('"\'(),;:.')
        tok = re.sub(r'#.*$', '', tok)
        tok = re.sub(r':[0-9]+$', '', tok)
        if not tok or '://' in tok or tok.startswith('mailto:') or any(ch in tok for ch in '$<>{}=@|'):
            continue
        if is_link:
            path = os.path.normpath(os.path.join(os.path.dirname(doc), tok))
        else:
            path = tok
        first = path.split('/')[0]
        if first not in tops or ('/' not in path and '.' not in path and first != 'Makefile'):
            continue
        if (doc, path) in seen:
            continue
        seen.add((doc, path))
        if not exists(path):
            print(f"{doc}: {tok}")
PYEOF
)
if [ -n "$missing" ]; then
  echo "check-house (d): paths named in the docs that do not exist:"
  echo "$missing" | sed 's/^/  /'
  failed+=("$(echo "$missing" | wc -l) missing doc paths")
else
  summary+=("every doc path exists")
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "check-house: FAIL: $(IFS=';'; echo "${failed[*]}")${summary:+ (passed: $(IFS=';'; echo "${summary[*]}"))}"
  exit 1
fi
echo "check-house: ok: $(IFS=';'; echo "${summary[*]}")"
