-- The Seata coordinator's store (store.mode=db) in PostgreSQL, for the lab's Seata server
-- (tests/lab/seata/server). Written for indoubt: the tables, columns, types and indexes are
-- those Apache Seata 2.0.0's server reads and writes (its default table names:
-- store.db.global-table, branch-table, lock-table, distributed-lock-table). Index names
-- carry their table's name: PostgreSQL index names are per schema, not per table.
-- Idempotent: run on every start.

-- One row per global transaction; status is Seata's GlobalStatus number.
CREATE TABLE IF NOT EXISTS global_table (
  xid                       varchar(128)  NOT NULL PRIMARY KEY,
  transaction_id            bigint,
  status                    smallint      NOT NULL,
  application_id            varchar(32),
  transaction_service_group varchar(32),
  transaction_name          varchar(128),
  timeout                   integer,       -- milliseconds
  begin_time                bigint,        -- epoch milliseconds
  application_data          varchar(2000),
  gmt_create                timestamp(0),
  gmt_modified              timestamp(0)
);
CREATE INDEX IF NOT EXISTS global_table_status_gmt_modified ON global_table (status, gmt_modified);
CREATE INDEX IF NOT EXISTS global_table_transaction_id ON global_table (transaction_id);

-- One row per branch; branch_type AT, TCC, SAGA or XA; status is Seata's BranchStatus.
CREATE TABLE IF NOT EXISTS branch_table (
  branch_id         bigint        NOT NULL PRIMARY KEY,
  xid               varchar(128)  NOT NULL,
  transaction_id    bigint,
  resource_group_id varchar(32),
  resource_id       varchar(256),
  branch_type       varchar(8),
  status            smallint,
  client_id         varchar(64),
  application_data  varchar(2000),
  gmt_create        timestamp(6),
  gmt_modified      timestamp(6)
);
CREATE INDEX IF NOT EXISTS branch_table_xid ON branch_table (xid);

-- The global row locks of AT branches: row_key is resource^^^table^^^pk; status 0 locked,
-- 1 rollbacking.
CREATE TABLE IF NOT EXISTS lock_table (
  row_key        varchar(128)  NOT NULL PRIMARY KEY,
  xid            varchar(128),
  transaction_id bigint,
  branch_id      bigint        NOT NULL,
  resource_id    varchar(256),
  table_name     varchar(32),
  pk             varchar(36),
  status         smallint      NOT NULL DEFAULT 0,
  gmt_create     timestamp(0),
  gmt_modified   timestamp(0)
);
CREATE INDEX IF NOT EXISTS lock_table_branch_id ON lock_table (branch_id);
CREATE INDEX IF NOT EXISTS lock_table_xid ON lock_table (xid);
CREATE INDEX IF NOT EXISTS lock_table_status ON lock_table (status);

-- The leases of the coordinator's background jobs, one row per job (several servers on
-- one store take turns).
CREATE TABLE IF NOT EXISTS distributed_lock (
  lock_key   varchar(20) NOT NULL PRIMARY KEY,
  lock_value varchar(20) NOT NULL,
  expire     bigint      NOT NULL
);
INSERT INTO distributed_lock (lock_key, lock_value, expire)
SELECT job, ' ', 0
FROM (VALUES ('AsyncCommitting'), ('RetryCommitting'), ('RetryRollbacking'), ('TxTimeoutCheck')) AS jobs (job)
ON CONFLICT (lock_key) DO NOTHING;
