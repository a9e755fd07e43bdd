package example;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends a create-contract command to signing-bridge and prints the event that ends it.
 *
 * <p>The record is keyed by the bizId; the Java client's default partitioner hashes keys with
 * murmur2, which is what the bridge expects, so no partitioner is configured. The events topic
 * is read from its end; an event's attributes are in its ce_* headers (CloudEvents, Kafka binary
 * mode) and its data is the JSON value.
 *
 * <p>Settings (environment): KAFKA_BROKERS (default localhost:9092), TOPIC_PREFIX (default
 * signing-bridge.), BIZ_ID (default a fresh one), TIMEOUT_S (default 60). Prints the terminal
 * event as one JSON line; exits 1 if none came in time.
 */
public final class CreateContract {
  /** The event types that end a create-contract command. */
  private static final Set<String> ENDINGS =
      Set.of(
          "signingbridge.contract.created",
          "signingbridge.command.rejected",
          "signingbridge.command.failed",
          "signingbridge.command.gave-up",
          "signingbridge.command.precondition-timed-out");

  private CreateContract() {}

  public static void main(String[] args) throws Exception {
    String brokers = env("KAFKA_BROKERS", "localhost:9092");
    String prefix = env("TOPIC_PREFIX", "signing-bridge.");
    String bizId = env("BIZ_ID", "example-" + UUID.randomUUID().toString().substring(0, 8));
    Instant deadline = Instant.now().plusSeconds(Long.parseLong(env("TIMEOUT_S", "60")));
    String commandId = bizId + "-create";

    try (KafkaConsumer<String, String> consumer = eventsFromEnd(brokers, prefix + "events")) {
      send(brokers, prefix + "commands.create-contract", bizId, command(commandId, bizId));
      while (Instant.now().isBefore(deadline)) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          String type = header(record, "ce_type");
          if (commandId.equals(header(record, "ce_correlationid")) && ENDINGS.contains(type)) {
            System.out.printf(
                "{\"type\":\"%s\",\"id\":\"%s\",\"subject\":\"%s\",\"data\":%s}%n",
                type, header(record, "ce_id"), record.key(), record.value());
            return;
          }
        }
      }
    }
    System.err.println("no terminal event for " + commandId + " in time");
    System.exit(1);
  }

  /** The command as JSON: a draft with one individual signing. */
  private static String command(String commandId, String bizId) {
    return """
        {"commandId": "%s", "bizId": "%s", "payload": {"contract": {
          "subject": "Contract %s",
          "signatories": [{"tenantType": "PERSONAL", "tenantName": "Li Lei",
            "receiver": {"contact": "13800000001", "contactType": "MOBILE"}}]}}}
        """
        .formatted(commandId, bizId, bizId);
  }

  private static void send(String brokers, String topic, String key, String value)
      throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    }
  }

  /** A consumer of every partition of the events topic, positioned at its end. */
  private static KafkaConsumer<String, String> eventsFromEnd(String brokers, String topic) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(info -> new TopicPartition(topic, info.partition()))
            .toList();
    consumer.assign(partitions);
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
    ends.forEach(consumer::seek);
    return consumer;
  }

  private static String header(ConsumerRecord<String, String> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }
}
