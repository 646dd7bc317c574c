#!/usr/bin/env bash
# The modelled paper's headline as README.md and docs/accuracy.md quote it (validation/paper_headline.json) is what
# the model gives over the paper's configuration space today: a change that moves it fails here until the record,
# and with it the documents (tests/test_paper_headline_docs.py), say what the model does. They had gone stale twice.
# Usage: paper_headline_test.sh P2PSIM SOURCE_DIR
set -euo pipefail
p2psim=$1
source=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$p2psim" sweep "$source/experiments/paper_reproduction.xml" --out "$tmp/paper" -j 2 >/dev/null
/usr/bin/python3 "$source/notebooks/p2psim_paper_headline.py" "$tmp/paper" --check "$source/validation/paper_headline.json"
