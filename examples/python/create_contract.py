"""Sends a create-contract command to signing-bridge and prints the event that ends it.

A producer in Python, with confluent-kafka (librdkafka): the record is keyed by the bizId and
partitioned with murmur2, as the bridge's producers must (librdkafka's own default, CRC32,
would put it on another partition than Java and kafkajs clients do). The events topic is read
from its end, and each record decoded with the CloudEvents SDK's Kafka binding.

    pip install -r requirements.txt
    KAFKA_BROKERS=localhost:9092 python create_contract.py

Settings (environment): KAFKA_BROKERS (default localhost:9092), TOPIC_PREFIX (default
signing-bridge.), BIZ_ID (default a fresh one), TIMEOUT_S (default 60).
Prints the terminal event as one JSON line; exits 1 if none came in time.
"""

import json
import os
import sys
import time
import uuid

from cloudevents.core.bindings.kafka import KafkaMessage, from_binary_event
from confluent_kafka import Consumer, Producer, TopicPartition

# The event types that end a create-contract command (see the README's "Commands and events").
ENDINGS = {
    "signingbridge.contract.created",
    "signingbridge.command.rejected",
    "signingbridge.command.failed",
    "signingbridge.command.gave-up",
    "signingbridge.command.precondition-timed-out",
}


def create_contract(biz_id):
    return {
        "commandId": f"{biz_id}-create",
        "bizId": biz_id,
        "payload": {
            "contract": {
                "subject": f"Contract {biz_id}",
                "signatories": [
                    {
                        "tenantType": "PERSONAL",
                        "tenantName": "Li Lei",
                        "receiver": {"contact": "13800000001", "contactType": "MOBILE"},
                    }
                ],
            }
        },
    }


def events_from_end(brokers, topic):
    """A consumer of every partition of the events topic, positioned at its end."""
    consumer = Consumer({
        "bootstrap.servers": brokers,
        "group.id": f"example-{uuid.uuid4()}",
        "enable.auto.commit": False,
        "isolation.level": "read_committed",
    })
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    assignment = []
    for partition in partitions:
        _, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
        assignment.append(TopicPartition(topic, partition, high))
    consumer.assign(assignment)
    return consumer


def send(brokers, topic, command):
    producer = Producer({
        "bootstrap.servers": brokers,
        "partitioner": "murmur2_random",
        "enable.idempotence": True,
    })
    errors = []
    producer.produce(
        topic,
        key=command["bizId"].encode(),
        value=json.dumps(command).encode(),
        on_delivery=lambda error, _: errors.append(error) if error else None,
    )
    producer.flush(10)
    if errors:
        raise RuntimeError(f"not sent: {errors[0]}")


def terminal_event(consumer, command_id, deadline):
    while time.monotonic() < deadline:
        record = consumer.poll(0.5)
        if record is None or record.error():
            continue
        headers = {name: value for name, value in record.headers() or []}
        event = from_binary_event(KafkaMessage(headers=headers, key=record.key(), value=record.value()))
        if event.get_extension("correlationid") == command_id and event.get_type() in ENDINGS:
            return event
    return None


def main():
    brokers = os.environ.get("KAFKA_BROKERS", "localhost:9092")
    prefix = os.environ.get("TOPIC_PREFIX", "signing-bridge.")
    biz_id = os.environ.get("BIZ_ID") or f"example-{uuid.uuid4().hex[:8]}"
    deadline = time.monotonic() + float(os.environ.get("TIMEOUT_S", "60"))

    command = create_contract(biz_id)
    consumer = events_from_end(brokers, f"{prefix}events")
    try:
        send(brokers, f"{prefix}commands.create-contract", command)
        event = terminal_event(consumer, command["commandId"], deadline)
    finally:
        consumer.close()
    if event is None:
        print(f"no terminal event for {command['commandId']} in time", file=sys.stderr)
        return 1
    print(json.dumps({
        "type": event.get_type(),
        "id": event.get_id(),
        "subject": event.get_subject(),
        "dataschema": event.get_dataschema(),
        "data": event.get_data(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
