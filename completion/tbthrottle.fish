# Fish completion for tbthrottle(1): options, their values, and for -R the
# running tbthrottles of this user.  make install puts it where fish looks.

# The pids and names of this user's running tbthrottles, from the lines
# of --list that start with a pid (then the name or '-', and the limits),
# each described by the other.
function __tbthrottle_running
    command -q tbthrottle; or return
    command tbthrottle --list 2>/dev/null | while read -l pid name rest
        string match -qr '^[0-9]+$' -- $pid; or continue
        set -l limits (string split -m 1 ';' -- (string trim -- $rest))[1]
        if test "$name" = -
            printf '%s\t%s\n' $pid $limits
        else
            printf '%s\t%s\n' $pid "$name, $limits" $name "pid $pid, $limits"
        end
    end
end

# The names of the zone data, for --tz: not the tables beside them, nor
# the posix/ and right/ copies.
function __tbthrottle_zones
    set -l dir /usr/share/zoneinfo
    set -q TZDIR; and set dir $TZDIR
    for f in $dir/**
        test -f $f; or continue
        string replace -- $dir/ '' $f |
            string match -rv '^(UTC|localtime|posixrules|leapseconds|SECURITY|[+]VERSION)$|^(posix|right)/|[.](tab|zi|list)$'
    end
end

# Rates to offer: of records, or with -c of bytes (as pv's -L gives them).
function __tbthrottle_rates
    if contains -- -c (commandline -opc); or contains -- --bytes (commandline -opc)
        __tbthrottle_byte_rates
    else
        printf '%s\n' 10/s 100/min 1000/h 5/2s 1/0.2s 1/day inf
    end
end

function __tbthrottle_byte_rates
    printf '%s\n' 1M/s 500k/s 64K/s 10MB/min 1G/h inf
end

# After --exec CMD and until a lone ';': the words of the command typed
# there (tbthrottle --exec CMD ARG... is CMD ARG...); none, and the
# function fails, elsewhere.
function __tbthrottle_exec_words
    set -l words (commandline -opc)
    set -l at (contains -i -- --exec $words); or return 1
    set -l sub $words[(math $at + 1)..-1]
    test (count $sub) -ge 1; and not contains -- ';' $sub; or return 1
    # (string join fails when it has one word, which it prints all the same.)
    string join ' ' -- (string escape -- $sub)
    return 0
end

# Not after --exec CMD: tbthrottle's options are not the command's.
function __tbthrottle_ours
    not __tbthrottle_exec_words >/dev/null
end

# What CMD's own completion offers for its arguments after --exec CMD.
function __tbthrottle_exec_args
    set -l line (__tbthrottle_exec_words); or return
    set -l cur (commandline -ct)
    complete -C "$line $cur"
end

set -l bursts '1 10 100 1s 10ms'
set -l bytes ",\t'a comma' '\\\\t'\t'a tab' '\\\\0'\tNUL '|'\t'a bar' '\\\\x1e'\t'the record separator'"

# Files are the operands.
complete -c tbthrottle -n __tbthrottle_ours -s r -l rate -x -a '(__tbthrottle_rates)' -d 'Units per period; repeat for several limits'
complete -c tbthrottle -n __tbthrottle_ours -s b -l burst -x -a $bursts -d 'Bucket size of the -r before it'
complete -c tbthrottle -n __tbthrottle_ours -s l -l lines -d 'A unit is a line ending in newline'
complete -c tbthrottle -n __tbthrottle_ours -s 0 -l null -d 'A unit is a record ending in NUL'
complete -c tbthrottle -n __tbthrottle_ours -s d -l delimiter -x -a $bytes -d 'A unit is a record ending in byte C'
complete -c tbthrottle -n __tbthrottle_ours -s c -l bytes -d 'A unit is a byte'
complete -c tbthrottle -n __tbthrottle_ours -l byte-rate -x -a '(__tbthrottle_byte_rates)' -d 'Also limit records by their bytes'
complete -c tbthrottle -n __tbthrottle_ours -l byte-burst -x -a $bursts -d 'Bytes the byte limit may burst'
complete -c tbthrottle -n __tbthrottle_ours -s a -l algorithm -x -d 'The limiting algorithm' -a "
    token\t'bursts up to BURST (default)'
    leaky\t'one unit every 1/RATE, evenly spaced'
    sliding\t'at most N in any PERIOD'
    fixed\t'at most N per PERIOD on the wall clock'"
complete -c tbthrottle -n __tbthrottle_ours -l leaky -d 'Same as -a leaky'
complete -c tbthrottle -n __tbthrottle_ours -l tz -x -d 'With -a fixed, windows of the calendar of ZONE' -a "UTC local (__tbthrottle_zones)"
complete -c tbthrottle -n __tbthrottle_ours -l initial -x -a $bursts -d 'Tokens in the bucket at start'
complete -c tbthrottle -n __tbthrottle_ours -l catch-up -x -a '0 1ms 10ms 100ms' -d 'How late a unit may be and keep its slot'
complete -c tbthrottle -n __tbthrottle_ours -s k -l key -x -d 'A bucket of its own for each value of field FIELD'
complete -c tbthrottle -n __tbthrottle_ours -s F -l field-separator -x -a $bytes -d 'Fields end at byte C'
complete -c tbthrottle -n __tbthrottle_ours -l max-keys -x -d 'Most keys with a live bucket'
complete -c tbthrottle -n __tbthrottle_ours -l tiers -r -F -d 'Rates by key from FILE'
complete -c tbthrottle -n __tbthrottle_ours -l total-rate -x -a '(__tbthrottle_rates)' -d 'All keys together no faster than RATE'
complete -c tbthrottle -n __tbthrottle_ours -l total-burst -x -a $bursts -d 'The burst of --total-rate'
complete -c tbthrottle -n __tbthrottle_ours -l order -x -d 'With -k, which held record goes first' -a "
    input\t'in input order (default)'
    key\t'each key at its own pace'"
complete -c tbthrottle -n __tbthrottle_ours -l shared -x -d 'Draw from the bucket NAME, shared by your runs'
complete -c tbthrottle -n __tbthrottle_ours -l state-dir -x -a '(__fish_complete_directories)' -d 'Keep --shared buckets in DIR'
complete -c tbthrottle -n __tbthrottle_ours -l redis -x -a 'redis://127.0.0.1:6379 unix:///run/redis/redis.sock' -d 'Keep the --shared bucket in Redis'
complete -c tbthrottle -n __tbthrottle_ours -l redis-fallback -x -d 'What to do while Redis is down' -a "
    block\t'wait for Redis (default)'
    local\t'limit this process alone'
    fail\t'exit with an error'"
complete -c tbthrottle -n __tbthrottle_ours -l redis-allow-eviction -d 'Run on a server that evicts keys'
complete -c tbthrottle -n __tbthrottle_ours -l redis-cacert -r -F -d 'With rediss://, trust the CAs of FILE'
complete -c tbthrottle -n __tbthrottle_ours -l redis-cert -r -F -d 'With rediss://, our certificate'
complete -c tbthrottle -n __tbthrottle_ours -l redis-key -r -F -d 'The private key of --redis-cert'
complete -c tbthrottle -n __tbthrottle_ours -l redis-insecure -d 'With rediss://, take any certificate'
complete -c tbthrottle -n __tbthrottle_ours -l queue -x -d 'At most N records wait'
complete -c tbthrottle -n __tbthrottle_ours -l drop -d 'Drop units that find no token instead of waiting'
complete -c tbthrottle -n __tbthrottle_ours -l drop-to -r -F -d 'Drop units that find no token, appending them to FILE'
complete -c tbthrottle -n __tbthrottle_ours -l exec -x -a '(__fish_complete_command)' -d 'Run CMD for each record, up to a lone ;'
complete -c tbthrottle -n __tbthrottle_exec_words -f -a '(__tbthrottle_exec_args)'
complete -c tbthrottle -n __tbthrottle_ours -s j -l jobs -x -a '1 2 4 8 16' -d 'With --exec, at most N commands at once'
complete -c tbthrottle -n __tbthrottle_ours -l line-buffer -d "With --exec, pass the commands' output on a whole line at a time"
complete -c tbthrottle -n __tbthrottle_ours -l group -d "With --exec, pass each command's output on whole once it ends"
complete -c tbthrottle -n __tbthrottle_ours -l ungroup -d 'With --exec, the commands write to our output themselves'
complete -c tbthrottle -n __tbthrottle_ours -l tag -d "Put each line of a command's output after its record and a tab"
complete -c tbthrottle -n __tbthrottle_ours -l tagstring -x -a '{} {1} {#}' -d 'The same with STR filled in as the command is'
complete -c tbthrottle -n __tbthrottle_ours -l retry -x -a '1 3 5 10' -d 'With --exec, start a command that exits 75 again, up to N more times'
complete -c tbthrottle -n __tbthrottle_ours -l retry-on -x -a '75 75,111 1-254' -d 'The exit statuses tried again'
complete -c tbthrottle -n __tbthrottle_ours -l retry-delay -x -a '100ms 1s 10s 1min' -d 'The first wait between tries is at most T'
complete -c tbthrottle -n __tbthrottle_ours -l retry-max-delay -x -a '1s 10s 1min 10min' -d 'No wait between tries over T'
complete -c tbthrottle -n __tbthrottle_ours -l failed-to -r -F -d 'With --exec, append the records whose last try failed to FILE'
complete -c tbthrottle -n __tbthrottle_ours -l timeout -x -a '500ms 10s 1min 10min' -d 'With --exec, end a command still running after T'
complete -c tbthrottle -n __tbthrottle_ours -l halt -x -a 'never soon,fail=1 now,fail=1 soon,fail=10%' -d 'With --exec, start nothing more after N failed records'
complete -c tbthrottle -n __tbthrottle_ours -l joblog -r -F -d 'With --exec, append a line to FILE for each record done'
complete -c tbthrottle -n __tbthrottle_ours -l adapt -d 'With --exec, slow the rate at each refusal, then climb back to -r'
complete -c tbthrottle -n __tbthrottle_ours -l resume -d 'With --joblog, start no command for the records done'
complete -c tbthrottle -n __tbthrottle_ours -l resume-failed -d 'With --joblog, start again only the records that failed'
complete -c tbthrottle -n __tbthrottle_ours -l take -d 'Take a token of the --shared bucket and exit'
complete -c tbthrottle -n __tbthrottle_ours -l show -d 'Show what the --shared bucket holds now, and exit'
complete -c tbthrottle -n __tbthrottle_ours -l reset -d 'Give the --shared bucket a clean budget, and exit'
complete -c tbthrottle -n __tbthrottle_ours -l replay -d 'Release each record at its own timestamp'
complete -c tbthrottle -n __tbthrottle_ours -l dry-run -d 'With --replay, say what it would do, release nothing'
complete -c tbthrottle -n __tbthrottle_ours -l loop -x -a '2 10 inf' -d 'Replay the FILEs N times in all, or for ever'
complete -c tbthrottle -n __tbthrottle_ours -l loop-gap -x -a '100ms 1s 10s' -d 'Wait T between the passes of --loop'
complete -c tbthrottle -n __tbthrottle_ours -l speed -x -a '0.5 2 10 60' -d 'Replay X times as fast'
complete -c tbthrottle -n __tbthrottle_ours -l max-gap -x -a '100ms 1s 10s' -d 'Replay no wait longer than T'
complete -c tbthrottle -n __tbthrottle_ours -l time-field -x -d 'The timestamp starts field N'
complete -c tbthrottle -n __tbthrottle_ours -l time-key -x -a 'ts time timestamp @timestamp' -d 'The timestamp is the value of a JSON key'
complete -c tbthrottle -n __tbthrottle_ours -l time-format -x -d 'Read timestamps in a strptime(3) format' -a "
    '%Y-%m-%d %H:%M:%S' '%d/%b/%Y:%H:%M:%S %z' '%s'"
# -s takes no value; --stats takes one only after '='.
complete -c tbthrottle -n __tbthrottle_ours -s s -d 'Report units in, out and dropped on exit'
complete -c tbthrottle -n __tbthrottle_ours -l stats -f -a 'text json' -d 'Report on exit, as text or json'
complete -c tbthrottle -n __tbthrottle_ours -s P -l progress -d 'A live status line on a terminal'
complete -c tbthrottle -n __tbthrottle_ours -l name -x -d 'Call this run NAME, for -R and --list'
complete -c tbthrottle -n __tbthrottle_ours -s R -l retune -x -a '(__tbthrottle_running)' -d 'Change or ask a running tbthrottle'
complete -c tbthrottle -n __tbthrottle_ours -l reload -d 'With -R: read the --tiers file again'
complete -c tbthrottle -n __tbthrottle_ours -l list -d 'List your running tbthrottles'
complete -c tbthrottle -n __tbthrottle_ours -l json -d 'With --list, a JSON object a line'
complete -c tbthrottle -n __tbthrottle_ours -s h -l help -d 'Show the help and exit'
complete -c tbthrottle -n __tbthrottle_ours -s V -l version -d 'Show the version and exit'
