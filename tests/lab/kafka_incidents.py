"""Injects the Kafka incident of shared/incidents.md into the lab: topic `payments`
(8 partitions) where a transactional producer began a transaction on partition 7, wrote,
and died without ending it, while committed writes carry on after it. The coordinator
will abort it only at transaction.timeout.ms (the broker's maximum, 1 hour, in the lab).

    python3 kafka_incidents.py BOOTSTRAP
"""
import os
import sys
import time

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap = sys.argv[1]
admin = AdminClient({"bootstrap.servers": bootstrap})
if "payments" not in admin.list_topics(timeout=30).topics:
    for future in admin.create_topics([NewTopic("payments", num_partitions=8, replication_factor=1)]).values():
        try:
            future.result()
        except KafkaException as e:
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise


def producer(transactional_id):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                  "transaction.timeout.ms": 3600000})
    p.init_transactions(30)
    return p


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
time.sleep(0.1)
