#!/usr/bin/env bash
# headers.listed (tests/headers/CMakeLists.txt): each include folder holds
# exactly the headers its list names — so every public header is compiled
# on its own by switchyard_header_check and, for the C API, installed.
#   check_header_list.sh INCLUDE_DIR "LIST" [INCLUDE_DIR "LIST"]…
set -euo pipefail
status=0
while (($# >= 2)); do
  dir=$1 listed=$2
  shift 2
  present=$(cd "$dir" && find switchyard -path switchyard/gpu -prune -o \
              -type f \( -name '*.h' -o -name '*.hpp' \) -print | LC_ALL=C sort)
  expected=$(tr ' ' '\n' <<<"$listed" | sed '/^$/d' | LC_ALL=C sort)
  missing=$(LC_ALL=C comm -23 <(echo "$present") <(echo "$expected"))
  stale=$(LC_ALL=C comm -13 <(echo "$present") <(echo "$expected"))
  if [[ -n $missing ]]; then
    echo "in $dir but in no header list (add them to SWITCHYARD_API_HEADERS in" \
         "api/CMakeLists.txt or SWITCHYARD_SDK_HEADERS in sdk/CMakeLists.txt):" >&2
    echo "$missing" | sed 's/^/  /' >&2
    status=1
  fi
  if [[ -n $stale ]]; then
    echo "listed but not in $dir (remove them from the list):" >&2
    echo "$stale" | sed 's/^/  /' >&2
    status=1
  fi
  if ((status == 0)); then
    echo "$dir: $(wc -l <<<"$present") headers, each listed"
  fi
done
exit $status
