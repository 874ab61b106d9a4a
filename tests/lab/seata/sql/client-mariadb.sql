-- The tables Seata's clients keep in each business database, in MariaDB/MySQL, for the
-- lab's Seata harness (tests/lab/seata/run, which runs this before every command).
-- Written for indoubt: the tables, columns, types and keys are those Apache Seata 2.0.0's
-- clients read and write under their default names (client.undo.logTable, the fence's
-- logTableName, the saga store's tablePrefix "seata_"). Idempotent.

-- AT mode: one row per branch that changed rows here, with the before and after images
-- (rollback_info, serializer named in context); log_status 0 normal, 1 defense.
CREATE TABLE IF NOT EXISTS undo_log (
  branch_id     bigint       NOT NULL,
  xid           varchar(128) NOT NULL,
  context       varchar(128) NOT NULL,
  rollback_info longblob     NOT NULL,
  log_status    int          NOT NULL,
  log_created   datetime(6)  NOT NULL,
  log_modified  datetime(6)  NOT NULL,
  UNIQUE KEY ux_undo_log (xid, branch_id),
  KEY ix_log_created (log_created)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- TCC fence: one row per TCC branch run here; status 1 tried, 2 committed, 3 rolled back,
-- 4 suspended (a Cancel that came with no Try before it).
CREATE TABLE IF NOT EXISTS tcc_fence_log (
  xid          varchar(128) NOT NULL,
  branch_id    bigint       NOT NULL,
  action_name  varchar(64)  NOT NULL,
  status       tinyint      NOT NULL,
  gmt_create   datetime(3)  NOT NULL,
  gmt_modified datetime(3)  NOT NULL,
  PRIMARY KEY (xid, branch_id),
  KEY idx_gmt_modified (gmt_modified),
  KEY idx_status (status)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Saga state machine engine (its db store). Status codes: RU running, SU succeeded,
-- FA failed, UN unknown, SK skipped.
CREATE TABLE IF NOT EXISTS seata_state_machine_def (
  id               varchar(32)  NOT NULL,
  name             varchar(128) NOT NULL,
  tenant_id        varchar(32)  NOT NULL,
  app_name         varchar(32)  NOT NULL,
  type             varchar(20),
  comment_         varchar(255),
  ver              varchar(16)  NOT NULL,
  gmt_create       datetime(3)  NOT NULL,
  status           varchar(2)   NOT NULL,      -- AC active, IN inactive
  content          text,
  recover_strategy varchar(16),                -- compensate or retry
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE IF NOT EXISTS seata_state_machine_inst (
  id                  varchar(128) NOT NULL,
  machine_id          varchar(32)  NOT NULL,
  tenant_id           varchar(32)  NOT NULL,
  parent_id           varchar(128),
  gmt_started         datetime(3)  NOT NULL,
  business_key        varchar(48),
  start_params        text,
  gmt_end             datetime(3),
  excep               blob,
  end_params          text,
  status              varchar(2),
  compensation_status varchar(2),
  is_running          tinyint(1),
  gmt_updated         datetime(3)  NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY unikey_buz_tenant (business_key, tenant_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE IF NOT EXISTS seata_state_inst (
  id                       varchar(48)  NOT NULL,
  machine_inst_id          varchar(128) NOT NULL,
  name                     varchar(128) NOT NULL,
  type                     varchar(20),
  service_name             varchar(128),
  service_method           varchar(128),
  service_type             varchar(16),
  business_key             varchar(48),
  state_id_compensated_for varchar(50),
  state_id_retried_for     varchar(50),
  gmt_started              datetime(3)  NOT NULL,
  is_for_update            tinyint(1),
  input_params             text,
  output_params            text,
  status                   varchar(2)   NOT NULL,
  excep                    blob,
  gmt_updated              datetime(3),
  gmt_end                  datetime(3),
  PRIMARY KEY (id, machine_inst_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
