#!/usr/bin/env bash
# scripts/cli-outputs.sh ROOT OUT
#
# Captures the observable behaviour of the bankdata CLI of a built checkout ROOT (bin/bankdata.js
# and dist/ present) into OUT, so that two checkouts (before / after a restructure) can be
# compared with:   diff -r OUT1 OUT2   (or only the masked files, see the end of this header).
#
# For every command, in a fixed order:
#   OUT/NN-name.cmd          the command line (paths shown as <ROOT>/<TMP>)
#   OUT/NN-name.out / .err   raw stdout / stderr
#   OUT/NN-name.rc           exit code
#   OUT/NN-name.masked       stdout with nondeterministic parts replaced by placeholders
#   OUT/NN-name.err.masked   stderr, masked the same way
#
# Everything runs in a fresh temporary directory (cwd), with --db / --data-dir / BANKDATA_* env
# pointing there: nothing is written into ROOT. Commands that talk to a bank run against
# `bankdata emulator` started on a free port with a fixed --seed and --start; the emulator's data
# clock is then moved with its control route, never by real time, for everything that matters
# (payments settle, pending rows settle). The emulator is stopped by its pid at the end.
#
# Compare two runs:  diff -r --exclude='*.out' --exclude='*.err' --exclude='*.cmd' RUN1 RUN2
#   (or: for f in RUN1/*.masked; do cmp -s "$f" "RUN2/${f##*/}" || echo "${f##*/}"; done)
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 ROOT_OF_BUILT_BANKDATA_CHECKOUT OUT_DIR" >&2
  exit 2
fi
ROOT=$(cd "$1" && pwd -P) || exit 2
OUT_ARG=$2
# The entry point: ROOT/bin/bankdata.js, or CLI_OUTPUTS_BIN (absolute path) if a restructure moved it.
BIN=${CLI_OUTPUTS_BIN:-$ROOT/bin/bankdata.js}
[ -f "$BIN" ] || { echo "no $BIN (set CLI_OUTPUTS_BIN to the bankdata.js entry point)" >&2; exit 2; }
[ -d "$ROOT/dist" ] || echo "warning: $ROOT/dist is missing (not built?)" >&2

mkdir -p "$OUT_ARG" || exit 2
OUT=$(cd "$OUT_ARG" && pwd -P)
# Idempotent: a rerun replaces the whole capture.
find "$OUT" -maxdepth 1 -type f \( -name '*.out' -o -name '*.err' -o -name '*.rc' -o -name '*.masked' -o -name '*.cmd' \) -delete

# Fixed inputs (same data every run).
EMU_SEED=7
EMU_START=2026-11-01T00:00:00Z          # a fixed past instant: the data clock starts here
DEMO_SEED=1
PAY_KEY_1=11111111-1111-4111-8111-111111111111
PAY_KEY_2=22222222-2222-4222-8222-222222222222
PAY_KEY_3=33333333-3333-4333-8333-333333333333
DATASETS=(transactions accounts balances statements parties consents runs payments payment_matches)
HELP_COMMANDS=(demo sync status check report emulator export payments consents meta schedule db completion)
SUB_HELP=("payments create" "payments track" "payments show" "payments reconcile"
  "consents add" "consents list" "consents show" "consents revoke" "consents create" "consents forget"
  "db backup" "db migrate" "db copy")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/bankdata-cli-outputs.XXXXXX")
TMP=$(cd "$TMP" && pwd -P)
cd "$TMP" || exit 2

EMU_PID=""
SCHED_PID=""
cleanup() {
  [ -n "$SCHED_PID" ] && kill -TERM "$SCHED_PID" 2>/dev/null
  [ -n "$EMU_PID" ] && kill -TERM "$EMU_PID" 2>/dev/null
  [ -n "$EMU_PID" ] && wait "$EMU_PID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT

# A clean, stable environment: no inherited BANKDATA_* setting, no colour, fixed locale and zone.
for v in $(env | sed -n 's/^\(BANKDATA_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export LC_ALL=C TZ=UTC NO_COLOR=1 FORCE_COLOR=0 CI=1 NODE_OPTIONS=
export HOME="$TMP/home"; mkdir -p "$HOME"

# config/local.json of the working directory (the config's second layer): one consent at a time.
# With the default concurrency (16) consents finish in a timing-dependent order, and the order of
# `skipped` / "not asked" entries in sync summaries (text and --json) follows it.
mkdir -p "$TMP/config"
echo '{ "sync": { "concurrency": 1 } }' > "$TMP/config/local.json"

BD=(node "$BIN")
N=0
RUN_START_MS=$(date +%s%3N)

# ---------------------------------------------------------------------------------------------
# Masking. Narrow on purpose: data values (amounts, counts, names, ids the emulator derives from
# its seed, the world's own timestamps) stay; what depends on the wall clock, on randomness or on
# the machine is replaced.
MASKER="$TMP/mask.cjs"
cat > "$MASKER" <<'EOF'
const fs = require('fs');
const [, , file, outFile, root, tmp, emuStart, runStartMs, secretsFile] = process.argv;
let s = fs.readFileSync(file, 'latin1');
const secrets = fs.existsSync(secretsFile) ? fs.readFileSync(secretsFile, 'utf8').split('\n').filter(Boolean) : [];
const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// 1. machine paths
s = s.split(tmp).join('<TMP>').split(root).join('<ROOT>');
s = s.replace(/\/tmp\/bankdata-error-[^\s"']+/g, '<ERROR-REPORT>');
// 2. secrets and random client ids the emulator makes at start (listed by the script)
for (const [i, x] of secrets.entries()) s = s.split(x).join(`<SECRET-${i}>`);
// 3. ports on loopback
s = s.replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:<PORT>');
// 4. instants: wall-clock ones (from a day before this capture began on) and data-clock ones
//    (the emulator's clock runs with real time between control moves: the first 30 minutes after
//    its start and after each move of whole days are masked; the world's own data is kept).
const startMs = Date.parse(emuStart);
const wallFrom = Number(runStartMs) - 4 * 86400e3; // the demo's clock starts 3 days back
const wallTo = Date.now() + 15 * 3600e3;             // NZ local times read as UTC run ahead; later: the world's future data (expiries)
const isWall = (ms) => ms >= wallFrom && ms <= wallTo;
const DAY = 86400e3;
const isDataNow = (ms) => { const d = ms - startMs; if (d < 0) return false; const r = d % DAY; return d <= 10 * DAY && r < 30 * 60e3 && !(r === 0); };
s = s.replace(/\b(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b/g, (m) => {
  let iso = m.replace(' ', 'T'); if (!/(Z|[+-]\d{2}:?\d{2})$/.test(iso)) iso += 'Z';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return m;
  if (isWall(ms)) return '<WALL-TIME>';
  if (isDataNow(ms)) return '<DATA-NOW>';
  return m;
});
// compact ISO (file names, backups): 20261125T130245123Z and the like
s = s.replace(/\b20\d{6}T\d{6,9}Z?\b/g, (m) => '<WALL-TIME-COMPACT>');
// compact local forms (OFX DTSERVER 20261125130641.491[0:GMT]) of the wall clock
s = s.replace(/\b(20\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d{1,3})?(?!\d)/g, (m, y, mo, d, h, mi, se) =>
  (isWall(Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${se}Z`)) ? '<WALL-TIME-COMPACT>' : m));
// epoch milliseconds of the wall clock
s = s.replace(/\b1[6-9]\d{11}\b/g, (m) => (isWall(Number(m)) ? '<EPOCH-MS>' : m));
// 5. durations
s = s.replace(/"(duration_?ms|durationMs|elapsed_?ms|elapsedMs|took_?ms|ms)"\s*:\s*\d+(\.\d+)?/gi, '"$1": <MS>');
s = s.replace(/\b\d+(\.\d+)?( ?)(ms|s)\b(?=[\s.,;)\]"']|$)/g, '<DUR>$2$3');
// 6. process ids
s = s.replace(/("pid"\s*:\s*)\d+/g, '$1<PID>').replace(/\bpid \d+\b/g, 'pid <PID>');
// 6b. days to expiry: the CLI counts them from the wall-clock date to the (fixed) expiry dates of
//    the emulator's world, so they change from one day to the next (not within a day).
s = s.replace(/("days_to_expiry"\s*:\s*)-?\d+/g, '$1<DAYS>').replace(/-?\b\d+ day\(s\)/g, '<DAYS> day(s)');
s = s.replace(/^(\S+ +\S+ +\S+ +\d{4}-\d\d-\d\d +)-?\d+(?= )/gm, '$1<DAYS>');   // consents list: EXPIRES (NZ)  DAYS
{ // CSV with a days_to_expiry column
  const lines = s.split('\n'); const hdr = lines[0].replace(/^\uFEFF/, '').split(','); const col = hdr.indexOf('days_to_expiry');
  if (col >= 0) {
    const cells = (l) => { const out = []; let cur = '', q = false; for (const ch of l) { if (ch === '"') q = !q; if (ch === ',' && !q) { out.push(cur); cur = ''; } else cur += ch; } out.push(cur); return out; };
    s = lines.map((l, i) => { if (i === 0 || l === '') return l; const c = cells(l); if (/^-?\d+\r?$/.test(c[col] ?? '')) c[col] = c[col].replace(/-?\d+/, '<DAYS>'); return c.join(','); }).join('\n');
  }
}
// 8. the demo runs its own emulator whose clock starts at real now minus 3 days: how many
//    windows (and so requests) its backfill needs depends on that instant.
if (/-demo[^/]*$/.test(file)) {
  // and it registers its consents in one loop: equal registration milliseconds sort by id, so the
  // order of the per-consent lines of its summaries varies: each block of them is sorted.
  const lines = s.split('\n'), keyOf = (l) => (l.match(/^(  skipped |  not asked |               \S)/) || [])[1]?.slice(0, 12);
  for (let i = 0; i < lines.length; ) {
    const k = keyOf(lines[i]); let j = i + 1;
    if (k) { while (j < lines.length && keyOf(lines[j]) === k) j++; lines.splice(i, j - i, ...lines.slice(i, j).sort()); }
    i = j;
  }
  s = lines.join('\n');
  s = s.replace(/^(  requests   )\d+$/gm, '$1<N>').replace(/^(  windows    )\d+ /gm, '$1<N> ').replace(/("requests": )\d+/g, '$1<N>');
}
// 7. UUIDs: numbered by first appearance in this file, so structure (which id is which) still shows.
//    Ids seeded by the emulator are the same every run but numbering keeps them readable too.
const seen = new Map();
s = s.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, (m) => {
  const k = m.toLowerCase();
  if (!seen.has(k)) seen.set(k, `<UUID-${seen.size + 1}>`);
  return seen.get(k);
});
// 9. progress lines redrawn with \r (a TTY never here, but be safe): keep the last frame
s = s.replace(/[^\n]*\r(?!\n)/g, '');
fs.writeFileSync(outFile, s, 'latin1');
EOF
SECRETS="$TMP/secrets.txt"; : > "$SECRETS"

mask_one() { # FILE MASKED
  node "$MASKER" "$1" "$2" "$ROOT" "$TMP" "$EMU_START" "$RUN_START_MS" "$SECRETS"
}

# run NAME [TIMEOUT_S] -- ARGS...   runs `bankdata ARGS...` (stdin closed) and records it
run() {
  local name=$1; shift
  local t=180
  if [ "$1" != "--" ]; then t=$1; shift; fi
  shift # --
  N=$((N + 1))
  local base; base=$(printf '%s/%02d-%s' "$OUT" "$N" "$name")
  printf 'bankdata' > "$base.cmd"; printf ' %q' "$@" >> "$base.cmd"; echo >> "$base.cmd"
  timeout -k 5 "$t" "${BD[@]}" "$@" < /dev/null > "$base.out" 2> "$base.err"
  echo $? > "$base.rc"
}

# record NAME CMD... : any shell command's output as a capture (files the CLI wrote, control calls)
record() {
  local name=$1; shift
  N=$((N + 1))
  local base; base=$(printf '%s/%02d-%s' "$OUT" "$N" "$name")
  printf '%q ' "$@" > "$base.cmd"; echo >> "$base.cmd"
  "$@" < /dev/null > "$base.out" 2> "$base.err"
  echo $? > "$base.rc"
}

# ---------------------------------------------------------------------------------------------
# 1. Help, version, completion: no database, no network.
run root-version -- --version
run root-help -- --help
for c in "${HELP_COMMANDS[@]}"; do run "help-$c" -- $c --help; done
for c in "${SUB_HELP[@]}"; do run "help-${c// /-}" -- $c --help; done
run completion-bash -- completion bash
run completion-zsh -- completion zsh

# 2. Usage and database errors (exit codes 2, 6).
run err-unknown-command -- nosuchcommand
run err-export-bad-format -- --db "$TMP/none.sqlite" export transactions --format xml
run err-export-bad-dataset -- --db "$TMP/none.sqlite" export nosuchdataset --format csv
run err-status-missing-db -- --db "$TMP/none.sqlite" status --json
run err-sync-no-credentials -- --db "$TMP/nocred.sqlite" --data-dir "$TMP/nocred" sync --json

# 3. The demo (its own emulator, its own clock: real now minus 3 days), in its own data dir.
mkdir -p "$TMP/demo"
run demo 300 -- --data-dir "$TMP/demo/data" demo --seed="$DEMO_SEED"
DEMO_DB="$TMP/demo/data/demo/bankdata.sqlite"
run demo-status-json -- --db "$DEMO_DB" --data-dir "$TMP/demo/data" status --json
run demo-check-json -- --db "$DEMO_DB" --data-dir "$TMP/demo/data" check --json
record demo-exports-ls bash -c 'cd "$1" && for f in exports/*; do printf "%s %s\n" "$f" "$(wc -l < "$f")"; done' _ "$TMP/demo/data"

# 4. The emulator: fixed seed and start, free port.
N=$((N + 1))
EMU_BASE=$(printf '%s/%02d-emulator' "$OUT" "$N")
printf 'bankdata emulator --port 0 --seed %s --start %s\n' "$EMU_SEED" "$EMU_START" > "$EMU_BASE.cmd"
"${BD[@]}" emulator --port 0 --seed="$EMU_SEED" --start "$EMU_START" < /dev/null > "$EMU_BASE.out" 2> "$TMP/emulator.log" &
EMU_PID=$!
for _ in $(seq 1 100); do [ -s "$EMU_BASE.out" ] && break; sleep 0.1; done
if ! [ -s "$EMU_BASE.out" ]; then echo "the emulator did not start" >&2; cat "$TMP/emulator.log" >&2; exit 1; fi
emu() { node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8").split("\n")[0]);const v=process.argv[2].split(".").reduce((o,k)=>o[k],j);console.log(Array.isArray(v)?v.join("\n"):v)' "$EMU_BASE.out" "$1"; }
BASE_URL=$(emu base_url)
mapfile -t CONSENTS < <(emu consent_ids)
{ emu client_id; emu client_secret; emu payments_client_id; emu payments_client_secret; } >> "$SECRETS"
export BANKDATA_ENVIRONMENT=sandbox
export BANKDATA_DATA_BASE_URL="$BASE_URL"
export BANKDATA_CLIENT_ID; BANKDATA_CLIENT_ID=$(emu client_id)
export BANKDATA_CLIENT_SECRET; BANKDATA_CLIENT_SECRET=$(emu client_secret)
export BANKDATA_PAYMENTS_BASE_URL; BANKDATA_PAYMENTS_BASE_URL=$(emu payments_base_url)
export BANKDATA_PAYMENTS_CLIENT_ID; BANKDATA_PAYMENTS_CLIENT_ID=$(emu payments_client_id)
export BANKDATA_PAYMENTS_CLIENT_SECRET; BANKDATA_PAYMENTS_CLIENT_SECRET=$(emu payments_client_secret)
export BANKDATA_REDIRECT_WHITELIST=https://app.example.nz/consent/return   # the emulator's default whitelist
export BANKDATA_DB="$TMP/emu/bankdata.sqlite"
export BANKDATA_DATA_DIR="$TMP/emu/data"
mkdir -p "$TMP/emu/data"
PC_SINGLE=$(emu payment_consents.single-1)
PC_ENDURING=$(emu payment_consents.enduring)
PC_REJECTED=$(emu payment_consents.single-rejected)
# consent_ids of the seeded world: 0-3 Authorised, 4 AwaitingAuthorisation, 5 GatewayAwaitingSubmission,
# 6 Rejected, 7 Revoked, 8 Consumed, 9 GatewayTimeout
control() { # METHOD PATH [JSON]
  curl -sS -X "$1" -H 'content-type: application/json' ${3:+--data "$3"} "$BASE_URL/__emulator/$2"
  echo
}

record emulator-state control GET state

# 5. Against the emulator.
run meta -- meta
run meta-json -- meta --json
run meta-offline-json -- meta --offline --json
# Registered in id order: the registry lists by registration instant, then id, so equal
# milliseconds could otherwise reorder consents (and the order in which they sync) between runs.
mapfile -t CONSENTS_SORTED < <(printf '%s\n' "${CONSENTS[@]}" | LC_ALL=C sort)
run consents-add -- consents add "${CONSENTS_SORTED[@]}"
run consents-add-again -- consents add "${CONSENTS[0]}"
run consents-list-offline-json -- consents list --offline --json
run consents-list -- consents list
run consents-list-json -- consents list --json
run consents-show -- consents show "${CONSENTS[0]}"
run consents-show-json -- consents show "${CONSENTS[0]}" --json
run consents-show-offline-json -- consents show "${CONSENTS[6]}" --offline --json
run consents-show-unregistered -- consents show 00000000-0000-4000-8000-000000000000 --json
run sync-dry-run -- sync --dry-run
run sync-dry-run-json -- sync --dry-run --json
run sync-json -- sync --json
run status -- status
run status-json -- status --json
run check -- check
run check-json -- check --json

run payments-create-single-json -- payments create --consent "$PC_SINGLE" --key "$PAY_KEY_1" --json
run payments-create-enduring-json -- payments create --consent "$PC_ENDURING" --amount 25.00 --particulars baseline --code demo --reference r1 --key "$PAY_KEY_2" --json
run payments-create-enduring-duplicate -- payments create --consent "$PC_ENDURING" --amount 25.00 --particulars baseline --code demo --reference r1
run payments-create-rejected-consent -- payments create --consent "$PC_REJECTED" --key "$PAY_KEY_3" --json
run payments-track-once-json-before -- payments track --once --json

# The bank's clock moves two days: payments settle, pending rows settle, new rows appear.
record emulator-clock-advance-2d control POST clock '{"advance_seconds":172800}'

run payments-track-once-json -- payments track --once --json
run payments-track-once -- payments track --once
run sync-incremental -- sync
run sync-consent-json -- sync --consent "${CONSENTS[0]}" --json
run sync-full-json -- sync --full --json
PAYMENT_ID=$(node -e 'try{const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(j.payment_id)}catch{console.log("00000000-0000-4000-8000-000000000000")}' "$(ls "$OUT"/*-payments-create-single-json.out 2>/dev/null | head -1)")
run payments-show-json -- payments show "$PAYMENT_ID" --json
run payments-show -- payments show "$PAYMENT_ID"
run payments-reconcile-json -- payments reconcile --json
run payments-reconcile -- payments reconcile

run consents-create-gateway-json -- consents create --bank PNZ --flow gateway --no-wait --json
run consents-create-redirect -- consents create --bank PNZ --flow redirect --no-wait
run consents-create-bad-bank -- consents create --bank ANZ --flow gateway --no-wait --json
NEW_CONSENT=$(node -e 'try{const s=require("fs").readFileSync(process.argv[1],"utf8");const m=s.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);console.log(m?m[0]:"00000000-0000-4000-8000-000000000000")}catch{console.log("00000000-0000-4000-8000-000000000000")}' "$(ls "$OUT"/*-consents-create-gateway-json.out 2>/dev/null | head -1)")
record emulator-authorise-new-consent control POST "consents/$NEW_CONSENT/authorise" '{}'
run consents-show-new-json -- consents show "$NEW_CONSENT" --json
run consents-revoke -- consents revoke "${CONSENTS[3]}"
run consents-revoke-again -- consents revoke "${CONSENTS[3]}"
run consents-forget-dry-run -- consents forget "${CONSENTS[3]}" --dry-run
run consents-forget -- consents forget "${CONSENTS[3]}"
run consents-list-offline-json-end -- consents list --offline --json
run status-json-end -- status --json --runs 10
run status-end -- status --runs 10
run check-json-end -- check --json

# 6. Exports of every dataset: csv, json, ndjson (stdout); a few file and statement formats.
for d in "${DATASETS[@]}"; do
  for f in csv json ndjson; do run "export-$d-$f" -- export "$d" --format "$f"; done
done
ACCOUNT=$(node -e 'try{const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const a=(Array.isArray(j)?j:j.rows||[]).map(r=>r.account_id).filter(Boolean).sort();console.log(a[0]||"none")}catch{console.log("none")}' "$(ls "$OUT"/*-export-accounts-json.out 2>/dev/null | head -1)")
run export-transactions-ofx-one-account -- export transactions --format ofx --account "$ACCOUNT"
run export-transactions-xero-one-account -- export transactions --format xero --account "$ACCOUNT"
run export-transactions-myob-one-account -- export transactions --format myob --account "$ACCOUNT"
run export-transactions-csv-filtered -- export transactions --format csv --lf --from 2026-10-01 --to 2026-10-31 --status booked
run export-transactions-csv-file -- export transactions --format csv --out "$TMP/tx.csv"
record export-transactions-csv-file-content cat "$TMP/tx.csv"

# 7. Report, database commands, scheduler.
run report -- report --out "$TMP/report.html"
record report-html cat "$TMP/report.html"
run db-backup -- db backup "$TMP/backup.sqlite"
run db-migrate -- db migrate
run db-copy-sqlite-to-sqlite-refused -- db copy --from "$BANKDATA_DB" --to "$TMP/copy.sqlite"
run status-json-of-backup -- --db "$TMP/backup.sqlite" status --json

N=$((N + 1))
SCHED_BASE=$(printf '%s/%02d-schedule-start-stop' "$OUT" "$N")
echo 'bankdata schedule  (stopped with SIGTERM once it printed its started line)' > "$SCHED_BASE.cmd"
"${BD[@]}" schedule < /dev/null > "$SCHED_BASE.out" 2> "$SCHED_BASE.err" &
SCHED_PID=$!
for _ in $(seq 1 100); do grep -q '"started"' "$SCHED_BASE.out" 2>/dev/null && break; sleep 0.1; done
kill -TERM "$SCHED_PID" 2>/dev/null
wait "$SCHED_PID"; echo $? > "$SCHED_BASE.rc"
SCHED_PID=""

# 8. Stop the emulator (by pid); its exit code belongs to its capture.
kill -TERM "$EMU_PID"
wait "$EMU_PID"; echo $? > "$EMU_BASE.rc"
EMU_PID=""
: > "$EMU_BASE.err"   # its request log (stderr) is timing-dependent: kept out of the capture

# ---------------------------------------------------------------------------------------------
for f in "$OUT"/*.out; do mask_one "$f" "${f%.out}.masked"; done
for f in "$OUT"/*.err; do mask_one "$f" "$f.masked"; done
for f in "$OUT"/*.cmd; do mask_one "$f" "$f.tmp" && mv "$f.tmp" "$f"; done

echo "captured $N commands into $OUT" >&2
awk 'FNR==1 && $0!="0" { n=FILENAME; sub(/.*\//,"",n); printf "  rc %-3s %s\n", $0, n }' "$OUT"/*.rc >&2
