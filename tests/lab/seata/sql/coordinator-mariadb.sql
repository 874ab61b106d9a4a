-- The Seata coordinator's store (store.mode=db) in MariaDB/MySQL, for the lab's Seata
-- server (tests/lab/seata/server). Written for indoubt: the tables, columns, types and
-- indexes are those Apache Seata 2.0.0's server reads and writes (its default table
-- names: store.db.global-table, branch-table, lock-table, distributed-lock-table).
-- Idempotent: run on every start.

-- One row per global transaction; status is Seata's GlobalStatus number.
CREATE TABLE IF NOT EXISTS global_table (
  xid                       varchar(128)  NOT NULL,
  transaction_id            bigint,
  status                    tinyint       NOT NULL,
  application_id            varchar(32),
  transaction_service_group varchar(32),
  transaction_name          varchar(128),
  timeout                   int,           -- milliseconds
  begin_time                bigint,        -- epoch milliseconds
  application_data          varchar(2000),
  gmt_create                datetime,
  gmt_modified              datetime,
  PRIMARY KEY (xid),
  KEY idx_status_gmt_modified (status, gmt_modified),
  KEY idx_transaction_id (transaction_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- One row per branch; branch_type AT, TCC, SAGA or XA; status is Seata's BranchStatus.
CREATE TABLE IF NOT EXISTS branch_table (
  branch_id         bigint        NOT NULL,
  xid               varchar(128)  NOT NULL,
  transaction_id    bigint,
  resource_group_id varchar(32),
  resource_id       varchar(256),
  branch_type       varchar(8),
  status            tinyint,
  client_id         varchar(64),
  application_data  varchar(2000),
  gmt_create        datetime(6),
  gmt_modified      datetime(6),
  PRIMARY KEY (branch_id),
  KEY idx_xid (xid)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- The global row locks of AT branches: row_key is resource^^^table^^^pk; status 0 locked,
-- 1 rollbacking.
CREATE TABLE IF NOT EXISTS lock_table (
  row_key        varchar(128)  NOT NULL,
  xid            varchar(128),
  transaction_id bigint,
  branch_id      bigint        NOT NULL,
  resource_id    varchar(256),
  table_name     varchar(32),
  pk             varchar(36),
  status         tinyint       NOT NULL DEFAULT 0,
  gmt_create     datetime,
  gmt_modified   datetime,
  PRIMARY KEY (row_key),
  KEY idx_status (status),
  KEY idx_branch_id (branch_id),
  KEY idx_xid (xid)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- The leases of the coordinator's background jobs, one row per job.
CREATE TABLE IF NOT EXISTS distributed_lock (
  lock_key   char(20)    NOT NULL,
  lock_value varchar(20) NOT NULL,
  expire     bigint,
  PRIMARY KEY (lock_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
INSERT IGNORE INTO distributed_lock (lock_key, lock_value, expire) VALUES
  ('AsyncCommitting', ' ', 0), ('RetryCommitting', ' ', 0),
  ('RetryRollbacking', ' ', 0), ('TxTimeoutCheck', ' ', 0);
