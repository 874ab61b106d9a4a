-- The saga incident of tests/lab/up --incidents, in database shop of the lab's
-- PostgreSQL: an order saga a service runs by hand (README "Sagas"), made again at each
-- `up --incidents` so that its ages are what they say. Each instance is one stuck state:
--   4701 FAILED at step PAID, nobody told (no manual-queue item)
--   4702 COMPENSATING at its 10th attempt (max_attempts 10)
--   4703 PAYMENT_UNKNOWN for 40 minutes (unknown_escalate_after 15m)
--   4704 SHIPPED (the pivot) with no progress for 20 minutes: forward only
--   4705 SEATS_HELD, started 45 minutes ago (deadline 30m), still moving
--   4706 FAILED, with an open item in the manual queue (a person has it)
--   4707 STARTED a moment ago: fine
--   4650 COMPLETED, its manual-queue item never closed
--   4690 COMPENSATED, its seats 17 and 18 still HELD (orphaned); seat 20 HELD by saga
--   9999, which does not exist; seat 19 HELD by 4707 (fine).
DROP TABLE IF EXISTS order_saga, saga_manual_intervention, seats;
CREATE TABLE order_saga (
  id bigint PRIMARY KEY,
  state text NOT NULL,
  step text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  order_id bigint NOT NULL,
  amount numeric(12,2) NOT NULL,
  currency text NOT NULL
);
CREATE INDEX order_saga_unfinished ON order_saga (updated_at) WHERE state NOT IN ('COMPLETED', 'COMPENSATED');
CREATE TABLE saga_manual_intervention (
  id bigserial PRIMARY KEY,
  saga_id bigint NOT NULL,
  created_at timestamptz NOT NULL,
  resolved_at timestamptz,
  reason text
);
CREATE TABLE seats (
  id bigint PRIMARY KEY,
  state text NOT NULL,
  saga_id bigint,
  version integer NOT NULL DEFAULT 0
);
INSERT INTO order_saga
SELECT g, CASE WHEN g % 10 = 0 THEN 'COMPENSATED' ELSE 'COMPLETED' END, 'SHIPPED', 1,
       now() - interval '3 hours' + g * interval '1 second', now() - interval '2 hours' + g * interval '1 second',
       g, 10 + g % 90, 'EUR'
FROM generate_series(4001, 4600) g;
INSERT INTO order_saga VALUES
  (4650, 'COMPLETED', 'SHIPPED', 1, now() - interval '5 hours', now() - interval '4 hours', 4650, 12.00, 'EUR'),
  (4690, 'COMPENSATED', 'SEATS_HELD', 2, now() - interval '3 hours', now() - interval '150 minutes', 4690, 80.00, 'EUR'),
  (4701, 'FAILED', 'PAID', 3, now() - interval '3 hours', now() - interval '2 hours', 4701, 90.00, 'EUR'),
  (4702, 'COMPENSATING', 'SEATS_HELD', 10, now() - interval '50 minutes', now() - interval '5 minutes', 4702, 45.50, 'EUR'),
  (4703, 'PAYMENT_UNKNOWN', 'PAID', 1, now() - interval '55 minutes', now() - interval '40 minutes', 4703, 120.00, 'USD'),
  (4704, 'SHIPPED', 'SHIPPED', 1, now() - interval '25 minutes', now() - interval '20 minutes', 4704, 60.00, 'EUR'),
  (4705, 'SEATS_HELD', 'SEATS_HELD', 2, now() - interval '45 minutes', now() - interval '1 minute', 4705, 30.00, 'EUR'),
  (4706, 'FAILED', 'PAID', 4, now() - interval '4 hours', now() - interval '3 hours', 4706, 75.00, 'EUR'),
  (4707, 'STARTED', 'STARTED', 0, now(), now(), 4707, 20.00, 'EUR');
INSERT INTO saga_manual_intervention (saga_id, created_at, resolved_at, reason) VALUES
  (4706, now() - interval '170 minutes', NULL, 'payment declined twice: call the customer'),
  (4650, now() - interval '250 minutes', NULL, 'shipment late'),
  (4600, now() - interval '6 hours', now() - interval '5 hours', 'resolved long ago');
INSERT INTO seats VALUES (17, 'HELD', 4690, 3), (18, 'HELD', 4690, 3), (19, 'HELD', 4707, 1), (20, 'HELD', 9999, 5), (21, 'AVAILABLE', NULL, 2);
