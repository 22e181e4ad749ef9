#!/usr/bin/env bash
# Run an array API client's own test suite, unchanged, on npu_emu.array_api (or, with
# NPU_EMU_CLIENT_XP=array_api_strict, on the reference implementation under the same harness).
#
#   tests/clients/run_clients.sh SUITE [test ids] [pytest args...]
#
# SUITE: sklearn (scikit-learn's array-API tests), scipy.cluster, scipy.fft, scipy.special,
# scipy.stats, scipy._lib (SciPy's `-m array_api_backends` tests; scipy: all five) or extra
# (array-api-extra's tests, from the sdist of the installed version, fetched with pip and
# unpacked once into $NPU_EMU_EXTRA_DIR, default ~/.cache/npu_emu/array-api-extra-VERSION;
# exit status 97 when it cannot be fetched: pytest's own codes are 0-5). Test ids are
# relative to the installed package's parent directory
# (sklearn/utils/tests/test_array_api.py::test_...) or, for extra, to its source tree
# (tests/main/...); without any, the whole suite runs. Each test has NPU_EMU_CLIENT_TIMEOUT
# seconds (default 120); NPU_EMU_CLIENT_OUTCOMES=FILE logs one 'outcome nodeid' line per test.
# The last line printed is pytest's count (passed, failed, skipped...).
set -euo pipefail
SUITE=${1:?usage: run_clients.sh sklearn|scipy|scipy.cluster|scipy.fft|scipy.special|scipy.stats|scipy._lib|extra [pytest args...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
export PYTHONPATH="$HERE:$REPO${PYTHONPATH:+:$PYTHONPATH}"
export NPU_EMU_CLIENT_XP=${NPU_EMU_CLIENT_XP:-npu_emu}
# Run from a pytest-xdist worker (our own test run), the suite's pytest is not a worker: with
# the worker's variables pytest-benchmark takes it for one and stops it (an internal error).
unset "${!PYTEST_XDIST@}"
case $NPU_EMU_CLIENT_XP in
    npu_emu|npu_emu.array_api) SCIPY_ID=npu_emu ;;
    array_api_strict) SCIPY_ID=array_api_strict ;;
    *) echo "run_clients.sh: NPU_EMU_CLIENT_XP is npu_emu or array_api_strict" >&2; exit 2 ;;
esac
site_of() { python -c "import os, $1; print(os.path.dirname(os.path.dirname($1.__file__)))"; }
ARGS=()
case $SUITE in
    sklearn)
        DIR=$(site_of sklearn); PLUGIN=sklearn_plugin; TARGET=sklearn; PREFIX=sklearn
        export SCIPY_ARRAY_API=1 ;;
    scipy|scipy.cluster|scipy.fft|scipy.special|scipy.stats|scipy._lib)
        if [ "$SUITE" = scipy ]; then TARGET="scipy/cluster scipy/fft scipy/special scipy/stats scipy/_lib"
        else TARGET=${SUITE/./\/}; fi
        DIR=$(site_of scipy); PLUGIN=scipy_plugin; PREFIX=scipy
        export SCIPY_ARRAY_API="[\"$SCIPY_ID\"]"
        ARGS=(-m array_api_backends) ;;
    extra)
        VERSION=$(python -c "import array_api_extra; print(array_api_extra.__version__)")
        DIR=${NPU_EMU_EXTRA_DIR:-$HOME/.cache/npu_emu/array-api-extra-$VERSION}
        if [ ! -d "$DIR/tests/main" ]; then
            TMP=$(mktemp -d)
            if ! python -m pip download --quiet --no-deps --no-binary array-api-extra \
                    "array-api-extra==$VERSION" -d "$TMP"; then
                echo "run_clients.sh: cannot fetch the sdist of array-api-extra $VERSION" >&2
                exit 97
            fi
            mkdir -p "$DIR"
            tar -xzf "$TMP"/array_api_extra-"$VERSION".tar.gz -C "$DIR" --strip-components=1
            rm -rf "$TMP"
        fi
        # tests/vendoring needs the vendored copy its meson build makes; tests/main is the suite.
        PLUGIN=extra_plugin; TARGET=tests/main; PREFIX=tests ;;
    *) echo "run_clients.sh: unknown suite $SUITE" >&2; exit 2 ;;
esac
read -r -a TARGETS <<< "$TARGET"
for a in "$@"; do case $a in $PREFIX/*) TARGETS=(); break ;; esac; done
cd "$DIR"
python -m pytest "${TARGETS[@]}" -q -p no:cacheprovider -p "$PLUGIN" "${ARGS[@]}" \
    --timeout "${NPU_EMU_CLIENT_TIMEOUT:-120}" "$@"
