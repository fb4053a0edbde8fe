#!/usr/bin/env bash
# Forty interviews over eight interviewers' real-looking .ics calendars, carried out
# (issue #24, decision 0081): the week's calendars and batch file are generated (seeded),
# the batch is optimised over them (internal meetings marked X-CEREBRI-MOVABLE may move),
# rita (recruiting) proposes it as one plan graph, victor approves the batch, each
# interviewer whose meeting moves approves that move, and a worker writes every interview
# into the candidate's and the room's calendar and moves the meetings, reading each back.
# Everything lives in a fresh temporary folder; nothing outside it is touched.
#   CEREBRI=path/to/cerebri PYTHON=path/to/python bash examples/interviews/run.sh
set -euo pipefail
CEREBRI=${CEREBRI:-cerebri}
PYTHON=${PYTHON:-python3}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cerebri-interviews.XXXXXX")
cd "$work"
export CEREBRI_STORE="sqlite:///$work/store.sqlite3"
say() { printf '\n== %s\n' "$*"; }
field() { "$PYTHON" -c "import json,sys; print(json.load(sys.stdin)$1)"; }

monday=$(date -u -d "next monday" +%Y-%m-%d)
say "the calendars of the week of $monday and batch.json in $work"
read -r -a calendars <<< "$("$PYTHON" "$here/bench/_interviews_data.py" "$work" "$monday")"
ls "$work"

say "optimise the 40 interviews over the calendars (repairs may move marked meetings)"
"$CEREBRI" optimize batch.json "${calendars[@]}" | head -70
"$CEREBRI" optimize batch.json "${calendars[@]}" --emit-request > request.json

say "principals: rita asks, victor approves batches, each interviewer owns their calendar"
"$CEREBRI" store init
"$CEREBRI" keys new --dir keys rita --principal principal:rita
"$CEREBRI" keys new --dir keys victor --principal principal:victor
"$CEREBRI" principals add principal:rita --role requester
"$CEREBRI" principals add principal:victor --role approver
"$CEREBRI" principals key principal:rita --keys keys --keyid rita
"$CEREBRI" principals key principal:victor --keys keys --keyid victor
for person in anna ben chloe david elena farid grace hiro; do
    "$CEREBRI" keys new --dir keys "$person" --principal "principal:$person" > /dev/null
    "$CEREBRI" principals add "principal:$person" --role approver > /dev/null
    "$CEREBRI" principals key "principal:$person" --keys keys --keyid "$person" > /dev/null
    "$CEREBRI" principals grant principal:rita calendar.event.move --calendar "$person" > /dev/null
done
for calendar in cand-1 cand-2 cand-3 cand-4 cand-5 atlas borealis cosmos; do
    "$CEREBRI" principals grant principal:rita calendar.event.create --calendar "$calendar" > /dev/null
done

say "rita proposes the batch as one plan graph; the store takes it in"
"$CEREBRI" propose request.json --as plan-graph --key keys/rita.pem --keyid rita \
    --objects objects --expires-in 14d --out envelope.json
"$CEREBRI" submit envelope.json --objects objects
plan=$("$CEREBRI" plans list --json | field '[0]["id"]')
workers=("${calendars[@]}")  # the worker writes to the same files, by the same ids

say "the worker asks for the batch's approval and writes nothing; victor approves"
"$CEREBRI" worker --until-idle "${workers[@]}"
approval=$("$CEREBRI" approvals list --json | field '[0]["id"]')
"$CEREBRI" approvals approve "$approval" --as principal:victor --key keys/victor.pem

say "the worker asks each owner of a moved meeting; each approves their own"
"$CEREBRI" worker --until-idle "${workers[@]}"
"$CEREBRI" approvals list
"$CEREBRI" approvals list --json | "$PYTHON" -c '
import json, sys
for row in json.load(sys.stdin):
    print(row["id"], row["request"]["approver"].split(":")[1])' | while read -r id person; do
    "$CEREBRI" approvals approve "$id" --as "principal:$person" --key "keys/$person.pem"
done

say "the worker writes every interview and moves the meetings, reading each back"
"$CEREBRI" worker --until-idle "${workers[@]}"
status=$("$CEREBRI" plans show "$plan" --json | field '["status"]')
interviews=$(cat cand-*.ics | grep -c '^SUMMARY:Interview' || true)
booked=$(cat atlas.ics borealis.ics cosmos.ics | grep -c '^SUMMARY:Interview' || true)
moved=$(grep -l '^X-CEREBRI-IDEMPOTENCY-KEY' anna.ics ben.ics chloe.ics david.ics elena.ics \
    farid.ics grace.ics hiro.ics | wc -l)
say "plan $status: $interviews interviews in the candidates' calendars, $booked room bookings, moves in $moved calendars"
test "$status" = completed
test "$interviews" = 40
