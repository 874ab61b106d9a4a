
use builtin;
use str;

set edit:completion:arg-completer[indoubt] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'indoubt'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'indoubt'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand pg 'Inspect PostgreSQL'
            cand kafka 'Inspect Kafka: LSO gaps, producers, transactions, hanging transactions'
            cand mysql 'Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back'
            cand seata 'Inspect Apache Seata: global transactions that never end, and the row locks they hold'
            cand modulith 'Inspect Spring Modulith''s event publication registry: events never delivered'
            cand camunda 'Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind'
            cand dbos 'Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue'
            cand saga 'Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run'
            cand reconcile 'Compare the ids in a database window with the ids in a topic (dual-write gaps)'
            cand resolve 'Resolve an in-doubt transaction: evidence, the coordinator''s decision, confirmation, audit'
            cand audit 'Read and verify the audit trail of resolutions'
            cand config 'Inspect the config file'
            cand check 'Run every check the config enables, on every configured target, concurrently, under one deadline'
            cand serve 'Serve the checks'' Prometheus exposition over HTTP, running them on an interval'
            cand explain 'What a finding''s code means, why it matters and how to fix it; without CODE, every code'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;pg'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand prepared 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID'
            cand slots 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages'
            cand horizon 'Name who holds back the xmin horizon, and how far each database is from wraparound'
            cand outbox 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;pg;prepared'= {
            cand --pg 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]'
            cand -h 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand --host 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand -p 'The server''s port, as psql''s -p'
            cand --port 'The server''s port, as psql''s -p'
            cand -U 'The user to connect as, as psql''s -U'
            cand --username 'The user to connect as, as psql''s -U'
            cand -d 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --dbname 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --database 'Only prepared transactions of this database (repeatable; -d is the database to connect to, as in psql)'
            cand --warning-age 'Age at which a prepared transaction is a WARNING [config: thresholds.prepared.warning_age; default 5m]'
            cand --critical-age 'Age at which a prepared transaction is CRITICAL [config: thresholds.prepared.critical_age; default 30m]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --help 'Print help (-h is the host, as in psql)'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
        }
        &'indoubt;pg;slots'= {
            cand --pg 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]'
            cand -h 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand --host 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand -p 'The server''s port, as psql''s -p'
            cand --port 'The server''s port, as psql''s -p'
            cand -U 'The user to connect as, as psql''s -U'
            cand --username 'The user to connect as, as psql''s -U'
            cand -d 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --dbname 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --warning-retained 'WAL retained by an inactive slot that is a WARNING, e.g. 512MiB, 1GB [config: thresholds.slots.warning_retained; default 1GiB]'
            cand --critical-retained 'WAL retained by an inactive slot that is CRITICAL [config: thresholds.slots.critical_retained; default 10GiB]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --help 'Print help (-h is the host, as in psql)'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
        }
        &'indoubt;pg;horizon'= {
            cand --pg 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]'
            cand -h 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand --host 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand -p 'The server''s port, as psql''s -p'
            cand --port 'The server''s port, as psql''s -p'
            cand -U 'The user to connect as, as psql''s -U'
            cand --username 'The user to connect as, as psql''s -U'
            cand -d 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --dbname 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --warning-age 'How long one holder may hold the horizon before a WARNING [config: thresholds.horizon.warning_age; default 1h]'
            cand --critical-age '… before CRITICAL [config: thresholds.horizon.critical_age; default 6h]'
            cand --warning-xids 'How many xids one holder may hold the horizon back before a WARNING, e.g. 10M [config: thresholds.horizon.warning_xids; default 10M]'
            cand --critical-xids '… before CRITICAL [config: thresholds.horizon.critical_xids; default 100M]'
            cand --wraparound-warning-xids 'Database age (datfrozenxid, datminmxid) that is a WARNING [config: thresholds.wraparound.warning_xids; default 1.3B]'
            cand --wraparound-critical-xids 'Database age that is CRITICAL [config: thresholds.wraparound.critical_xids; default 1.4B]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --help 'Print help (-h is the host, as in psql)'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
        }
        &'indoubt;pg;outbox'= {
            cand --show 'How many skipped ids to list'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;pg;help'= {
            cand prepared 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID'
            cand slots 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages'
            cand horizon 'Name who holds back the xmin horizon, and how far each database is from wraparound'
            cand outbox 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;pg;help;prepared'= {
        }
        &'indoubt;pg;help;slots'= {
        }
        &'indoubt;pg;help;horizon'= {
        }
        &'indoubt;pg;help;outbox'= {
        }
        &'indoubt;pg;help;help'= {
        }
        &'indoubt;kafka'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand lso 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it'
            cand producers 'Active producers of one partition (DescribeProducers)'
            cand transactions 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)'
            cand hanging 'Find hanging transactions: open on a partition, but never to be ended by their coordinator'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;kafka;lso'= {
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --topic 'Only this topic (repeatable) [default: every topic, internal ones included]'
            cand --topic-regex 'Only topics whose name matches this regular expression'
            cand --warning-age 'Age of the first unstable record that is a WARNING [config: thresholds.lso.warning_age; default 5m]'
            cand --critical-age '… CRITICAL [config: thresholds.lso.critical_age; default 15m]'
            cand --warning-gap 'Offsets between LSO and high watermark that are a WARNING [config: thresholds.lso.warning_gap; default 100k]'
            cand --critical-gap '… CRITICAL [config: thresholds.lso.critical_gap; default 1M]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;kafka;producers'= {
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --topic 'The topic of the partition (required)'
            cand --partition 'The partition whose producers to describe (required)'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;kafka;transactions'= {
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --state 'Only transactions in this state (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, …); repeatable'
            cand --min-duration 'Only transactions started longer ago than this (the broker filters from Kafka 3.8; before, indoubt filters on the start times)'
            cand --transactional-id 'Describe this transactional id only'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;kafka;hanging'= {
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --topic 'Search this topic [default: every topic]'
            cand --topic-regex 'Search the topics whose name matches this regular expression'
            cand --partition '… only this partition of it'
            cand --broker-id 'Search the partitions with a replica on this broker'
            cand --max-transaction-timeout 'Transactions whose last write is older than this are examined, as kafka-transactions.sh [config: thresholds.hanging.max_transaction_timeout; default 15m]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;kafka;help'= {
            cand lso 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it'
            cand producers 'Active producers of one partition (DescribeProducers)'
            cand transactions 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)'
            cand hanging 'Find hanging transactions: open on a partition, but never to be ended by their coordinator'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;kafka;help;lso'= {
        }
        &'indoubt;kafka;help;producers'= {
        }
        &'indoubt;kafka;help;transactions'= {
        }
        &'indoubt;kafka;help;hanging'= {
        }
        &'indoubt;kafka;help;help'= {
        }
        &'indoubt;mysql'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand xa 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;mysql;xa'= {
            cand --mysql 'A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password in an option file or MYSQL_PWD) [default: the config''s only mysql target]'
            cand --defaults-file 'An option file whose [client] group gives the password, as the client''s --defaults-file [default: the target''s option_file, else ~/.my.cnf]'
            cand --ssl-mode 'TLS, as the mysql client''s --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY [default: the target''s, else PREFERRED]'
            cand --ssl-ca 'The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server''s against'
            cand --warning-age 'Age at which a prepared branch is a WARNING [config: thresholds.prepared.warning_age; default 5m]'
            cand --critical-age 'Age at which a prepared branch is CRITICAL [config: thresholds.prepared.critical_age; default 30m]'
            cand --warning-history-length 'History list length that is a WARNING [config: thresholds.purge.warning_history_length; default 100k]'
            cand --critical-history-length 'History list length that is CRITICAL [config: thresholds.purge.critical_history_length; default 1M]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;mysql;help'= {
            cand xa 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;mysql;help;xa'= {
        }
        &'indoubt;mysql;help;help'= {
        }
        &'indoubt;seata'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand globals 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone'
            cand tcc 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients'' databases'
            cand sagas 'Saga instances unknown, stalled, or whose compensation failed, in the clients'' saga stores'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;seata;globals'= {
            cand --show 'How many branches and locked rows of each global to list'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;seata;tcc'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;seata;sagas'= {
            cand --show 'How many states of each saga instance to list'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;seata;help'= {
            cand globals 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone'
            cand tcc 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients'' databases'
            cand sagas 'Saga instances unknown, stalled, or whose compensation failed, in the clients'' saga stores'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;seata;help;globals'= {
        }
        &'indoubt;seata;help;tcc'= {
        }
        &'indoubt;seata;help;sagas'= {
        }
        &'indoubt;seata;help;help'= {
        }
        &'indoubt;modulith'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand publications 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;modulith;publications'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;modulith;help'= {
            cand publications 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;modulith;help;publications'= {
        }
        &'indoubt;modulith;help;help'= {
        }
        &'indoubt;camunda'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand incidents 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;camunda;incidents'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;camunda;help'= {
            cand incidents 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;camunda;help;incidents'= {
        }
        &'indoubt;camunda;help;help'= {
        }
        &'indoubt;dbos'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand workflows 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;dbos;workflows'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;dbos;help'= {
            cand workflows 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;dbos;help;workflows'= {
        }
        &'indoubt;dbos;help;help'= {
        }
        &'indoubt;saga'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;reconcile'= {
            cand --pg 'The database: a target name, a postgres:// URL or conninfo'
            cand --query 'Returns the id (text or integer) and optionally the row''s time, for rows in [$1, $2); an id longer than 4096 bytes is refused (exit 3, naming the row)'
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --topic 'The topic the rows are published to [default: the job''s topic]'
            cand --id-from 'Where a message''s id is: key, header:NAME or json:/pointer [default: key]; an id longer than 4096 bytes is refused (exit 3, naming the partition and offset)'
            cand --since 'The window''s start: an RFC 3339 time or a duration back from now, e.g. 3h [default: 24h]'
            cand --until 'The window''s end (exclusive): a time or a duration back from now [default: 0s, now]'
            cand --settle 'Rows younger than this are not yet expected in the topic (relay lag) [default: 5m]'
            cand --slack 'Read the topic from this much before the window''s start (producer clock skew) [default: 1m]'
            cand --ids-out 'Write every id of every class to this file (`class<TAB>id` lines), each field escaped: \\ \t \n \r, \xHH for other ASCII control bytes, \u{HHHH} for C1 controls and U+2028/U+2029'
            cand --show 'How many ids of each class the table shows'
            cand --memory 'Memory the ids of both sides may take, at most 1GiB; past it they are sorted into runs on disk and merged, with the same result [default: 512MiB]'
            cand --spill-dir 'Where the runs past --memory go: a private directory is made there and removed on exit [default: $TMPDIR, else /tmp]'
            cand --query-timeout 'Bound on the database query (it may stream millions of rows) [default: 1h]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-progress 'Never draw the progress spinner on stderr (it is drawn only on a terminal anyway)'
            cand --count-only 'Compare counts only, without keeping ids'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand pg 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic decision'
            cand mysql 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic'
            cand kafka 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved'
            cand tcc 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator''s next Cancel (or Confirm) finds it done'
            cand at 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch''s undo log'
            cand modulith 'Delete a Spring Modulith registry''s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them'
            cand camunda 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident''s) through the engine''s REST API, which resolves the incident the engine''s way; without a REST API configured, print the call'
            cand dbos 'Resume or cancel DBOS workflows through DBOS''s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command'
            cand saga 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service''s and are only advised'
            cand outbox 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka''s idempotent producer, each with the row''s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)'
            cand reconcile 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka''s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;resolve;pg'= {
            cand --pg 'A target name from the config, a postgres:// URL or a key=value conninfo string [default: the config''s only postgres target, else the PG* environment variables]'
            cand -h 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand --host 'The server''s host name, IP address or socket directory, as psql''s -h'
            cand -p 'The server''s port, as psql''s -p'
            cand --port 'The server''s port, as psql''s -p'
            cand -U 'The user to connect as, as psql''s -U'
            cand --username 'The user to connect as, as psql''s -U'
            cand -d 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --dbname 'The database to connect to, as psql''s -d (a URL or key=value string there is the whole connection string, as --pg)'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --help 'Print help (-h is the host, as in psql)'
            cand --commit 'Commit it'
            cand --rollback 'Roll it back'
            cand --force 'Act against the decision the sources recorded (a heuristic that breaks atomicity)'
            cand --all-branches 'Apply the same decision to every other branch of its global transaction still prepared (this server''s other databases, the resolve.participants targets), with one confirmation; each branch is checked against its own decision sources and audited on its own'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
        }
        &'indoubt;resolve;mysql'= {
            cand --mysql 'A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password in an option file or MYSQL_PWD) [default: the config''s only mysql target]'
            cand --defaults-file 'An option file whose [client] group gives the password, as the client''s --defaults-file [default: the target''s option_file, else ~/.my.cnf]'
            cand --ssl-mode 'TLS, as the mysql client''s --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY [default: the target''s, else PREFERRED]'
            cand --ssl-ca 'The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server''s against'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --commit 'Commit it'
            cand --rollback 'Roll it back'
            cand --force 'Act against the decision the sources recorded (a heuristic that breaks atomicity)'
            cand --all-branches 'Apply the same decision to every other branch of its global transaction still prepared (the resolve.participants targets, PostgreSQL and MySQL), with one confirmation; each branch is checked against its own decision sources and audited on its own'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;kafka'= {
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --topic 'The topic of the partition the transaction is open on'
            cand --partition 'The partition the transaction is open on (as `kafka hanging` shows it)'
            cand --start-offset 'The transaction''s first offset (as `kafka hanging` shows it)'
            cand --producer-id 'Or name the producer directly (with --producer-epoch and --coordinator-epoch)'
            cand --producer-epoch 'The producer''s epoch, with --producer-id (as `kafka producers` shows it)'
            cand --coordinator-epoch 'The coordinator epoch the abort marker carries, with --producer-id (as `kafka producers` shows it)'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --force 'Abort even though its coordinator still owns it (it would abort it at its timeout): a recorded heuristic, with a reason'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;tcc'= {
            cand --branch-id 'The Try''s branch, as `seata tcc` shows it'
            cand --as 'What was done by hand: its reservation released (cancelled) or kept (confirmed)'
            cand --coordinator 'The coordinator of the config (seata: NAME) [default: the only one]'
            cand --client 'Its client whose fence holds the Try [default: its only client with a tcc_fence_log]'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;at'= {
            cand --branch-id 'The AT branch whose undo log meets the changed rows: the finding''s next names it (`seata globals -o json` lists each branch''s branch_id)'
            cand --fix 'What to do so that the coordinator''s next retry of the rollback succeeds'
            cand --coordinator 'The coordinator of the config (seata: NAME) [default: the only one]'
            cand --client 'Its client whose undo_log holds the branch [default: its only client with an undo_log]'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;modulith'= {
            cand --older-than 'Delete those completed longer ago than this [default: the registry''s retention]'
            cand --batch-size 'Rows each DELETE takes (each batch commits by itself: locks are held briefly)'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;camunda'= {
            cand --retries 'The retries to give each (0 stops a job that keeps failing: it becomes an incident)'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;dbos'= {
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --resume 'Run them again from their last completed step (dbos workflow resume): only a process of their application version runs them'
            cand --cancel 'Cancel them (dbos workflow cancel): their remaining steps never run'
            cand --executor-gone 'The operator''s word that the process that ran these PENDING workflows is gone: DBOS keeps no liveness, and resuming a workflow whose process is alive runs it twice'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;saga'= {
            cand --lock 'The lock table of the entities (when the saga has several)'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --escalate 'Insert each saga into the manual queue with what is known of it, unless it has an open item there'
            cand --release 'Set each entity back to the lock''s released state and clear its saga, while it is still held by the same saga (and version) as read'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;outbox'= {
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --transactional 'Publish each batch in one Kafka transaction (transactional.id: the config''s publish: transactional_id, default indoubt-republish-NAME): read_committed consumers see a batch whole or not at all'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;reconcile'= {
            cand --ids-from 'The ids to publish: the `missing` lines of a file `indoubt reconcile --ids-out` wrote (a line with no tab is an id); default: compare the job''s window now'
            cand --since 'The window''s start, as `reconcile --since` (default: the job''s)'
            cand --until 'The window''s end, as `reconcile --until` (default: the job''s)'
            cand -b 'Bootstrap servers, host:port[,host:port…]'
            cand --bootstrap-server 'Bootstrap servers, host:port[,host:port…]'
            cand --kafka 'A Kafka target name from the config [default: the config''s only kafka target]'
            cand -X 'Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config. An unknown name is refused. Keep secrets off the command line (ps shows it to every user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)'
            cand --command-config 'A properties file, like kafka tools'' --command-config'
            cand --reason 'Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)'
            cand --ticket 'Ticket or incident id, recorded in the audit trail'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --transactional 'Publish each batch in one Kafka transaction (transactional.id: the job''s republish: transactional_id, default indoubt-republish-JOB): read_committed consumers see a batch whole or not at all'
            cand --yes 'Confirm without a prompt (runbooks); needs --reason'
            cand --dry-run 'Show the evidence and the exact statement; change nothing, record nothing'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;resolve;help'= {
            cand pg 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic decision'
            cand mysql 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic'
            cand kafka 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved'
            cand tcc 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator''s next Cancel (or Confirm) finds it done'
            cand at 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch''s undo log'
            cand modulith 'Delete a Spring Modulith registry''s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them'
            cand camunda 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident''s) through the engine''s REST API, which resolves the incident the engine''s way; without a REST API configured, print the call'
            cand dbos 'Resume or cancel DBOS workflows through DBOS''s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command'
            cand saga 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service''s and are only advised'
            cand outbox 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka''s idempotent producer, each with the row''s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)'
            cand reconcile 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka''s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;resolve;help;pg'= {
        }
        &'indoubt;resolve;help;mysql'= {
        }
        &'indoubt;resolve;help;kafka'= {
        }
        &'indoubt;resolve;help;tcc'= {
        }
        &'indoubt;resolve;help;at'= {
        }
        &'indoubt;resolve;help;modulith'= {
        }
        &'indoubt;resolve;help;camunda'= {
        }
        &'indoubt;resolve;help;dbos'= {
        }
        &'indoubt;resolve;help;saga'= {
        }
        &'indoubt;resolve;help;outbox'= {
        }
        &'indoubt;resolve;help;reconcile'= {
        }
        &'indoubt;resolve;help;help'= {
        }
        &'indoubt;audit'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List audit records'
            cand verify 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome'
            cand reseal 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;audit;list'= {
            cand --since 'Only records newer than this, e.g. 24h'
            cand --object 'Only records whose object contains this text'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;audit;verify'= {
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;audit;reseal'= {
            cand --reason 'Why the head is being re-made (recorded in the log)'
            cand --audit-log 'The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;audit;help'= {
            cand list 'List audit records'
            cand verify 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome'
            cand reseal 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;audit;help;list'= {
        }
        &'indoubt;audit;help;verify'= {
        }
        &'indoubt;audit;help;reseal'= {
        }
        &'indoubt;audit;help;help'= {
        }
        &'indoubt;config'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand show 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;config;show'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --check 'Connect to every target (and the postgres and kafka references of reconcile jobs, outboxes, inboxes and resolve) and report what the role or principal lacks, as the server or broker says it: pg_monitor, CONNECT on databases, catalog reads, table SELECT, Kafka ACLs; each with the GRANT or kafka-acls.sh line that gives it. Unreachable is UNKNOWN, a missing privilege that blinds a command WARNING, one that stops a reconcile job or outbox check CRITICAL'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;config;help'= {
            cand show 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;config;help;show'= {
        }
        &'indoubt;config;help;help'= {
        }
        &'indoubt;check'= {
            cand --deadline 'Overall deadline; a check still running then is UNKNOWN'
            cand --only 'Run only these checks'
            cand --skip 'Run all but these checks'
            cand --concurrency 'Checks running at once; each server is still reached over one connection [default: 4 per CPU, from 8 to 32]'
            cand --prometheus-file 'Also write the Prometheus exposition to FILE, atomically (temp file + rename), for node_exporter''s textfile collector; a link at FILE is refused'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand -q 'Print only what is not OK (the exit code still counts everything)'
            cand --quiet 'Print only what is not OK (the exit code still counts everything)'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;serve'= {
            cand --deadline 'Overall deadline; a check still running then is UNKNOWN'
            cand --only 'Run only these checks'
            cand --skip 'Run all but these checks'
            cand --concurrency 'Checks running at once; each server is still reached over one connection [default: 4 per CPU, from 8 to 32]'
            cand --listen 'The address to serve /metrics, /healthz and /-/ready on'
            cand --interval 'How often the checks run (one run at a time; /metrics serves the last completed)'
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;explain'= {
            cand --config 'Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]'
            cand -o 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --output 'Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)'
            cand --color 'Colour: auto (a terminal, unless NO_COLOR is set), always or never'
            cand --width 'Lay tables out for N columns [default: the terminal''s width, else $COLUMNS, else 80]'
            cand --timeout 'Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]'
            cand --no-color 'Never use colour: --color never'
            cand -v 'Print what is being done on stderr'
            cand --verbose 'Print what is being done on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indoubt;help'= {
            cand pg 'Inspect PostgreSQL'
            cand kafka 'Inspect Kafka: LSO gaps, producers, transactions, hanging transactions'
            cand mysql 'Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back'
            cand seata 'Inspect Apache Seata: global transactions that never end, and the row locks they hold'
            cand modulith 'Inspect Spring Modulith''s event publication registry: events never delivered'
            cand camunda 'Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind'
            cand dbos 'Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue'
            cand saga 'Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run'
            cand reconcile 'Compare the ids in a database window with the ids in a topic (dual-write gaps)'
            cand resolve 'Resolve an in-doubt transaction: evidence, the coordinator''s decision, confirmation, audit'
            cand audit 'Read and verify the audit trail of resolutions'
            cand config 'Inspect the config file'
            cand check 'Run every check the config enables, on every configured target, concurrently, under one deadline'
            cand serve 'Serve the checks'' Prometheus exposition over HTTP, running them on an interval'
            cand explain 'What a finding''s code means, why it matters and how to fix it; without CODE, every code'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indoubt;help;pg'= {
            cand prepared 'List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID'
            cand slots 'List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages'
            cand horizon 'Name who holds back the xmin horizon, and how far each database is from wraparound'
            cand outbox 'Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age'
        }
        &'indoubt;help;pg;prepared'= {
        }
        &'indoubt;help;pg;slots'= {
        }
        &'indoubt;help;pg;horizon'= {
        }
        &'indoubt;help;pg;outbox'= {
        }
        &'indoubt;help;kafka'= {
            cand lso 'Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it'
            cand producers 'Active producers of one partition (DescribeProducers)'
            cand transactions 'Transactions known to the coordinators (ListTransactions, DescribeTransactions)'
            cand hanging 'Find hanging transactions: open on a partition, but never to be ended by their coordinator'
        }
        &'indoubt;help;kafka;lso'= {
        }
        &'indoubt;help;kafka;producers'= {
        }
        &'indoubt;help;kafka;transactions'= {
        }
        &'indoubt;help;kafka;hanging'= {
        }
        &'indoubt;help;mysql'= {
            cand xa 'List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID; and the history list that purge has not removed, with the oldest transaction'
        }
        &'indoubt;help;mysql;xa'= {
        }
        &'indoubt;help;seata'= {
            cand globals 'Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone'
            cand tcc 'TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients'' databases'
            cand sagas 'Saga instances unknown, stalled, or whose compensation failed, in the clients'' saga stores'
        }
        &'indoubt;help;seata;globals'= {
        }
        &'indoubt;help;seata;tcc'= {
        }
        &'indoubt;help;seata;sagas'= {
        }
        &'indoubt;help;modulith'= {
            cand publications 'Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned'
        }
        &'indoubt;help;modulith;publications'= {
        }
        &'indoubt;help;camunda'= {
            cand incidents 'Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind'
        }
        &'indoubt;help;camunda;incidents'= {
        }
        &'indoubt;help;dbos'= {
            cand workflows 'DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold'
        }
        &'indoubt;help;dbos;workflows'= {
        }
        &'indoubt;help;saga'= {
        }
        &'indoubt;help;reconcile'= {
        }
        &'indoubt;help;resolve'= {
            cand pg 'COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic decision'
            cand mysql 'XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the coordinator''s decision where one is found, else as an explicit, recorded heuristic'
            cand kafka 'Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader), then check that the LSO moved'
            cand tcc 'Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was done by hand, so the coordinator''s next Cancel (or Confirm) finds it done'
            cand at 'Let a Seata AT rollback that a dirty write holds up go on while the coordinator retries it: set the changed rows back to what the branch wrote, or delete the branch''s undo log'
            cand modulith 'Delete a Spring Modulith registry''s completed publications older than a retention, in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan does), for an application that never prunes them'
            cand camunda 'Set the retries of a Camunda 7 / Operaton job or external task (by its id or its incident''s) through the engine''s REST API, which resolves the incident the engine''s way; without a REST API configured, print the call'
            cand dbos 'Resume or cancel DBOS workflows through DBOS''s own CLI (dbos workflow resume / cancel), after checking each is there and what it is; without a CLI configured, print the command'
            cand saga 'Raise stuck hand-written sagas in their manual queue (once), or set entities a finished, failed, missing or overdue saga still holds back to their released state (guarded: an entity taken again meanwhile is left alone); compensation and forward recovery are the service''s and are only advised'
            cand outbox 'Publish the outbox rows its relay skipped for good (what `pg outbox` names outbox_skipped_rows) through librdkafka''s idempotent producer, each with the row''s id as its message id, then mark the delivered ones published as the relay does (only rows still unpublished and unchanged since they were read)'
            cand reconcile 'Publish the ids a reconcile job finds missing in its topic (found now, or read from an --ids-out file) with the messages its republish: query builds from the source of truth, through librdkafka''s idempotent producer; ids that meanwhile appeared in the topic are left out (read again right before sending)'
        }
        &'indoubt;help;resolve;pg'= {
        }
        &'indoubt;help;resolve;mysql'= {
        }
        &'indoubt;help;resolve;kafka'= {
        }
        &'indoubt;help;resolve;tcc'= {
        }
        &'indoubt;help;resolve;at'= {
        }
        &'indoubt;help;resolve;modulith'= {
        }
        &'indoubt;help;resolve;camunda'= {
        }
        &'indoubt;help;resolve;dbos'= {
        }
        &'indoubt;help;resolve;saga'= {
        }
        &'indoubt;help;resolve;outbox'= {
        }
        &'indoubt;help;resolve;reconcile'= {
        }
        &'indoubt;help;audit'= {
            cand list 'List audit records'
            cand verify 'Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome'
            cand reseal 'Make a new head for a log whose head was lost, after checking the chain line by line; records who, when, why and what the old head said'
        }
        &'indoubt;help;audit;list'= {
        }
        &'indoubt;help;audit;verify'= {
        }
        &'indoubt;help;audit;reseal'= {
        }
        &'indoubt;help;config'= {
            cand show 'Show the config in force: its file, every target (never a secret) and the thresholds; a target that cannot be used is UNKNOWN'
        }
        &'indoubt;help;config;show'= {
        }
        &'indoubt;help;check'= {
        }
        &'indoubt;help;serve'= {
        }
        &'indoubt;help;explain'= {
        }
        &'indoubt;help;help'= {
        }
    ]
    $completions[$command]
}
