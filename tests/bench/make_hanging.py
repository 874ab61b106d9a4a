"""Benchmark fixture: genuinely hanging transactions, made with raw Kafka requests.

For each partition given: InitProducerId for a fresh transactional id, then a
transactional record batch written straight to the partition (Produce v3, so a
transaction.version=2 broker does not add the partition for us) without
AddPartitionsToTxn. The lab broker disables KIP-890's verification, so the write is
accepted and the coordinator never learns of the partition: a hanging transaction.

    python make_hanging.py HOST:PORT TOPIC PARTITION [PARTITION ...]
prints one line per transaction: PARTITION PRODUCER_ID START_OFFSET
"""
import socket
import struct
import sys
import time
import uuid

from kafka.record.default_records import DefaultRecordBatchBuilder

host, port = sys.argv[1].rsplit(":", 1)
topic = sys.argv[2]
partitions = [int(p) for p in sys.argv[3:]]
sock = socket.create_connection((host, int(port)), timeout=30)
correlation = 0


def string(s):
    data = s.encode()
    return struct.pack(">h", len(data)) + data


def call(api_key, version, body):
    global correlation
    correlation += 1
    header = struct.pack(">hhi", api_key, version, correlation) + string("indoubt-bench")
    frame = header + body
    sock.sendall(struct.pack(">i", len(frame)) + frame)
    size = struct.unpack(">i", recv(4))[0]
    response = recv(size)
    assert struct.unpack(">i", response[:4])[0] == correlation
    return response[4:]


def recv(n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise SystemExit("broker closed the connection")
        data += chunk
    return data


for partition in partitions:
    txn_id = f"bench-hanging-{uuid.uuid4().hex[:8]}"
    # InitProducerId v1: transactional_id, transaction_timeout_ms
    body = call(22, 1, string(txn_id) + struct.pack(">i", 60000))
    _throttle, error, producer_id, epoch = struct.unpack(">ihqh", body[:16])
    assert error == 0, f"InitProducerId error {error}"
    batch = DefaultRecordBatchBuilder(2, 0, True, producer_id, epoch, 0, 1 << 20)
    batch.append(0, int(time.time() * 1000), None, b"orphaned write", [])
    records = bytes(batch.build())
    # Produce v3: transactional_id, acks, timeout, [topic [partition records]]
    body = (string(txn_id) + struct.pack(">hi", -1, 30000) + struct.pack(">i", 1) + string(topic)
            + struct.pack(">i", 1) + struct.pack(">i", partition) + struct.pack(">i", len(records)) + records)
    # A topic created a moment ago may not have its leaders yet: retry those errors.
    for attempt in range(40):
        response = call(0, 3, body)
        # responses[1]: topic, partitions[1]: partition(i32) error(i16) base_offset(i64) ...
        name_len = struct.unpack(">h", response[4:6])[0]
        at = 6 + name_len + 4
        _p, error, base_offset = struct.unpack(">ihq", response[at:at + 14])
        if error not in (3, 5, 6):  # UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER
            break
        time.sleep(0.5)
    assert error == 0, f"Produce error {error} on partition {partition}"
    print(partition, producer_id, base_offset)
