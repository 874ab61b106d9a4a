
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'indoubt' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'indoubt'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'indoubt' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('pg', 'pg', [CompletionResultType]::ParameterValue, 'Inspect PostgreSQL')
            [CompletionResult]::new('kafka', 'kafka', [CompletionResultType]::ParameterValue, 'Inspect Kafka: LSO gaps, producers, transactions, hanging transactions')
            [CompletionResult]::new('mysql', 'mysql', [CompletionResultType]::ParameterValue, 'Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back')
            [CompletionResult]::new('seata', 'seata', [CompletionResultType]::ParameterValue, 'Inspect Apache Seata: global transactions that never end, and the row locks they hold')
            [CompletionResult]::new('modulith', 'modulith', [CompletionResultType]::ParameterValue, 'Inspect Spring Modulith''s event publication registry: events never delivered')
            [CompletionResult]::new('camunda', 'camunda', [CompletionResultType]::ParameterValue, 'Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind')
            [CompletionResult]::new('dbos', 'dbos', [CompletionResultType]::ParameterValue, 'Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue')
            [CompletionResult]::new('saga', 'saga', [CompletionResultType]::ParameterValue, 'Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Compare the ids in a database window with the ids in a topic (dual-write gaps)')
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Resolve an in-doubt transaction: evidence, the coordinator''s decision, confirmation, audit')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Read and verify the audit trail of resolutions')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Inspect the config file')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Run every check the config enables, on every configured target, concurrently, under one deadline')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the checks'' Prometheus exposition over HTTP, running them on an interval')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'What a finding''s code means, why it matters and how to fix it; without CODE, every code')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;pg' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('prepared', 'prepared', [CompletionResultType]::ParameterValue, 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID')
            [CompletionResult]::new('slots', 'slots', [CompletionResultType]::ParameterValue, 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages')
            [CompletionResult]::new('horizon', 'horizon', [CompletionResultType]::ParameterValue, 'Name who holds back the xmin horizon, and how far each database is from wraparound')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;pg;prepared' {
            [CompletionResult]::new('--pg', '--pg', [CompletionResultType]::ParameterName, 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('--username', '--username', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--dbname', '--dbname', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'Only prepared transactions of this database (repeatable; -d is the database to connect to, as in psql)')
            [CompletionResult]::new('--warning-age', '--warning-age', [CompletionResultType]::ParameterName, 'Age at which a prepared transaction is a WARNING [config: thresholds.prepared.warning_age; default 5m]')
            [CompletionResult]::new('--critical-age', '--critical-age', [CompletionResultType]::ParameterName, 'Age at which a prepared transaction is CRITICAL [config: thresholds.prepared.critical_age; default 30m]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (-h is the host, as in psql)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            break
        }
        'indoubt;pg;slots' {
            [CompletionResult]::new('--pg', '--pg', [CompletionResultType]::ParameterName, 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('--username', '--username', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--dbname', '--dbname', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--warning-retained', '--warning-retained', [CompletionResultType]::ParameterName, 'WAL retained by an inactive slot that is a WARNING, e.g. 512MiB, 1GB [config: thresholds.slots.warning_retained; default 1GiB]')
            [CompletionResult]::new('--critical-retained', '--critical-retained', [CompletionResultType]::ParameterName, 'WAL retained by an inactive slot that is CRITICAL [config: thresholds.slots.critical_retained; default 10GiB]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (-h is the host, as in psql)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            break
        }
        'indoubt;pg;horizon' {
            [CompletionResult]::new('--pg', '--pg', [CompletionResultType]::ParameterName, 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('--username', '--username', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--dbname', '--dbname', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--warning-age', '--warning-age', [CompletionResultType]::ParameterName, 'How long one holder may hold the horizon before a WARNING [config: thresholds.horizon.warning_age; default 1h]')
            [CompletionResult]::new('--critical-age', '--critical-age', [CompletionResultType]::ParameterName, '… before CRITICAL [config: thresholds.horizon.critical_age; default 6h]')
            [CompletionResult]::new('--warning-xids', '--warning-xids', [CompletionResultType]::ParameterName, 'How many xids one holder may hold the horizon back before a WARNING, e.g. 10M [config: thresholds.horizon.warning_xids; default 10M]')
            [CompletionResult]::new('--critical-xids', '--critical-xids', [CompletionResultType]::ParameterName, '… before CRITICAL [config: thresholds.horizon.critical_xids; default 100M]')
            [CompletionResult]::new('--wraparound-warning-xids', '--wraparound-warning-xids', [CompletionResultType]::ParameterName, 'Database age (datfrozenxid, datminmxid) that is a WARNING [config: thresholds.wraparound.warning_xids; default 1.3B]')
            [CompletionResult]::new('--wraparound-critical-xids', '--wraparound-critical-xids', [CompletionResultType]::ParameterName, 'Database age that is CRITICAL [config: thresholds.wraparound.critical_xids; default 1.4B]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (-h is the host, as in psql)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            break
        }
        'indoubt;pg;outbox' {
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'How many skipped ids to list')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;pg;help' {
            [CompletionResult]::new('prepared', 'prepared', [CompletionResultType]::ParameterValue, 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID')
            [CompletionResult]::new('slots', 'slots', [CompletionResultType]::ParameterValue, 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages')
            [CompletionResult]::new('horizon', 'horizon', [CompletionResultType]::ParameterValue, 'Name who holds back the xmin horizon, and how far each database is from wraparound')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;pg;help;prepared' {
            break
        }
        'indoubt;pg;help;slots' {
            break
        }
        'indoubt;pg;help;horizon' {
            break
        }
        'indoubt;pg;help;outbox' {
            break
        }
        'indoubt;pg;help;help' {
            break
        }
        'indoubt;kafka' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('lso', 'lso', [CompletionResultType]::ParameterValue, 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it')
            [CompletionResult]::new('producers', 'producers', [CompletionResultType]::ParameterValue, 'Active producers of one partition (DescribeProducers)')
            [CompletionResult]::new('transactions', 'transactions', [CompletionResultType]::ParameterValue, 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)')
            [CompletionResult]::new('hanging', 'hanging', [CompletionResultType]::ParameterValue, 'Find hanging transactions: open on a partition, but never to be ended by their coordinator')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;kafka;lso' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--topic', '--topic', [CompletionResultType]::ParameterName, 'Only this topic (repeatable) [default: every topic, internal ones included]')
            [CompletionResult]::new('--topic-regex', '--topic-regex', [CompletionResultType]::ParameterName, 'Only topics whose name matches this regular expression')
            [CompletionResult]::new('--warning-age', '--warning-age', [CompletionResultType]::ParameterName, 'Age of the first unstable record that is a WARNING [config: thresholds.lso.warning_age; default 5m]')
            [CompletionResult]::new('--critical-age', '--critical-age', [CompletionResultType]::ParameterName, '… CRITICAL [config: thresholds.lso.critical_age; default 15m]')
            [CompletionResult]::new('--warning-gap', '--warning-gap', [CompletionResultType]::ParameterName, 'Offsets between LSO and high watermark that are a WARNING [config: thresholds.lso.warning_gap; default 100k]')
            [CompletionResult]::new('--critical-gap', '--critical-gap', [CompletionResultType]::ParameterName, '… CRITICAL [config: thresholds.lso.critical_gap; default 1M]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;kafka;producers' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--topic', '--topic', [CompletionResultType]::ParameterName, 'The topic of the partition (required)')
            [CompletionResult]::new('--partition', '--partition', [CompletionResultType]::ParameterName, 'The partition whose producers to describe (required)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;kafka;transactions' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only transactions in this state (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, …); repeatable')
            [CompletionResult]::new('--min-duration', '--min-duration', [CompletionResultType]::ParameterName, 'Only transactions started longer ago than this (the broker filters from Kafka 3.8; before, indoubt filters on the start times)')
            [CompletionResult]::new('--transactional-id', '--transactional-id', [CompletionResultType]::ParameterName, 'Describe this transactional id only')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;kafka;hanging' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--topic', '--topic', [CompletionResultType]::ParameterName, 'Search this topic [default: every topic]')
            [CompletionResult]::new('--topic-regex', '--topic-regex', [CompletionResultType]::ParameterName, 'Search the topics whose name matches this regular expression')
            [CompletionResult]::new('--partition', '--partition', [CompletionResultType]::ParameterName, '… only this partition of it')
            [CompletionResult]::new('--broker-id', '--broker-id', [CompletionResultType]::ParameterName, 'Search the partitions with a replica on this broker')
            [CompletionResult]::new('--max-transaction-timeout', '--max-transaction-timeout', [CompletionResultType]::ParameterName, 'Transactions whose last write is older than this are examined, as kafka-transactions.sh [config: thresholds.hanging.max_transaction_timeout; default 15m]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;kafka;help' {
            [CompletionResult]::new('lso', 'lso', [CompletionResultType]::ParameterValue, 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it')
            [CompletionResult]::new('producers', 'producers', [CompletionResultType]::ParameterValue, 'Active producers of one partition (DescribeProducers)')
            [CompletionResult]::new('transactions', 'transactions', [CompletionResultType]::ParameterValue, 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)')
            [CompletionResult]::new('hanging', 'hanging', [CompletionResultType]::ParameterValue, 'Find hanging transactions: open on a partition, but never to be ended by their coordinator')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;kafka;help;lso' {
            break
        }
        'indoubt;kafka;help;producers' {
            break
        }
        'indoubt;kafka;help;transactions' {
            break
        }
        'indoubt;kafka;help;hanging' {
            break
        }
        'indoubt;kafka;help;help' {
            break
        }
        'indoubt;mysql' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('xa', 'xa', [CompletionResultType]::ParameterValue, 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;mysql;xa' {
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password in an option file or MYSQL_PWD) [default: the config''s only mysql target]')
            [CompletionResult]::new('--defaults-file', '--defaults-file', [CompletionResultType]::ParameterName, 'An option file whose [client] group gives the password, as the client''s --defaults-file [default: the target''s option_file, else ~/.my.cnf]')
            [CompletionResult]::new('--ssl-mode', '--ssl-mode', [CompletionResultType]::ParameterName, 'TLS, as the mysql client''s --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY [default: the target''s, else PREFERRED]')
            [CompletionResult]::new('--ssl-ca', '--ssl-ca', [CompletionResultType]::ParameterName, 'The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server''s against')
            [CompletionResult]::new('--warning-age', '--warning-age', [CompletionResultType]::ParameterName, 'Age at which a prepared branch is a WARNING [config: thresholds.prepared.warning_age; default 5m]')
            [CompletionResult]::new('--critical-age', '--critical-age', [CompletionResultType]::ParameterName, 'Age at which a prepared branch is CRITICAL [config: thresholds.prepared.critical_age; default 30m]')
            [CompletionResult]::new('--warning-history-length', '--warning-history-length', [CompletionResultType]::ParameterName, 'History list length that is a WARNING [config: thresholds.purge.warning_history_length; default 100k]')
            [CompletionResult]::new('--critical-history-length', '--critical-history-length', [CompletionResultType]::ParameterName, 'History list length that is CRITICAL [config: thresholds.purge.critical_history_length; default 1M]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;mysql;help' {
            [CompletionResult]::new('xa', 'xa', [CompletionResultType]::ParameterValue, 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;mysql;help;xa' {
            break
        }
        'indoubt;mysql;help;help' {
            break
        }
        'indoubt;seata' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('globals', 'globals', [CompletionResultType]::ParameterValue, 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone')
            [CompletionResult]::new('tcc', 'tcc', [CompletionResultType]::ParameterValue, 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients'' databases')
            [CompletionResult]::new('sagas', 'sagas', [CompletionResultType]::ParameterValue, 'Saga instances unknown, stalled, or whose compensation failed, in the clients'' saga stores')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;seata;globals' {
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'How many branches and locked rows of each global to list')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;seata;tcc' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;seata;sagas' {
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'How many states of each saga instance to list')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;seata;help' {
            [CompletionResult]::new('globals', 'globals', [CompletionResultType]::ParameterValue, 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone')
            [CompletionResult]::new('tcc', 'tcc', [CompletionResultType]::ParameterValue, 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients'' databases')
            [CompletionResult]::new('sagas', 'sagas', [CompletionResultType]::ParameterValue, 'Saga instances unknown, stalled, or whose compensation failed, in the clients'' saga stores')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;seata;help;globals' {
            break
        }
        'indoubt;seata;help;tcc' {
            break
        }
        'indoubt;seata;help;sagas' {
            break
        }
        'indoubt;seata;help;help' {
            break
        }
        'indoubt;modulith' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('publications', 'publications', [CompletionResultType]::ParameterValue, 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;modulith;publications' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;modulith;help' {
            [CompletionResult]::new('publications', 'publications', [CompletionResultType]::ParameterValue, 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;modulith;help;publications' {
            break
        }
        'indoubt;modulith;help;help' {
            break
        }
        'indoubt;camunda' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('incidents', 'incidents', [CompletionResultType]::ParameterValue, 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;camunda;incidents' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;camunda;help' {
            [CompletionResult]::new('incidents', 'incidents', [CompletionResultType]::ParameterValue, 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;camunda;help;incidents' {
            break
        }
        'indoubt;camunda;help;help' {
            break
        }
        'indoubt;dbos' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('workflows', 'workflows', [CompletionResultType]::ParameterValue, 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;dbos;workflows' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;dbos;help' {
            [CompletionResult]::new('workflows', 'workflows', [CompletionResultType]::ParameterValue, 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;dbos;help;workflows' {
            break
        }
        'indoubt;dbos;help;help' {
            break
        }
        'indoubt;saga' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;reconcile' {
            [CompletionResult]::new('--pg', '--pg', [CompletionResultType]::ParameterName, 'The database: a target name, a postgres:// URL or conninfo')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'Returns the id (text or integer) and optionally the row''s time, for rows in [$1, $2); an id longer than 4096 bytes is refused (exit 3, naming the row)')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--topic', '--topic', [CompletionResultType]::ParameterName, 'The topic the rows are published to [default: the job''s topic]')
            [CompletionResult]::new('--id-from', '--id-from', [CompletionResultType]::ParameterName, 'Where a message''s id is: key, header:NAME or json:/pointer [default: key]; an id longer than 4096 bytes is refused (exit 3, naming the partition and offset)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'The window''s start: an RFC 3339 time or a duration back from now, e.g. 3h [default: 24h]')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'The window''s end (exclusive): a time or a duration back from now [default: 0s, now]')
            [CompletionResult]::new('--settle', '--settle', [CompletionResultType]::ParameterName, 'Rows younger than this are not yet expected in the topic (relay lag) [default: 5m]')
            [CompletionResult]::new('--slack', '--slack', [CompletionResultType]::ParameterName, 'Read the topic from this much before the window''s start (producer clock skew) [default: 1m]')
            [CompletionResult]::new('--ids-out', '--ids-out', [CompletionResultType]::ParameterName, 'Write every id of every class to this file (`class<TAB>id` lines), each field escaped: \\ \t \n \r, \xHH for other ASCII control bytes, \u{HHHH} for C1 controls and U+2028/U+2029')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'How many ids of each class the table shows')
            [CompletionResult]::new('--memory', '--memory', [CompletionResultType]::ParameterName, 'Memory the ids of both sides may take, at most 1GiB; past it they are sorted into runs on disk and merged, with the same result [default: 512MiB]')
            [CompletionResult]::new('--spill-dir', '--spill-dir', [CompletionResultType]::ParameterName, 'Where the runs past --memory go: a private directory is made there and removed on exit [default: $TMPDIR, else /tmp]')
            [CompletionResult]::new('--query-timeout', '--query-timeout', [CompletionResultType]::ParameterName, 'Bound on the database query (it may stream millions of rows) [default: 1h]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw the progress spinner on stderr (it is drawn only on a terminal anyway)')
            [CompletionResult]::new('--count-only', '--count-only', [CompletionResultType]::ParameterName, 'Compare counts only, without keeping ids')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('pg', 'pg', [CompletionResultType]::ParameterValue, 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic decision')
            [CompletionResult]::new('mysql', 'mysql', [CompletionResultType]::ParameterValue, 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic')
            [CompletionResult]::new('kafka', 'kafka', [CompletionResultType]::ParameterValue, 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved')
            [CompletionResult]::new('tcc', 'tcc', [CompletionResultType]::ParameterValue, 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator''s next Cancel (or Confirm) finds it done')
            [CompletionResult]::new('at', 'at', [CompletionResultType]::ParameterValue, 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch''s undo log')
            [CompletionResult]::new('modulith', 'modulith', [CompletionResultType]::ParameterValue, 'Delete a Spring Modulith registry''s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them')
            [CompletionResult]::new('camunda', 'camunda', [CompletionResultType]::ParameterValue, 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident''s) through the engine''s REST API, which resolves the incident the engine''s way; without a REST API configured, print the call')
            [CompletionResult]::new('dbos', 'dbos', [CompletionResultType]::ParameterValue, 'Resume or cancel DBOS workflows through DBOS''s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command')
            [CompletionResult]::new('saga', 'saga', [CompletionResultType]::ParameterValue, 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service''s and are only advised')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka''s idempotent producer, each with the row''s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka''s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;resolve;pg' {
            [CompletionResult]::new('--pg', '--pg', [CompletionResultType]::ParameterName, 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The server''s host name, IP address or socket directory, as psql''s -h')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The server''s port, as psql''s -p')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('--username', '--username', [CompletionResultType]::ParameterName, 'The user to connect as, as psql''s -U')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--dbname', '--dbname', [CompletionResultType]::ParameterName, 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (-h is the host, as in psql)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit it')
            [CompletionResult]::new('--rollback', '--rollback', [CompletionResultType]::ParameterName, 'Roll it back')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Act against the decision the sources recorded (a heuristic that breaks atomicity)')
            [CompletionResult]::new('--all-branches', '--all-branches', [CompletionResultType]::ParameterName, 'Apply the same decision to every other branch of its global transaction still prepared (this server''s other databases, the resolve.participants targets), with one confirmation; each branch is checked against its own decision sources and audited on its own')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            break
        }
        'indoubt;resolve;mysql' {
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password in an option file or MYSQL_PWD) [default: the config''s only mysql target]')
            [CompletionResult]::new('--defaults-file', '--defaults-file', [CompletionResultType]::ParameterName, 'An option file whose [client] group gives the password, as the client''s --defaults-file [default: the target''s option_file, else ~/.my.cnf]')
            [CompletionResult]::new('--ssl-mode', '--ssl-mode', [CompletionResultType]::ParameterName, 'TLS, as the mysql client''s --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY [default: the target''s, else PREFERRED]')
            [CompletionResult]::new('--ssl-ca', '--ssl-ca', [CompletionResultType]::ParameterName, 'The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server''s against')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit it')
            [CompletionResult]::new('--rollback', '--rollback', [CompletionResultType]::ParameterName, 'Roll it back')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Act against the decision the sources recorded (a heuristic that breaks atomicity)')
            [CompletionResult]::new('--all-branches', '--all-branches', [CompletionResultType]::ParameterName, 'Apply the same decision to every other branch of its global transaction still prepared (the resolve.participants targets, PostgreSQL and MySQL), with one confirmation; each branch is checked against its own decision sources and audited on its own')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;kafka' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--topic', '--topic', [CompletionResultType]::ParameterName, 'The topic of the partition the transaction is open on')
            [CompletionResult]::new('--partition', '--partition', [CompletionResultType]::ParameterName, 'The partition the transaction is open on (as `kafka hanging` shows it)')
            [CompletionResult]::new('--start-offset', '--start-offset', [CompletionResultType]::ParameterName, 'The transaction''s first offset (as `kafka hanging` shows it)')
            [CompletionResult]::new('--producer-id', '--producer-id', [CompletionResultType]::ParameterName, 'Or name the producer directly (with --producer-epoch and --coordinator-epoch)')
            [CompletionResult]::new('--producer-epoch', '--producer-epoch', [CompletionResultType]::ParameterName, 'The producer''s epoch, with --producer-id (as `kafka producers` shows it)')
            [CompletionResult]::new('--coordinator-epoch', '--coordinator-epoch', [CompletionResultType]::ParameterName, 'The coordinator epoch the abort marker carries, with --producer-id (as `kafka producers` shows it)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Abort even though its coordinator still owns it (it would abort it at its timeout): a recorded heuristic, with a reason')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;tcc' {
            [CompletionResult]::new('--branch-id', '--branch-id', [CompletionResultType]::ParameterName, 'The Try''s branch, as `seata tcc` shows it')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'What was done by hand: its reservation released (cancelled) or kept (confirmed)')
            [CompletionResult]::new('--coordinator', '--coordinator', [CompletionResultType]::ParameterName, 'The coordinator of the config (seata: NAME) [default: the only one]')
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'Its client whose fence holds the Try [default: its only client with a tcc_fence_log]')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;at' {
            [CompletionResult]::new('--branch-id', '--branch-id', [CompletionResultType]::ParameterName, 'The AT branch whose undo log meets the changed rows: the finding''s next names it (`seata globals -o json` lists each branch''s branch_id)')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'What to do so that the coordinator''s next retry of the rollback succeeds')
            [CompletionResult]::new('--coordinator', '--coordinator', [CompletionResultType]::ParameterName, 'The coordinator of the config (seata: NAME) [default: the only one]')
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'Its client whose undo_log holds the branch [default: its only client with an undo_log]')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;modulith' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Delete those completed longer ago than this [default: the registry''s retention]')
            [CompletionResult]::new('--batch-size', '--batch-size', [CompletionResultType]::ParameterName, 'Rows each DELETE takes (each batch commits by itself: locks are held briefly)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;camunda' {
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'The retries to give each (0 stops a job that keeps failing: it becomes an incident)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;dbos' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Run them again from their last completed step (dbos workflow resume): only a process of their application version runs them')
            [CompletionResult]::new('--cancel', '--cancel', [CompletionResultType]::ParameterName, 'Cancel them (dbos workflow cancel): their remaining steps never run')
            [CompletionResult]::new('--executor-gone', '--executor-gone', [CompletionResultType]::ParameterName, 'The operator''s word that the process that ran these PENDING workflows is gone: DBOS keeps no liveness, and resuming a workflow whose process is alive runs it twice')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;saga' {
            [CompletionResult]::new('--lock', '--lock', [CompletionResultType]::ParameterName, 'The lock table of the entities (when the saga has several)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--escalate', '--escalate', [CompletionResultType]::ParameterName, 'Insert each saga into the manual queue with what is known of it, unless it has an open item there')
            [CompletionResult]::new('--release', '--release', [CompletionResultType]::ParameterName, 'Set each entity back to the lock''s released state and clear its saga, while it is still held by the same saga (and version) as read')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;outbox' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--transactional', '--transactional', [CompletionResultType]::ParameterName, 'Publish each batch in one Kafka transaction (transactional.id: the config''s publish: transactional_id, default indoubt-republish-NAME): read_committed consumers see a batch whole or not at all')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;reconcile' {
            [CompletionResult]::new('--ids-from', '--ids-from', [CompletionResultType]::ParameterName, 'The ids to publish: the `missing` lines of a file `indoubt reconcile --ids-out` wrote (a line with no tab is an id); default: compare the job''s window now')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'The window''s start, as `reconcile --since` (default: the job''s)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'The window''s end, as `reconcile --until` (default: the job''s)')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--bootstrap-server', '--bootstrap-server', [CompletionResultType]::ParameterName, 'Bootstrap servers, host:port[,host:port…]')
            [CompletionResult]::new('--kafka', '--kafka', [CompletionResultType]::ParameterName, 'A Kafka target name from the config [default: the config''s only kafka target]')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)')
            [CompletionResult]::new('--command-config', '--command-config', [CompletionResultType]::ParameterName, 'A properties file, like kafka tools'' --command-config')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'Ticket or incident id, recorded in the audit trail')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--transactional', '--transactional', [CompletionResultType]::ParameterName, 'Publish each batch in one Kafka transaction (transactional.id: the job''s republish: transactional_id, default indoubt-republish-JOB): read_committed consumers see a batch whole or not at all')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm without a prompt (runbooks); needs --reason')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the evidence and the exact statement; change nothing, record nothing')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;resolve;help' {
            [CompletionResult]::new('pg', 'pg', [CompletionResultType]::ParameterValue, 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic decision')
            [CompletionResult]::new('mysql', 'mysql', [CompletionResultType]::ParameterValue, 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic')
            [CompletionResult]::new('kafka', 'kafka', [CompletionResultType]::ParameterValue, 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved')
            [CompletionResult]::new('tcc', 'tcc', [CompletionResultType]::ParameterValue, 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator''s next Cancel (or Confirm) finds it done')
            [CompletionResult]::new('at', 'at', [CompletionResultType]::ParameterValue, 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch''s undo log')
            [CompletionResult]::new('modulith', 'modulith', [CompletionResultType]::ParameterValue, 'Delete a Spring Modulith registry''s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them')
            [CompletionResult]::new('camunda', 'camunda', [CompletionResultType]::ParameterValue, 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident''s) through the engine''s REST API, which resolves the incident the engine''s way; without a REST API configured, print the call')
            [CompletionResult]::new('dbos', 'dbos', [CompletionResultType]::ParameterValue, 'Resume or cancel DBOS workflows through DBOS''s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command')
            [CompletionResult]::new('saga', 'saga', [CompletionResultType]::ParameterValue, 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service''s and are only advised')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka''s idempotent producer, each with the row''s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka''s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;resolve;help;pg' {
            break
        }
        'indoubt;resolve;help;mysql' {
            break
        }
        'indoubt;resolve;help;kafka' {
            break
        }
        'indoubt;resolve;help;tcc' {
            break
        }
        'indoubt;resolve;help;at' {
            break
        }
        'indoubt;resolve;help;modulith' {
            break
        }
        'indoubt;resolve;help;camunda' {
            break
        }
        'indoubt;resolve;help;dbos' {
            break
        }
        'indoubt;resolve;help;saga' {
            break
        }
        'indoubt;resolve;help;outbox' {
            break
        }
        'indoubt;resolve;help;reconcile' {
            break
        }
        'indoubt;resolve;help;help' {
            break
        }
        'indoubt;audit' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List audit records')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome')
            [CompletionResult]::new('reseal', 'reseal', [CompletionResultType]::ParameterValue, 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;audit;list' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only records newer than this, e.g. 24h')
            [CompletionResult]::new('--object', '--object', [CompletionResultType]::ParameterName, 'Only records whose object contains this text')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;audit;verify' {
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;audit;reseal' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why the head is being re-made (recorded in the log)')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;audit;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List audit records')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome')
            [CompletionResult]::new('reseal', 'reseal', [CompletionResultType]::ParameterValue, 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;audit;help;list' {
            break
        }
        'indoubt;audit;help;verify' {
            break
        }
        'indoubt;audit;help;reseal' {
            break
        }
        'indoubt;audit;help;help' {
            break
        }
        'indoubt;config' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;config;show' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Connect to every target (and the postgres and kafka references of reconcile jobs, outboxes, inboxes and resolve) and report what the role or principal lacks, as the server or broker says it: pg_monitor, CONNECT on databases, catalog reads, table SELECT, Kafka ACLs; each with the GRANT or kafka-acls.sh line that gives it. Unreachable is UNKNOWN, a missing privilege that blinds a command WARNING, one that stops a reconcile job or outbox check CRITICAL')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;config;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;config;help;show' {
            break
        }
        'indoubt;config;help;help' {
            break
        }
        'indoubt;check' {
            [CompletionResult]::new('--deadline', '--deadline', [CompletionResultType]::ParameterName, 'Overall deadline; a check still running then is UNKNOWN')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Run only these checks')
            [CompletionResult]::new('--skip', '--skip', [CompletionResultType]::ParameterName, 'Run all but these checks')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Checks running at once; each server is still reached over one connection [default: 4 per CPU, from 8 to 32]')
            [CompletionResult]::new('--prometheus-file', '--prometheus-file', [CompletionResultType]::ParameterName, 'Also write the Prometheus exposition to FILE, atomically (temp file + rename), for node_exporter''s textfile collector; a link at FILE is refused')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what is not OK (the exit code still counts everything)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what is not OK (the exit code still counts everything)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;serve' {
            [CompletionResult]::new('--deadline', '--deadline', [CompletionResultType]::ParameterName, 'Overall deadline; a check still running then is UNKNOWN')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Run only these checks')
            [CompletionResult]::new('--skip', '--skip', [CompletionResultType]::ParameterName, 'Run all but these checks')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Checks running at once; each server is still reached over one connection [default: 4 per CPU, from 8 to 32]')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address to serve /metrics, /healthz and /-/ready on')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'How often the checks run (one run at a time; /metrics serves the last completed)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;explain' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour: --color never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print what is being done on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indoubt;help' {
            [CompletionResult]::new('pg', 'pg', [CompletionResultType]::ParameterValue, 'Inspect PostgreSQL')
            [CompletionResult]::new('kafka', 'kafka', [CompletionResultType]::ParameterValue, 'Inspect Kafka: LSO gaps, producers, transactions, hanging transactions')
            [CompletionResult]::new('mysql', 'mysql', [CompletionResultType]::ParameterValue, 'Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back')
            [CompletionResult]::new('seata', 'seata', [CompletionResultType]::ParameterValue, 'Inspect Apache Seata: global transactions that never end, and the row locks they hold')
            [CompletionResult]::new('modulith', 'modulith', [CompletionResultType]::ParameterValue, 'Inspect Spring Modulith''s event publication registry: events never delivered')
            [CompletionResult]::new('camunda', 'camunda', [CompletionResultType]::ParameterValue, 'Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind')
            [CompletionResult]::new('dbos', 'dbos', [CompletionResultType]::ParameterValue, 'Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue')
            [CompletionResult]::new('saga', 'saga', [CompletionResultType]::ParameterValue, 'Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Compare the ids in a database window with the ids in a topic (dual-write gaps)')
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Resolve an in-doubt transaction: evidence, the coordinator''s decision, confirmation, audit')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Read and verify the audit trail of resolutions')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Inspect the config file')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Run every check the config enables, on every configured target, concurrently, under one deadline')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the checks'' Prometheus exposition over HTTP, running them on an interval')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'What a finding''s code means, why it matters and how to fix it; without CODE, every code')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indoubt;help;pg' {
            [CompletionResult]::new('prepared', 'prepared', [CompletionResultType]::ParameterValue, 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID')
            [CompletionResult]::new('slots', 'slots', [CompletionResultType]::ParameterValue, 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages')
            [CompletionResult]::new('horizon', 'horizon', [CompletionResultType]::ParameterValue, 'Name who holds back the xmin horizon, and how far each database is from wraparound')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age')
            break
        }
        'indoubt;help;pg;prepared' {
            break
        }
        'indoubt;help;pg;slots' {
            break
        }
        'indoubt;help;pg;horizon' {
            break
        }
        'indoubt;help;pg;outbox' {
            break
        }
        'indoubt;help;kafka' {
            [CompletionResult]::new('lso', 'lso', [CompletionResultType]::ParameterValue, 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it')
            [CompletionResult]::new('producers', 'producers', [CompletionResultType]::ParameterValue, 'Active producers of one partition (DescribeProducers)')
            [CompletionResult]::new('transactions', 'transactions', [CompletionResultType]::ParameterValue, 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)')
            [CompletionResult]::new('hanging', 'hanging', [CompletionResultType]::ParameterValue, 'Find hanging transactions: open on a partition, but never to be ended by their coordinator')
            break
        }
        'indoubt;help;kafka;lso' {
            break
        }
        'indoubt;help;kafka;producers' {
            break
        }
        'indoubt;help;kafka;transactions' {
            break
        }
        'indoubt;help;kafka;hanging' {
            break
        }
        'indoubt;help;mysql' {
            [CompletionResult]::new('xa', 'xa', [CompletionResultType]::ParameterValue, 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction')
            break
        }
        'indoubt;help;mysql;xa' {
            break
        }
        'indoubt;help;seata' {
            [CompletionResult]::new('globals', 'globals', [CompletionResultType]::ParameterValue, 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone')
            [CompletionResult]::new('tcc', 'tcc', [CompletionResultType]::ParameterValue, 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients'' databases')
            [CompletionResult]::new('sagas', 'sagas', [CompletionResultType]::ParameterValue, 'Saga instances unknown, stalled, or whose compensation failed, in the clients'' saga stores')
            break
        }
        'indoubt;help;seata;globals' {
            break
        }
        'indoubt;help;seata;tcc' {
            break
        }
        'indoubt;help;seata;sagas' {
            break
        }
        'indoubt;help;modulith' {
            [CompletionResult]::new('publications', 'publications', [CompletionResultType]::ParameterValue, 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned')
            break
        }
        'indoubt;help;modulith;publications' {
            break
        }
        'indoubt;help;camunda' {
            [CompletionResult]::new('incidents', 'incidents', [CompletionResultType]::ParameterValue, 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind')
            break
        }
        'indoubt;help;camunda;incidents' {
            break
        }
        'indoubt;help;dbos' {
            [CompletionResult]::new('workflows', 'workflows', [CompletionResultType]::ParameterValue, 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold')
            break
        }
        'indoubt;help;dbos;workflows' {
            break
        }
        'indoubt;help;saga' {
            break
        }
        'indoubt;help;reconcile' {
            break
        }
        'indoubt;help;resolve' {
            [CompletionResult]::new('pg', 'pg', [CompletionResultType]::ParameterValue, 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic decision')
            [CompletionResult]::new('mysql', 'mysql', [CompletionResultType]::ParameterValue, 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic')
            [CompletionResult]::new('kafka', 'kafka', [CompletionResultType]::ParameterValue, 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved')
            [CompletionResult]::new('tcc', 'tcc', [CompletionResultType]::ParameterValue, 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator''s next Cancel (or Confirm) finds it done')
            [CompletionResult]::new('at', 'at', [CompletionResultType]::ParameterValue, 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch''s undo log')
            [CompletionResult]::new('modulith', 'modulith', [CompletionResultType]::ParameterValue, 'Delete a Spring Modulith registry''s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them')
            [CompletionResult]::new('camunda', 'camunda', [CompletionResultType]::ParameterValue, 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident''s) through the engine''s REST API, which resolves the incident the engine''s way; without a REST API configured, print the call')
            [CompletionResult]::new('dbos', 'dbos', [CompletionResultType]::ParameterValue, 'Resume or cancel DBOS workflows through DBOS''s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command')
            [CompletionResult]::new('saga', 'saga', [CompletionResultType]::ParameterValue, 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service''s and are only advised')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka''s idempotent producer, each with the row''s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka''s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)')
            break
        }
        'indoubt;help;resolve;pg' {
            break
        }
        'indoubt;help;resolve;mysql' {
            break
        }
        'indoubt;help;resolve;kafka' {
            break
        }
        'indoubt;help;resolve;tcc' {
            break
        }
        'indoubt;help;resolve;at' {
            break
        }
        'indoubt;help;resolve;modulith' {
            break
        }
        'indoubt;help;resolve;camunda' {
            break
        }
        'indoubt;help;resolve;dbos' {
            break
        }
        'indoubt;help;resolve;saga' {
            break
        }
        'indoubt;help;resolve;outbox' {
            break
        }
        'indoubt;help;resolve;reconcile' {
            break
        }
        'indoubt;help;audit' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List audit records')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome')
            [CompletionResult]::new('reseal', 'reseal', [CompletionResultType]::ParameterValue, 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said')
            break
        }
        'indoubt;help;audit;list' {
            break
        }
        'indoubt;help;audit;verify' {
            break
        }
        'indoubt;help;audit;reseal' {
            break
        }
        'indoubt;help;config' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN')
            break
        }
        'indoubt;help;config;show' {
            break
        }
        'indoubt;help;check' {
            break
        }
        'indoubt;help;serve' {
            break
        }
        'indoubt;help;explain' {
            break
        }
        'indoubt;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
