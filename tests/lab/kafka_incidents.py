"""Injects the Kafka incidents of shared/incidents.md into the lab.

Incident 4: topic `payments` (8 partitions) where a transactional producer began a
transaction on partition 7, wrote, and died without ending it, while committed writes
carry on after it. The coordinator will abort it only at transaction.timeout.ms (the
broker's maximum, 1 hour, in the lab): a lab older than that gets a new one.

Incident 5: topic `orders.created` announcing the orders of database `shop`, except 217
that a SIGKILLed producer never sent; plus a few events delivered twice (at-least-once),
one for an order that does not exist, and one written in a transaction that aborted.
Written once, into an empty topic.

Idempotent: each incident is injected only where it is not present.

    python3 kafka_incidents.py BOOTSTRAP SHOP_DB_URL
"""
import json
import os
import random
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap, shop_url = sys.argv[1], sys.argv[2]
admin = AdminClient({"bootstrap.servers": bootstrap})
existing = admin.list_topics(timeout=30).topics
for name, partitions in (("payments", 8), ("orders.created", 3)):
    if name not in existing:
        for future in admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)]).values():
            try:
                future.result()
            except KafkaException as e:
                if "TOPIC_ALREADY_EXISTS" not in str(e):
                    raise


NO_LEADER_YET = (KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE,
                 KafkaError.UNKNOWN_TOPIC_OR_PART)


def watermarks(topic, partition, isolation):
    """(low, high); under read_committed the high one is the last stable offset. A topic
    created a moment ago may have no leader yet: asked again for up to 30 seconds."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "indoubt-lab-incidents",
                  "isolation.level": isolation, "enable.auto.commit": False})
    try:
        for attempt in range(60):
            try:
                return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=30, cached=False)
            except KafkaException as e:
                if e.args[0].code() not in NO_LEADER_YET or attempt == 59:
                    raise
                time.sleep(0.5)
    finally:
        c.close()


def producer(transactional_id):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                  "transaction.timeout.ms": 3600000})
    p.init_transactions(30)
    return p


def inject_open_payment():
    if os.fork() == 0:
        # The application that crashes: begins, writes to payments-7, dies without a word.
        p = producer("payments-service-7")
        p.begin_transaction()
        for i in range(3):
            p.produce("payments", key=f"payment-{i}", value=f'{{"payment_id": {i}, "amount": 100}}', partition=7)
        p.flush(30)
        os._exit(0)
    os.wait()

    # Everyone else goes on committing after it; read_committed consumers cannot see it.
    p = producer("payments-service-other")
    for i in range(5):
        p.begin_transaction()
        p.produce("payments", key=f"later-{i}", value=f'{{"payment_id": {1000 + i}, "amount": 50}}', partition=7)
        p.commit_transaction(30)


def inject_lost_orders():
    # The order ids come from the database, so the sets really differ.
    order_ids = [int(line) for line in subprocess.run(
        ["psql", "-X", "-At", shop_url, "-c", "SELECT id FROM orders ORDER BY id"],
        check=True, capture_output=True, text=True).stdout.split()]
    lost = set(random.Random(4711).sample(order_ids, 217))
    events = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for order_id in order_ids:
        if order_id not in lost:
            events.produce("orders.created", key=str(order_id), value=json.dumps({"order_id": order_id, "type": "created"}))
    for order_id in order_ids[:3]:
        events.produce("orders.created", key=str(order_id), value=json.dumps({"order_id": order_id, "type": "created"}))
    events.produce("orders.created", key="999999", value=json.dumps({"order_id": 999999, "type": "created"}))
    events.flush(30)
    aborted = producer("orders-relay-aborted")
    aborted.begin_transaction()
    ghost = min(lost)
    aborted.produce("orders.created", key=str(ghost), value=json.dumps({"order_id": ghost, "type": "created"}))
    aborted.flush(30)
    aborted.abort_transaction(30)
    time.sleep(0.1)


# An open transaction pins the LSO below the high watermark; once its coordinator has
# aborted it (after an hour) the two meet again.
if watermarks("payments", 7, "read_committed")[1] == watermarks("payments", 7, "read_uncommitted")[1]:
    inject_open_payment()
# 783 events, 3 duplicates, 1 unknown order, 1 aborted event and its abort marker.
EXPECTED_ORDER_OFFSETS = 789
written = sum(watermarks("orders.created", p, "read_uncommitted")[1] for p in range(3))
if written == 0:
    inject_lost_orders()
elif written < EXPECTED_ORDER_OFFSETS:
    sys.exit(f"orders.created holds {written} of its {EXPECTED_ORDER_OFFSETS} offsets (an injection "
             "was interrupted): run tests/lab/down, then tests/lab/up --incidents")
