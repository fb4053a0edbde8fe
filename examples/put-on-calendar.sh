#!/usr/bin/env bash
# Put a meeting on a calendar, the whole path on the embedded defaults (issue #13):
# a slot found across two .ics calendars, proposed and signed by alice, taken in by the store,
# approved by bob with his own key, written once by a worker, read back, the plan completed.
# Everything lives in a fresh temporary folder; nothing outside it is touched.
#   CEREBRI=path/to/cerebri PYTHON=path/to/python bash examples/put-on-calendar.sh
set -euo pipefail
CEREBRI=${CEREBRI:-cerebri}
PYTHON=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/cerebri-meeting.XXXXXX")
cd "$work"
export CEREBRI_STORE="sqlite:///$work/store.sqlite3"
day=$(date -u -d "+2 days" +%Y%m%d)
iso=$(date -u -d "+2 days" +%Y-%m-%d)
say() { printf '\n== %s\n' "$*"; }
field() { "$PYTHON" -c "import json,sys; print(json.load(sys.stdin)$1)"; }

say "two calendars in $work: alice is busy 09:00-10:30 UTC, bob 10:30-11:30"
cat > alice.ics <<ICS
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//example//walkthrough//EN
BEGIN:VEVENT
UID:alice-standup@example.org
DTSTAMP:20260101T000000Z
DTSTART:${day}T090000Z
DTEND:${day}T103000Z
SUMMARY:Planning
END:VEVENT
END:VCALENDAR
ICS
cat > bob.ics <<ICS
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//example//walkthrough//EN
BEGIN:VEVENT
UID:bob-1on1@example.org
DTSTAMP:20260101T000000Z
DTSTART:${day}T103000Z
DTEND:${day}T113000Z
SUMMARY:1:1
END:VEVENT
END:VCALENDAR
ICS

say "a store, two principals with their keys; alice may create events in her calendar"
"$CEREBRI" store init
"$CEREBRI" keys new --dir keys alice --principal principal:alice
"$CEREBRI" keys new --dir keys bob --principal principal:bob
"$CEREBRI" principals add principal:alice --role requester
"$CEREBRI" principals add principal:bob --role approver
"$CEREBRI" principals key principal:alice --keys keys --keyid alice
"$CEREBRI" principals key principal:bob --keys keys --keyid bob
"$CEREBRI" principals grant principal:alice calendar.event.create --calendar alice

say "find a 30-minute slot both are free, as a request to create the event"
"$CEREBRI" find-slot --ics alice.ics --ics bob.ics --duration 30m \
    --between "${iso}T09:00/${iso}T12:30" --create "Design review" --top 3
"$CEREBRI" find-slot --ics alice.ics --ics bob.ics --duration 30m \
    --between "${iso}T09:00/${iso}T12:30" --create "Design review" --emit-request > request.json

say "alice proposes it: the plan graph, signed with her key (the envelope grants nothing)"
"$CEREBRI" propose request.json --as plan-graph --title "Design review" --limits local \
    --key keys/alice.pem --keyid alice --objects objects --expires-in 7d --out envelope.json

say "the store takes the envelope in (verified first); a worker runs until it must ask"
"$CEREBRI" submit envelope.json --objects objects
plan=$("$CEREBRI" plans list --json | field '[0]["id"]')
"$CEREBRI" worker --until-idle --ics-calendar alice=alice.ics
"$CEREBRI" approvals list

say "alice may not approve her own proposal; bob approves, signing with his key"
approval=$("$CEREBRI" approvals list --json | field '[0]["id"]')
"$CEREBRI" approvals show "$approval"   # what bob is asked to approve
if "$CEREBRI" approvals approve "$approval" --as principal:alice --key keys/alice.pem; then
    echo "alice's approval went through: this must never happen" >&2
    exit 1
fi
"$CEREBRI" approvals approve "$approval" --as principal:bob --key keys/bob.pem

say "the worker writes the event once, reads it back and completes the plan"
"$CEREBRI" worker --until-idle --ics-calendar alice=alice.ics
"$CEREBRI" plans show "$plan"
status=$("$CEREBRI" plans show "$plan" --json | field '["status"]')
events=$(grep -c '^SUMMARY:Design review' alice.ics || true)
say "alice.ics now holds $events 'Design review' event(s); the plan is $status"
"$CEREBRI" freebusy --ics alice.ics --between "${iso}T09:00/${iso}T12:30"
test "$status" = completed
test "$events" = 1
