# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_indoubt_global_optspecs
    string join \n config= o/output= color= no-color width= v/verbose timeout= h/help V/version
end

function __fish_indoubt_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_indoubt_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_indoubt_using_subcommand
    set -l cmd (__fish_indoubt_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c indoubt -n "__fish_indoubt_needs_command" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_needs_command" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_needs_command" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_needs_command" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_needs_command" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_needs_command" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_needs_command" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_needs_command" -s V -l version -d 'Print version'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "pg" -d 'Inspect PostgreSQL'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "kafka" -d 'Inspect Kafka: LSO gaps, producers, transactions, hanging transactions'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "mysql" -d 'Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "seata" -d 'Inspect Apache Seata: global transactions that never end, and the row locks they hold'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "modulith" -d 'Inspect Spring Modulith\'s event publication registry: events never delivered'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "camunda" -d 'Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "dbos" -d 'Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "saga" -d 'Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "reconcile" -d 'Compare the ids in a database window with the ids in a topic (dual-write gaps)'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "resolve" -d 'Resolve an in-doubt transaction: evidence, the coordinator\'s decision, confirmation, audit'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "audit" -d 'Read and verify the audit trail of resolutions'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "config" -d 'Inspect the config file'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "check" -d 'Run every check the config enables, on every configured target, concurrently, under one deadline'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "serve" -d 'Serve the checks\' Prometheus exposition over HTTP, running them on an interval'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "explain" -d 'What a finding\'s code means, why it matters and how to fix it; without CODE, every code'
complete -c indoubt -n "__fish_indoubt_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -f -a "prepared" -d 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -f -a "slots" -d 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -f -a "horizon" -d 'Name who holds back the xmin horizon, and how far each database is from wraparound'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -f -a "outbox" -d 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and not __fish_seen_subcommand_from prepared slots horizon outbox help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l pg -d 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config\'s only postgres target, else the PG* environment variables]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -s h -l host -d 'The server\'s host name, IP address or socket directory, as psql\'s -h' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -s p -l port -d 'The server\'s port, as psql\'s -p' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -s U -l username -d 'The user to connect as, as psql\'s -U' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -s d -l dbname -d 'The database to connect to, as psql\'s -d (a URL or key=value string there is the whole connection string, as --pg)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l database -d 'Only prepared transactions of this database (repeatable; -d is the database to connect to, as in psql)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l warning-age -d 'Age at which a prepared transaction is a WARNING [config: thresholds.prepared.warning_age; default 5m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l critical-age -d 'Age at which a prepared transaction is CRITICAL [config: thresholds.prepared.critical_age; default 30m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l help -d 'Print help (-h is the host, as in psql)'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from prepared" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l pg -d 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config\'s only postgres target, else the PG* environment variables]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -s h -l host -d 'The server\'s host name, IP address or socket directory, as psql\'s -h' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -s p -l port -d 'The server\'s port, as psql\'s -p' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -s U -l username -d 'The user to connect as, as psql\'s -U' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -s d -l dbname -d 'The database to connect to, as psql\'s -d (a URL or key=value string there is the whole connection string, as --pg)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l warning-retained -d 'WAL retained by an inactive slot that is a WARNING, e.g. 512MiB, 1GB [config: thresholds.slots.warning_retained; default 1GiB]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l critical-retained -d 'WAL retained by an inactive slot that is CRITICAL [config: thresholds.slots.critical_retained; default 10GiB]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l help -d 'Print help (-h is the host, as in psql)'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from slots" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l pg -d 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config\'s only postgres target, else the PG* environment variables]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -s h -l host -d 'The server\'s host name, IP address or socket directory, as psql\'s -h' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -s p -l port -d 'The server\'s port, as psql\'s -p' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -s U -l username -d 'The user to connect as, as psql\'s -U' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -s d -l dbname -d 'The database to connect to, as psql\'s -d (a URL or key=value string there is the whole connection string, as --pg)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l warning-age -d 'How long one holder may hold the horizon before a WARNING [config: thresholds.horizon.warning_age; default 1h]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l critical-age -d '… before CRITICAL [config: thresholds.horizon.critical_age; default 6h]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l warning-xids -d 'How many xids one holder may hold the horizon back before a WARNING, e.g. 10M [config: thresholds.horizon.warning_xids; default 10M]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l critical-xids -d '… before CRITICAL [config: thresholds.horizon.critical_xids; default 100M]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l wraparound-warning-xids -d 'Database age (datfrozenxid, datminmxid) that is a WARNING [config: thresholds.wraparound.warning_xids; default 1.3B]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l wraparound-critical-xids -d 'Database age that is CRITICAL [config: thresholds.wraparound.critical_xids; default 1.4B]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l help -d 'Print help (-h is the host, as in psql)'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from horizon" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -l show -d 'How many skipped ids to list' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from outbox" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from help" -f -a "prepared" -d 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from help" -f -a "slots" -d 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from help" -f -a "horizon" -d 'Name who holds back the xmin horizon, and how far each database is from wraparound'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from help" -f -a "outbox" -d 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age'
complete -c indoubt -n "__fish_indoubt_using_subcommand pg; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -f -a "lso" -d 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -f -a "producers" -d 'Active producers of one partition (DescribeProducers)'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -f -a "transactions" -d 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -f -a "hanging" -d 'Find hanging transactions: open on a partition, but never to be ended by their coordinator'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and not __fish_seen_subcommand_from lso producers transactions hanging help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l topic -d 'Only this topic (repeatable) [default: every topic, internal ones included]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l topic-regex -d 'Only topics whose name matches this regular expression' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l warning-age -d 'Age of the first unstable record that is a WARNING [config: thresholds.lso.warning_age; default 5m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l critical-age -d '… CRITICAL [config: thresholds.lso.critical_age; default 15m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l warning-gap -d 'Offsets between LSO and high watermark that are a WARNING [config: thresholds.lso.warning_gap; default 100k]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l critical-gap -d '… CRITICAL [config: thresholds.lso.critical_gap; default 1M]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from lso" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l topic -d 'The topic of the partition (required)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l partition -d 'The partition whose producers to describe (required)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from producers" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l state -d 'Only transactions in this state (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, …); repeatable' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l min-duration -d 'Only transactions started longer ago than this (the broker filters from Kafka 3.8; before, indoubt filters on the start times)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l transactional-id -d 'Describe this transactional id only' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from transactions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l topic -d 'Search this topic [default: every topic]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l topic-regex -d 'Search the topics whose name matches this regular expression' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l partition -d '… only this partition of it' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l broker-id -d 'Search the partitions with a replica on this broker' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l max-transaction-timeout -d 'Transactions whose last write is older than this are examined, as kafka-transactions.sh [config: thresholds.hanging.max_transaction_timeout; default 15m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from hanging" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from help" -f -a "lso" -d 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from help" -f -a "producers" -d 'Active producers of one partition (DescribeProducers)'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from help" -f -a "transactions" -d 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from help" -f -a "hanging" -d 'Find hanging transactions: open on a partition, but never to be ended by their coordinator'
complete -c indoubt -n "__fish_indoubt_using_subcommand kafka; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -f -a "xa" -d 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and not __fish_seen_subcommand_from xa help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l mysql -d 'A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password in an option file or MYSQL_PWD) [default: the config\'s only mysql target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l defaults-file -d 'An option file whose [client] group gives the password, as the client\'s --defaults-file [default: the target\'s option_file, else ~/.my.cnf]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l ssl-mode -d 'TLS, as the mysql client\'s --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY [default: the target\'s, else PREFERRED]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l ssl-ca -d 'The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server\'s against' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l warning-age -d 'Age at which a prepared branch is a WARNING [config: thresholds.prepared.warning_age; default 5m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l critical-age -d 'Age at which a prepared branch is CRITICAL [config: thresholds.prepared.critical_age; default 30m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l warning-history-length -d 'History list length that is a WARNING [config: thresholds.purge.warning_history_length; default 100k]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l critical-history-length -d 'History list length that is CRITICAL [config: thresholds.purge.critical_history_length; default 1M]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from xa" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from help" -f -a "xa" -d 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction'
complete -c indoubt -n "__fish_indoubt_using_subcommand mysql; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -f -a "globals" -d 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -f -a "tcc" -d 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients\' databases'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -f -a "sagas" -d 'Saga instances unknown, stalled, or whose compensation failed, in the clients\' saga stores'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and not __fish_seen_subcommand_from globals tcc sagas help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -l show -d 'How many branches and locked rows of each global to list' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from globals" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from tcc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -l show -d 'How many states of each saga instance to list' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from sagas" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from help" -f -a "globals" -d 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from help" -f -a "tcc" -d 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients\' databases'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from help" -f -a "sagas" -d 'Saga instances unknown, stalled, or whose compensation failed, in the clients\' saga stores'
complete -c indoubt -n "__fish_indoubt_using_subcommand seata; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -f -a "publications" -d 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and not __fish_seen_subcommand_from publications help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from publications" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from help" -f -a "publications" -d 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned'
complete -c indoubt -n "__fish_indoubt_using_subcommand modulith; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -f -a "incidents" -d 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and not __fish_seen_subcommand_from incidents help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from incidents" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from help" -f -a "incidents" -d 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind'
complete -c indoubt -n "__fish_indoubt_using_subcommand camunda; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -f -a "workflows" -d 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and not __fish_seen_subcommand_from workflows help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from workflows" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from help" -f -a "workflows" -d 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold'
complete -c indoubt -n "__fish_indoubt_using_subcommand dbos; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand saga" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l pg -d 'The database: a target name, a postgres:// URL or conninfo' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l query -d 'Returns the id (text or integer) and optionally the row\'s time, for rows in [$1, $2); an id longer than 4096 bytes is refused (exit 3, naming the row)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l topic -d 'The topic the rows are published to [default: the job\'s topic]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l id-from -d 'Where a message\'s id is: key, header:NAME or json:/pointer [default: key]; an id longer than 4096 bytes is refused (exit 3, naming the partition and offset)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l since -d 'The window\'s start: an RFC 3339 time or a duration back from now, e.g. 3h [default: 24h]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l until -d 'The window\'s end (exclusive): a time or a duration back from now [default: 0s, now]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l settle -d 'Rows younger than this are not yet expected in the topic (relay lag) [default: 5m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l slack -d 'Read the topic from this much before the window\'s start (producer clock skew) [default: 1m]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l ids-out -d 'Write every id of every class to this file (`class<TAB>id` lines), each field escaped: \\\\ \\t \\n \\r, \\xHH for other ASCII control bytes, \\u{HHHH} for C1 controls and U+2028/U+2029' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l show -d 'How many ids of each class the table shows' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l memory -d 'Memory the ids of both sides may take, at most 1GiB; past it they are sorted into runs on disk and merged, with the same result [default: 512MiB]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l spill-dir -d 'Where the runs past --memory go: a private directory is made there and removed on exit [default: $TMPDIR, else /tmp]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l query-timeout -d 'Bound on the database query (it may stream millions of rows) [default: 1h]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l no-progress -d 'Never draw the progress spinner on stderr (it is drawn only on a terminal anyway)'
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l count-only -d 'Compare counts only, without keeping ids'
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand reconcile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "pg" -d 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator\'s decision where one is found, else as an explicit, recorded heuristic decision'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "mysql" -d 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator\'s decision where one is found, else as an explicit, recorded heuristic'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "kafka" -d 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "tcc" -d 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator\'s next Cancel (or Confirm) finds it done'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "at" -d 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch\'s undo log'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "modulith" -d 'Delete a Spring Modulith registry\'s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "camunda" -d 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident\'s) through the engine\'s REST API, which resolves the incident the engine\'s way; without a REST API configured, print the call'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "dbos" -d 'Resume or cancel DBOS workflows through DBOS\'s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "saga" -d 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service\'s and are only advised'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "outbox" -d 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka\'s idempotent producer, each with the row\'s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "reconcile" -d 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka\'s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and not __fish_seen_subcommand_from pg mysql kafka tcc at modulith camunda dbos saga outbox reconcile help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l pg -d 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config\'s only postgres target, else the PG* environment variables]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -s h -l host -d 'The server\'s host name, IP address or socket directory, as psql\'s -h' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -s p -l port -d 'The server\'s port, as psql\'s -p' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -s U -l username -d 'The user to connect as, as psql\'s -U' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -s d -l dbname -d 'The database to connect to, as psql\'s -d (a URL or key=value string there is the whole connection string, as --pg)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l help -d 'Print help (-h is the host, as in psql)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l commit -d 'Commit it'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l rollback -d 'Roll it back'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l force -d 'Act against the decision the sources recorded (a heuristic that breaks atomicity)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l all-branches -d 'Apply the same decision to every other branch of its global transaction still prepared (this server\'s other databases, the resolve.participants targets), with one confirmation; each branch is checked against its own decision sources and audited on its own'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from pg" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l mysql -d 'A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password in an option file or MYSQL_PWD) [default: the config\'s only mysql target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l defaults-file -d 'An option file whose [client] group gives the password, as the client\'s --defaults-file [default: the target\'s option_file, else ~/.my.cnf]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l ssl-mode -d 'TLS, as the mysql client\'s --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY [default: the target\'s, else PREFERRED]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l ssl-ca -d 'The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server\'s against' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l commit -d 'Commit it'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l rollback -d 'Roll it back'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l force -d 'Act against the decision the sources recorded (a heuristic that breaks atomicity)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l all-branches -d 'Apply the same decision to every other branch of its global transaction still prepared (the resolve.participants targets, PostgreSQL and MySQL), with one confirmation; each branch is checked against its own decision sources and audited on its own'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from mysql" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l topic -d 'The topic of the partition the transaction is open on' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l partition -d 'The partition the transaction is open on (as `kafka hanging` shows it)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l start-offset -d 'The transaction\'s first offset (as `kafka hanging` shows it)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l producer-id -d 'Or name the producer directly (with --producer-epoch and --coordinator-epoch)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l producer-epoch -d 'The producer\'s epoch, with --producer-id (as `kafka producers` shows it)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l coordinator-epoch -d 'The coordinator epoch the abort marker carries, with --producer-id (as `kafka producers` shows it)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l force -d 'Abort even though its coordinator still owns it (it would abort it at its timeout): a recorded heuristic, with a reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from kafka" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l branch-id -d 'The Try\'s branch, as `seata tcc` shows it' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l as -d 'What was done by hand: its reservation released (cancelled) or kept (confirmed)' -r -f -a "cancelled\t'Its Cancel\'s work was done: the reservation is released'
confirmed\t'Its Confirm\'s work was done: the reservation is kept'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l coordinator -d 'The coordinator of the config (seata: NAME) [default: the only one]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l client -d 'Its client whose fence holds the Try [default: its only client with a tcc_fence_log]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from tcc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l branch-id -d 'The AT branch whose undo log meets the changed rows: the finding\'s next names it (`seata globals -o json` lists each branch\'s branch_id)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l fix -d 'What to do so that the coordinator\'s next retry of the rollback succeeds' -r -f -a "after-image\t'Set each changed row back to the branch\'s after image: the retry then restores the before image, and the later change is lost'
undo-log\t'Delete the branch\'s undo log: the retry finds nothing to undo, and the later change and the branch\'s own both stay (settle the difference by hand)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l coordinator -d 'The coordinator of the config (seata: NAME) [default: the only one]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l client -d 'Its client whose undo_log holds the branch [default: its only client with an undo_log]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from at" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l older-than -d 'Delete those completed longer ago than this [default: the registry\'s retention]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l batch-size -d 'Rows each DELETE takes (each batch commits by itself: locks are held briefly)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from modulith" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l retries -d 'The retries to give each (0 stops a job that keeps failing: it becomes an incident)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from camunda" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l resume -d 'Run them again from their last completed step (dbos workflow resume): only a process of their application version runs them'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l cancel -d 'Cancel them (dbos workflow cancel): their remaining steps never run'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l executor-gone -d 'The operator\'s word that the process that ran these PENDING workflows is gone: DBOS keeps no liveness, and resuming a workflow whose process is alive runs it twice'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from dbos" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l lock -d 'The lock table of the entities (when the saga has several)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l escalate -d 'Insert each saga into the manual queue with what is known of it, unless it has an open item there'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l release -d 'Set each entity back to the lock\'s released state and clear its saga, while it is still held by the same saga (and version) as read'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from saga" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l transactional -d 'Publish each batch in one Kafka transaction (transactional.id: the config\'s publish: transactional_id, default indoubt-republish-NAME): read_committed consumers see a batch whole or not at all'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from outbox" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l ids-from -d 'The ids to publish: the `missing` lines of a file `indoubt reconcile --ids-out` wrote (a line with no tab is an id); default: compare the job\'s window now' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l since -d 'The window\'s start, as `reconcile --since` (default: the job\'s)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l until -d 'The window\'s end, as `reconcile --until` (default: the job\'s)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -s b -l bootstrap-server -d 'Bootstrap servers, host:port[,host:port…]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l kafka -d 'A Kafka target name from the config [default: the config\'s only kafka target]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -s X -d 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l command-config -d 'A properties file, like kafka tools\' --command-config' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l reason -d 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l ticket -d 'Ticket or incident id, recorded in the audit trail' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l transactional -d 'Publish each batch in one Kafka transaction (transactional.id: the job\'s republish: transactional_id, default indoubt-republish-JOB): read_committed consumers see a batch whole or not at all'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l yes -d 'Confirm without a prompt (runbooks); needs --reason'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l dry-run -d 'Show the evidence and the exact statement; change nothing, record nothing'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from reconcile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "pg" -d 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator\'s decision where one is found, else as an explicit, recorded heuristic decision'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "mysql" -d 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator\'s decision where one is found, else as an explicit, recorded heuristic'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "kafka" -d 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "tcc" -d 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator\'s next Cancel (or Confirm) finds it done'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "at" -d 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch\'s undo log'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "modulith" -d 'Delete a Spring Modulith registry\'s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "camunda" -d 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident\'s) through the engine\'s REST API, which resolves the incident the engine\'s way; without a REST API configured, print the call'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "dbos" -d 'Resume or cancel DBOS workflows through DBOS\'s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "saga" -d 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service\'s and are only advised'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "outbox" -d 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka\'s idempotent producer, each with the row\'s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "reconcile" -d 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka\'s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)'
complete -c indoubt -n "__fish_indoubt_using_subcommand resolve; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -f -a "list" -d 'List audit records'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -f -a "verify" -d 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -f -a "reseal" -d 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and not __fish_seen_subcommand_from list verify reseal help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l since -d 'Only records newer than this, e.g. 24h' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l object -d 'Only records whose object contains this text' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l reason -d 'Why the head is being re-made (recorded in the log)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l audit-log -d 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from reseal" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "list" -d 'List audit records'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "reseal" -d 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said'
complete -c indoubt -n "__fish_indoubt_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -l check -d 'Connect to every target (and the postgres and kafka references of reconcile jobs, outboxes, inboxes and resolve) and report what the role or principal lacks, as the server or broker says it: pg_monitor, CONNECT on databases, catalog reads, table SELECT, Kafka ACLs; each with the GRANT or kafka-acls.sh line that gives it. Unreachable is UNKNOWN, a missing privilege that blinds a command WARNING, one that stops a reconcile job or outbox check CRITICAL'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN'
complete -c indoubt -n "__fish_indoubt_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l deadline -d 'Overall deadline; a check still running then is UNKNOWN' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l only -d 'Run only these checks' -r -f -a "pg\t'pg prepared, pg slots, pg horizon on every postgres target'
kafka\t'kafka lso and kafka hanging on every kafka target'
mysql\t'mysql xa (prepared XA branches and the history list) on every mysql target'
reconcile\t'reconcile jobs with `check: true`'
outbox\t'outbox entries with `check: true`'
seata\t'seata coordinators with `check: true`'
modulith\t'modulith registries with `check: true`'
camunda\t'camunda engines with `check: true`'
dbos\t'dbos applications with `check: true`'
saga\t'sagas (those without `check: false`)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l skip -d 'Run all but these checks' -r -f -a "pg\t'pg prepared, pg slots, pg horizon on every postgres target'
kafka\t'kafka lso and kafka hanging on every kafka target'
mysql\t'mysql xa (prepared XA branches and the history list) on every mysql target'
reconcile\t'reconcile jobs with `check: true`'
outbox\t'outbox entries with `check: true`'
seata\t'seata coordinators with `check: true`'
modulith\t'modulith registries with `check: true`'
camunda\t'camunda engines with `check: true`'
dbos\t'dbos applications with `check: true`'
saga\t'sagas (those without `check: false`)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l concurrency -d 'Checks running at once; each server is still reached over one connection [default: 4 per CPU, from 8 to 32]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l prometheus-file -d 'Also write the Prometheus exposition to FILE, atomically (temp file + rename), for node_exporter\'s textfile collector; a link at FILE is refused' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -s q -l quiet -d 'Print only what is not OK (the exit code still counts everything)'
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l deadline -d 'Overall deadline; a check still running then is UNKNOWN' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l only -d 'Run only these checks' -r -f -a "pg\t'pg prepared, pg slots, pg horizon on every postgres target'
kafka\t'kafka lso and kafka hanging on every kafka target'
mysql\t'mysql xa (prepared XA branches and the history list) on every mysql target'
reconcile\t'reconcile jobs with `check: true`'
outbox\t'outbox entries with `check: true`'
seata\t'seata coordinators with `check: true`'
modulith\t'modulith registries with `check: true`'
camunda\t'camunda engines with `check: true`'
dbos\t'dbos applications with `check: true`'
saga\t'sagas (those without `check: false`)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l skip -d 'Run all but these checks' -r -f -a "pg\t'pg prepared, pg slots, pg horizon on every postgres target'
kafka\t'kafka lso and kafka hanging on every kafka target'
mysql\t'mysql xa (prepared XA branches and the history list) on every mysql target'
reconcile\t'reconcile jobs with `check: true`'
outbox\t'outbox entries with `check: true`'
seata\t'seata coordinators with `check: true`'
modulith\t'modulith registries with `check: true`'
camunda\t'camunda engines with `check: true`'
dbos\t'dbos applications with `check: true`'
saga\t'sagas (those without `check: false`)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l concurrency -d 'Checks running at once; each server is still reached over one connection [default: 4 per CPU, from 8 to 32]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l listen -d 'The address to serve /metrics, /healthz and /-/ready on' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l interval -d 'How often the checks run (one run at a time; /metrics serves the last completed)' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -l config -d 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]' -r -F
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -s o -l output -d 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)' -r -f -a "table\t''
wide\t'The table with every column (`table` leaves the less important ones out, and says which)'
json\t''
yaml\t''
nagios\t'`check` only: one Nagios/Icinga plugin status line with perfdata'
prometheus\t'`check` only: Prometheus text exposition (node_exporter textfile collector)'"
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -l color -d 'Colour: auto (a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -l width -d 'Lay tables out for N columns [default: the terminal\'s width, else $COLUMNS, else 80]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -l timeout -d 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]' -r
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -l no-color -d 'Never use colour: --color never'
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -s v -l verbose -d 'Print what is being done on stderr'
complete -c indoubt -n "__fish_indoubt_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "pg" -d 'Inspect PostgreSQL'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "kafka" -d 'Inspect Kafka: LSO gaps, producers, transactions, hanging transactions'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "mysql" -d 'Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "seata" -d 'Inspect Apache Seata: global transactions that never end, and the row locks they hold'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "modulith" -d 'Inspect Spring Modulith\'s event publication registry: events never delivered'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "camunda" -d 'Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "dbos" -d 'Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "saga" -d 'Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "reconcile" -d 'Compare the ids in a database window with the ids in a topic (dual-write gaps)'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "resolve" -d 'Resolve an in-doubt transaction: evidence, the coordinator\'s decision, confirmation, audit'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "audit" -d 'Read and verify the audit trail of resolutions'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "config" -d 'Inspect the config file'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "check" -d 'Run every check the config enables, on every configured target, concurrently, under one deadline'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "serve" -d 'Serve the checks\' Prometheus exposition over HTTP, running them on an interval'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "explain" -d 'What a finding\'s code means, why it matters and how to fix it; without CODE, every code'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and not __fish_seen_subcommand_from pg kafka mysql seata modulith camunda dbos saga reconcile resolve audit config check serve explain help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from pg" -f -a "prepared" -d 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from pg" -f -a "slots" -d 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from pg" -f -a "horizon" -d 'Name who holds back the xmin horizon, and how far each database is from wraparound'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from pg" -f -a "outbox" -d 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from kafka" -f -a "lso" -d 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from kafka" -f -a "producers" -d 'Active producers of one partition (DescribeProducers)'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from kafka" -f -a "transactions" -d 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from kafka" -f -a "hanging" -d 'Find hanging transactions: open on a partition, but never to be ended by their coordinator'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from mysql" -f -a "xa" -d 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from seata" -f -a "globals" -d 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from seata" -f -a "tcc" -d 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients\' databases'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from seata" -f -a "sagas" -d 'Saga instances unknown, stalled, or whose compensation failed, in the clients\' saga stores'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from modulith" -f -a "publications" -d 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from camunda" -f -a "incidents" -d 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from dbos" -f -a "workflows" -d 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "pg" -d 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator\'s decision where one is found, else as an explicit, recorded heuristic decision'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "mysql" -d 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator\'s decision where one is found, else as an explicit, recorded heuristic'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "kafka" -d 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "tcc" -d 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator\'s next Cancel (or Confirm) finds it done'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "at" -d 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch\'s undo log'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "modulith" -d 'Delete a Spring Modulith registry\'s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "camunda" -d 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident\'s) through the engine\'s REST API, which resolves the incident the engine\'s way; without a REST API configured, print the call'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "dbos" -d 'Resume or cancel DBOS workflows through DBOS\'s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "saga" -d 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service\'s and are only advised'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "outbox" -d 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka\'s idempotent producer, each with the row\'s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from resolve" -f -a "reconcile" -d 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka\'s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "list" -d 'List audit records'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "verify" -d 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "reseal" -d 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said'
complete -c indoubt -n "__fish_indoubt_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN'
