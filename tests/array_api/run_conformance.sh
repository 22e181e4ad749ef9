#!/usr/bin/env bash
# Run the public array API conformance suite (data-apis/array-api-tests) against
# npu_emu.array_api, standard 2024.12 (or $ARRAY_API_TESTS_VERSION), 20 examples per test,
# seed 0, no deadline, shrinking off, a fresh hypothesis database; known deviations in
# tests/array_api/xfails.txt.
#
#   tests/array_api/run_conformance.sh SUITE [test paths] [pytest args...]
#
# SUITE is an existing checkout of array-api-tests (with its array-api submodule), or a git
# URL (or local repository path) to clone it from, into $NPU_EMU_SUITE_DIR (default
# ./.array-api-tests), submodule included. ARRAY_API_TESTS_MODULE=array_api_strict runs the
# same suite on the reference implementation, for comparison (without our xfails file).
# The last lines printed are the counts (passed, failed, xfailed, skipped...).
set -euo pipefail
SUITE=${1:?usage: run_conformance.sh SUITE_DIR_OR_URL [pytest args...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -d "$SUITE/array_api_tests" ]; then
    DIR=$(cd "$SUITE" && pwd)
else
    DIR=${NPU_EMU_SUITE_DIR:-$PWD/.array-api-tests}
    if [ ! -d "$DIR/array_api_tests" ]; then
        git clone --quiet "$SUITE" "$DIR"
        git -C "$DIR" -c protocol.file.allow=always submodule update --init --quiet
    fi
fi
if [ ! -f "$DIR/array-api/src/array_api_stubs/__init__.py" ]; then
    echo "run_conformance.sh: $DIR has no array-api spec submodule (git submodule update --init)" >&2
    exit 2
fi
export ARRAY_API_TESTS_MODULE=${ARRAY_API_TESTS_MODULE:-npu_emu.array_api}
# ARRAY_API_TESTS_VERSION=2025.12 runs the suite at that standard, the namespace following it.
export ARRAY_API_TESTS_VERSION=${ARRAY_API_TESTS_VERSION:-2024.12}
export NPU_EMU_ARRAY_API_VERSION=$ARRAY_API_TESTS_VERSION
export NPU_EMU_HYPOTHESIS_DIR=$(mktemp -d)
XFAILS=()
if [ "$ARRAY_API_TESTS_MODULE" = npu_emu.array_api ]; then
    XFAILS=("--xfails-file=$HERE/xfails.txt")   # one word: a separate path would move pytest's rootdir
fi
# Test paths among the arguments narrow the run (e.g. array_api_tests/test_fft.py); without
# any, the whole suite runs.
TARGETS=(array_api_tests)
for a in "$@"; do case $a in array_api_tests*) TARGETS=(); break ;; esac; done
cd "$DIR"
PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" python -m pytest "${TARGETS[@]}" -q \
    -p no:cacheprovider -p conformance_plugin \
    --max-examples 20 --hypothesis-seed 0 --disable-deadline "${XFAILS[@]}" "$@"
