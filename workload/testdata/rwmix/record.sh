#!/usr/bin/env bash
# record.sh: re-record the iologs of jobs.fio with fio 3.33 (FIO=path to
# use another fio). Each job gets write_iolog=NAME.iolog in a temporary
# copy (stortest refuses write_iolog, and one log shared by several jobs
# interleaves their lines).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '{print} /^\[/ && $0 != "[global]" {n=substr($0, 2, length($0)-2); print "write_iolog='"$PWD"'/" n ".iolog"}' jobs.fio >"$tmp/jobs.fio"
rm -f ./*.iolog
(cd "$tmp" && "${FIO:-fio}" jobs.fio >/dev/null)
