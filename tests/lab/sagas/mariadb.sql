-- The saga incident of tests/lab/up --incidents on the lab's MariaDB (database shop):
-- the same order saga as postgres.sql, in MariaDB's SQL, made again at each
-- `up --incidents`.
USE shop;
DROP TABLE IF EXISTS shop.order_saga, shop.saga_manual_intervention, shop.seats;
CREATE TABLE shop.order_saga (
  id BIGINT PRIMARY KEY,
  state VARCHAR(32) NOT NULL,
  step VARCHAR(32),
  attempts INT NOT NULL DEFAULT 0,
  created_at DATETIME(6) NOT NULL,
  updated_at DATETIME(6) NOT NULL,
  order_id BIGINT NOT NULL,
  amount DECIMAL(12,2) NOT NULL,
  currency VARCHAR(3) NOT NULL,
  KEY order_saga_state_updated (state, updated_at)
) ENGINE=InnoDB;
CREATE TABLE shop.saga_manual_intervention (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  saga_id BIGINT NOT NULL,
  created_at DATETIME(6) NOT NULL,
  resolved_at DATETIME(6),
  reason TEXT,
  KEY (saga_id)
) ENGINE=InnoDB;
CREATE TABLE shop.seats (
  id BIGINT PRIMARY KEY,
  state VARCHAR(16) NOT NULL,
  saga_id BIGINT,
  version INT NOT NULL DEFAULT 0,
  KEY (state, saga_id)
) ENGINE=InnoDB;
INSERT INTO shop.order_saga
SELECT seq, IF(seq % 10 = 0, 'COMPENSATED', 'COMPLETED'), 'SHIPPED', 1,
       NOW(6) - INTERVAL 3 HOUR + INTERVAL seq SECOND, NOW(6) - INTERVAL 2 HOUR + INTERVAL seq SECOND,
       seq, 10 + seq % 90, 'EUR'
FROM seq_4001_to_4600;
INSERT INTO shop.order_saga VALUES
  (4650, 'COMPLETED', 'SHIPPED', 1, NOW(6) - INTERVAL 5 HOUR, NOW(6) - INTERVAL 4 HOUR, 4650, 12.00, 'EUR'),
  (4690, 'COMPENSATED', 'SEATS_HELD', 2, NOW(6) - INTERVAL 3 HOUR, NOW(6) - INTERVAL 150 MINUTE, 4690, 80.00, 'EUR'),
  (4701, 'FAILED', 'PAID', 3, NOW(6) - INTERVAL 3 HOUR, NOW(6) - INTERVAL 2 HOUR, 4701, 90.00, 'EUR'),
  (4702, 'COMPENSATING', 'SEATS_HELD', 10, NOW(6) - INTERVAL 50 MINUTE, NOW(6) - INTERVAL 5 MINUTE, 4702, 45.50, 'EUR'),
  (4703, 'PAYMENT_UNKNOWN', 'PAID', 1, NOW(6) - INTERVAL 55 MINUTE, NOW(6) - INTERVAL 40 MINUTE, 4703, 120.00, 'USD'),
  (4704, 'SHIPPED', 'SHIPPED', 1, NOW(6) - INTERVAL 25 MINUTE, NOW(6) - INTERVAL 20 MINUTE, 4704, 60.00, 'EUR'),
  (4705, 'SEATS_HELD', 'SEATS_HELD', 2, NOW(6) - INTERVAL 45 MINUTE, NOW(6) - INTERVAL 1 MINUTE, 4705, 30.00, 'EUR'),
  (4706, 'FAILED', 'PAID', 4, NOW(6) - INTERVAL 4 HOUR, NOW(6) - INTERVAL 3 HOUR, 4706, 75.00, 'EUR'),
  (4707, 'STARTED', 'STARTED', 0, NOW(6), NOW(6), 4707, 20.00, 'EUR');
INSERT INTO shop.saga_manual_intervention (saga_id, created_at, resolved_at, reason) VALUES
  (4706, NOW(6) - INTERVAL 170 MINUTE, NULL, 'payment declined twice: call the customer'),
  (4650, NOW(6) - INTERVAL 250 MINUTE, NULL, 'shipment late'),
  (4600, NOW(6) - INTERVAL 6 HOUR, NOW(6) - INTERVAL 5 HOUR, 'resolved long ago');
INSERT INTO shop.seats VALUES (17, 'HELD', 4690, 3), (18, 'HELD', 4690, 3), (19, 'HELD', 4707, 1), (20, 'HELD', 9999, 5), (21, 'AVAILABLE', NULL, 2);
