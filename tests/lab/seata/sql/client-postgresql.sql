-- The tables Seata's clients keep in each business database, in PostgreSQL, for the lab's
-- Seata harness (tests/lab/seata/run, which runs this before every command). Written for
-- indoubt: the tables, columns, types and keys are those Apache Seata 2.0.0's clients read
-- and write under their default names (client.undo.logTable, the fence's logTableName,
-- the saga store's tablePrefix "seata_"). Index names carry their table's name:
-- PostgreSQL index names are per schema. Idempotent.

-- AT mode: one row per branch that changed rows here, with the before and after images
-- (rollback_info, serializer named in context); log_status 0 normal, 1 defense (a
-- rollback that came before the branch's local commit).
-- Seata's PostgreSQL undo log takes its ids from the sequence undo_log_id_seq by name:
-- bigserial on undo_log.id makes exactly that sequence.
CREATE TABLE IF NOT EXISTS undo_log (
  id            bigserial     NOT NULL PRIMARY KEY,
  branch_id     bigint        NOT NULL,
  xid           varchar(128)  NOT NULL,
  context       varchar(128)  NOT NULL,
  rollback_info bytea         NOT NULL,
  log_status    integer       NOT NULL,
  log_created   timestamp(0)  NOT NULL,
  log_modified  timestamp(0)  NOT NULL,
  CONSTRAINT undo_log_xid_branch_id UNIQUE (xid, branch_id)
);
CREATE INDEX IF NOT EXISTS undo_log_log_created ON undo_log (log_created);

-- TCC fence: one row per TCC branch run here; status 1 tried, 2 committed, 3 rolled back,
-- 4 suspended (a Cancel that came with no Try before it).
CREATE TABLE IF NOT EXISTS tcc_fence_log (
  xid          varchar(128) NOT NULL,
  branch_id    bigint       NOT NULL,
  action_name  varchar(64)  NOT NULL,
  status       smallint     NOT NULL,
  gmt_create   timestamp(3) NOT NULL,
  gmt_modified timestamp(3) NOT NULL,
  PRIMARY KEY (xid, branch_id)
);
CREATE INDEX IF NOT EXISTS tcc_fence_log_gmt_modified ON tcc_fence_log (gmt_modified);
CREATE INDEX IF NOT EXISTS tcc_fence_log_status ON tcc_fence_log (status);

-- Saga state machine engine (its db store): the definitions it loaded, one row per
-- machine instance and one per state run. Status codes: RU running, SU succeeded,
-- FA failed, UN unknown, SK skipped.
CREATE TABLE IF NOT EXISTS seata_state_machine_def (
  id               varchar(32)  NOT NULL PRIMARY KEY,
  name             varchar(128) NOT NULL,
  tenant_id        varchar(32)  NOT NULL,
  app_name         varchar(32)  NOT NULL,
  type             varchar(20),
  comment_         varchar(255),
  ver              varchar(16)  NOT NULL,
  gmt_create       timestamp(3) NOT NULL,
  status           varchar(2)   NOT NULL,      -- AC active, IN inactive
  content          text,
  recover_strategy varchar(16)                 -- compensate or retry
);

CREATE TABLE IF NOT EXISTS seata_state_machine_inst (
  id                  varchar(128) NOT NULL PRIMARY KEY,
  machine_id          varchar(32)  NOT NULL,
  tenant_id           varchar(32)  NOT NULL,
  parent_id           varchar(128),
  gmt_started         timestamp(3) NOT NULL,
  business_key        varchar(48),
  start_params        text,
  gmt_end             timestamp(3) DEFAULT now(),
  excep               bytea,
  end_params          text,
  status              varchar(2),
  compensation_status varchar(2),
  is_running          boolean,
  gmt_updated         timestamp(3) NOT NULL DEFAULT now(),
  CONSTRAINT seata_state_machine_inst_business_key UNIQUE (business_key, tenant_id)
);

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
  gmt_started              timestamp(3) NOT NULL,
  is_for_update            boolean,
  input_params             text,
  output_params            text,
  status                   varchar(2)   NOT NULL,
  excep                    bytea,
  gmt_updated              timestamp(3) DEFAULT now(),
  gmt_end                  timestamp(3) DEFAULT now(),
  PRIMARY KEY (id, machine_inst_id)
);
