#!/bin/sh
# Builds the generated repository of the history benchmark (20,000 commits over 2,000 files,
# three years, skewed popularity, coupled pairs, reverts, fixups, renames) in DIR and keeps it,
# so that `gitlore analyze DIR` can be tried on it. Prints the benchmark's timings as it goes.
#
#   scripts/gen-history-repo.sh DIR [--commits N] [--files N]
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 DIR [--commits N] [--files N]" >&2
    exit 2
fi
dir=$1
shift
cd "$(dirname "$0")/.."
exec cargo run --release --bin gitlore-bench -- history --keep "$dir" "$@"
