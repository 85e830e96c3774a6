"""The fake qmd of the init-backends tests: a bash script on PATH, for faults the real qmd cannot show.

Where it answers at all it answers as qmd 2.8.3 does (tests/backends/qmd/test_fake_qmd.py holds it to the
real one), so memwarm's collection paths run against it as against qmd. tests/backends/support.py
re-exports what is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

# A fake qmd for fault tests: real executables on PATH, for faults the real qmd cannot show. Where it
# answers at all it answers as qmd 2.8.3 does (checked against tools/bin/qmd): collections live in
# `$QMD_CONFIG_DIR/index.yml` (`collections: {name: {path, pattern}}`, paths resolved, patterns quoted
# when YAML needs it), `collection list` prints the real text blocks (no path), `collection add` refuses
# a taken name or a path+pattern another collection holds with the real messages, and `collection
# remove` of an unknown name fails as qmd's does. So memwarm's kept/rebound/conflict paths run here too.
FAKE_QMD = r"""#!/bin/bash
# Behaviour comes from files in $FAKE_QMD_DIR:
#   log                 every invocation appended ("<pid> <args>")
#   update.sh / embed.sh / add.sh / list.sh / remove.sh / version.sh / search.sh
#                       sourced before the default behaviour of that (sub)command (they may exit first)
dir="${FAKE_QMD_DIR:?}"
echo "$$ $*" >> "$dir/log"
config_dir="${QMD_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/qmd}"
index="$config_dir/index.yml"
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/qmd"

# The index as qmd keeps it, created (empty) by the first command that needs it, with the database.
# With $FAKE_QMD_DIR/stateless (runs under a file-size limit) no index.yml is kept: nothing is listed,
# every add succeeds.
touch_index() {
  mkdir -p "$config_dir" "$cache_dir" && touch "$cache_dir/index.sqlite"
  [ -f "$dir/stateless" ] || [ -f "$index" ] || write_index < /dev/null
}

# name<TAB>path<TAB>pattern per collection, read from index.yml (plain or double-quoted scalars).
entries() {
  [ -f "$index" ] || return 0
  awk '
    function unquote(v) {
      if (v ~ /^".*"$/) { v = substr(v, 2, length(v) - 2); gsub(/\\"/, "\"", v); gsub(/\\\\/, "\\", v) }
      return v
    }
    /^[^ ]/ { in_collections = ($0 == "collections:"); if (name != "") flush(); next }
    in_collections && /^  [^ ]/ {
      if (name != "") flush()
      name = unquote(substr($0, 3, length($0) - 3)); next
    }
    in_collections && /^    path: / { path = unquote(substr($0, 11)); next }
    in_collections && /^    pattern: / { pattern = unquote(substr($0, 14)); next }
    function flush() { print name "\t" path "\t" pattern; name = ""; path = ""; pattern = "" }
    END { if (name != "") flush() }
  ' "$index"
}

yaml_scalar() {
  case "$1" in
    *[!A-Za-z0-9_./-]* | "") local v="${1//\\/\\\\}"; printf '"%s"' "${v//\"/\\\"}" ;;
    *) printf '%s' "$1" ;;
  esac
}

# index.yml from name<TAB>path<TAB>pattern lines on stdin.
write_index() {
  if [ -f "$dir/stateless" ]; then cat > /dev/null; return; fi
  local name path pattern body=""
  while IFS=$'\t' read -r name path pattern; do
    body+="  $(yaml_scalar "$name"):"$'\n'"    path: $(yaml_scalar "$path")"$'\n'
    body+="    pattern: $(yaml_scalar "$pattern")"$'\n'
  done
  mkdir -p "$config_dir"
  { if [ -n "$body" ]; then printf 'collections:\n%s' "$body"; else echo "collections: {}"; fi
    echo "models:"
    echo "  embed: hf:ggml-org/embeddinggemma-300M-GGUF/embeddinggemma-300M-Q8_0.gguf"
  } > "$index"  # in place, as qmd writes it (a temp file would outlive a full disk)
}

count_files() {
  ( shopt -s globstar nullglob; cd "$1" 2>/dev/null || exit 0; files=($2); echo "${#files[@]}" )
}

collection_list() {
  local n name path pattern
  n=$(entries | wc -l)
  if [ "$n" -eq 0 ]; then echo "No collections found. Run 'qmd collection add .' to create one."; return; fi
  printf 'Collections (%d):\n\n' "$n"
  while IFS=$'\t' read -r name path pattern; do
    printf '%s (qmd://%s/)\n  Pattern:  %s\n  Files:    %s\n  Updated:  0s ago\n\n' \
      "$name" "$name" "$pattern" "$(count_files "$path" "$pattern")"
  done < <(entries)
}

collection_add() {
  local target="" name="" mask="**/*.md" resolved other
  while [ $# -gt 0 ]; do
    case "$1" in
      --name) name="$2"; shift 2 ;;
      --mask) mask="$2"; shift 2 ;;
      *) target="$1"; shift ;;
    esac
  done
  resolved=$(realpath -m -- "${target:-.}")
  if [ ! -d "$resolved" ]; then
    printf 'Collection path does not exist.\n  Received: %s\n  Resolved: %s\n' "$target" "$resolved" >&2
    echo "Provide an existing directory and run 'qmd collection add <path>' again." >&2
    exit 1
  fi
  resolved=$(realpath -e -- "$resolved")
  name="${name:-$(basename "$resolved")}"
  if entries | cut -f1 | grep -Fqx -- "$name"; then
    printf "Collection '%s' already exists.\nUse a different name with --name <name>\n" "$name" >&2
    exit 1
  fi
  other=$(entries | awk -F'\t' -v p="$resolved" -v m="$mask" '$2 == p && $3 == m { print $1; exit }')
  if [ -n "$other" ]; then
    echo "A collection already exists for this path and pattern:" >&2
    printf '  Name: %s (qmd://%s/)\n' "$other" "$other" >&2
    printf "  Pattern: %s\n\nUse 'qmd update' to re-index it, or remove it first with " "$mask" >&2
    printf "'qmd collection remove %s'\n" "$other" >&2
    exit 1
  fi
  { entries; printf '%s\t%s\t%s\n' "$name" "$resolved" "$mask"; } | write_index
  local count
  count=$(count_files "$resolved" "$mask")
  printf "Creating collection '%s'...\nCollection: %s (%s)\n" "$name" "$resolved" "$mask"
  if [ "$count" -eq 0 ]; then echo "No files found matching pattern."; fi
  printf '\nIndexed: %s new, 0 updated, 0 unchanged, 0 removed\n' "$count"
  printf "\xe2\x9c\x93 Collection '%s' created successfully\n" "$name"
}

collection_remove() {
  if ! entries | cut -f1 | grep -Fqx -- "$1"; then
    printf "Collection not found: %s\nRun 'qmd collection list' to see available collections.\n" "$1" >&2
    exit 1
  fi
  local documents
  documents=$(entries | awk -F'\t' -v n="$1" '$1 == n { print $2 "\t" $3 }' | {
    IFS=$'\t' read -r path pattern; count_files "$path" "$pattern"; })
  entries | awk -F'\t' -v n="$1" '$1 != n' | write_index
  printf "\xe2\x9c\x93 Removed collection '%s'\n  Deleted %s documents\n" "$1" "$documents"
  if [ "$documents" -gt 0 ]; then printf '  Cleaned up %s orphaned content hashes\n' "$documents"; fi
}

# Hooks are sourced here, at the top level, so that they see qmd's own arguments ($1, $2, ...).
hook=""
case "$1" in
  --version) hook=version ;;
  collection) case "$2" in list | add | remove) hook="$2" ;; esac ;;
  update | embed | search) hook="$1" ;;
esac
if [ -n "$hook" ] && [ -f "$dir/$hook.sh" ]; then . "$dir/$hook.sh"; fi

case "$1" in
  "") exit 0 ;;
  --version) echo "qmd 2.8.3 (fake)" ;;
  collection)
    touch_index
    case "$2" in
      list) collection_list ;;
      add) shift 2; collection_add "$@" ;;
      remove) collection_remove "$3" ;;
      *) exit 0 ;;
    esac ;;
  update) touch_index; exit 0 ;;
  embed) exit 0 ;;
  search) echo "[]" ;;
  *) echo "fake qmd: unknown command $1" >&2; exit 2 ;;
esac
"""


def install_fake_qmd(bin_dir: Path, behaviours: Mapping[str, str] | None = None) -> Path:
    """Write the fake `qmd` into bin_dir (its state dir is bin_dir/state, passed as FAKE_QMD_DIR)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    state = bin_dir / "state"
    state.mkdir(exist_ok=True)
    qmd = bin_dir / "qmd"
    qmd.write_text(FAKE_QMD, encoding="utf-8")
    qmd.chmod(0o755)
    for name, body in (behaviours or {}).items():
        (state / f"{name}.sh").write_text(body, encoding="utf-8")
    return state


def fake_log(state: Path) -> list[str]:
    log = state / "log"
    if not log.exists():
        return []
    return [line.split(" ", 1)[1] if " " in line else "" for line in log.read_text().splitlines()]


def quiet_fake_log(state: Path) -> None:
    """For runs under a file-size limit: the fake qmd's invocation log goes to /dev/null, and it keeps no
    index.yml (qmd could not keep one either; the run is about memwarm's own files)."""
    (state / "log").unlink(missing_ok=True)
    (state / "log").symlink_to("/dev/null")
    (state / "stateless").touch()
