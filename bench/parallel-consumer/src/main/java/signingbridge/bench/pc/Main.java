package signingbridge.bench.pc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The throughput benchmark's parallel-consumer subject (bench/README.md): Confluent's
 * parallel-consumer with KEY ordering, maxConcurrency = the benchmark's --connections and the
 * default commit mode (periodic, consumer, asynchronous); pollAndProduceMany turns each command
 * record into one result event in the naive baseline's format (src/producers/cloud-events.ts:
 * CloudEvents binary mode, key bizId, JSON value). Configured by PC_* environment variables (see
 * bench/bridge/parallel-consumer.ts); prints `parallel-consumer consuming` once its partitions are
 * assigned, and stops on SIGTERM.
 */
public final class Main {
  private static final DateTimeFormatter RFC3339_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    String brokers = env("PC_BROKERS");
    String eventsTopic = env("PC_EVENTS_TOPIC");
    String source = env("PC_SOURCE");
    String schemaPrefix = env("PC_SCHEMA_PREFIX");
    Map<String, String> typeOf = typesByTopic(env("PC_COMMAND_TOPICS"));

    ObjectMapper json = new ObjectMapper();
    Platform platform =
        new Platform(env("PC_API_URL"), env("PC_APP_TOKEN"), env("PC_APP_SECRET"), json);
    Commands commands = new Commands(platform, json);

    Properties consumerProps = new Properties();
    consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, env("PC_GROUP_ID"));
    consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, "parallel-consumer");
    // parallel-consumer commits itself, and refuses a consumer that auto-commits.
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Properties producerProps = new Properties();
    producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    producerProps.put(ProducerConfig.CLIENT_ID_CONFIG, "parallel-consumer");

    KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer());
    KafkaProducer<String, String> producer =
        new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer());
    ParallelConsumerOptions<String, String> options =
        ParallelConsumerOptions.<String, String>builder()
            .ordering(ProcessingOrder.KEY)
            .maxConcurrency(Integer.parseInt(env("PC_MAX_CONCURRENCY")))
            .consumer(consumer)
            .producer(producer)
            .build();
    ParallelStreamProcessor<String, String> processor =
        ParallelStreamProcessor.createEosStreamProcessor(options);

    AtomicBoolean said = new AtomicBoolean();
    processor.subscribe(
        new ArrayList<>(typeOf.keySet()),
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!said.getAndSet(true)) {
              System.out.println("parallel-consumer consuming " + partitions.size() + " partitions");
              System.out.flush();
            }
          }

          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
        });

    processor.pollAndProduceMany(
        context -> {
          List<ProducerRecord<String, String>> out = new ArrayList<>(1);
          for (var record : context.getConsumerRecordsFlattened()) {
            Commands.Handled handled = handle(commands, typeOf, record);
            if (handled == null) continue;
            out.add(event(json, eventsTopic, source, schemaPrefix, handled));
          }
          return out;
        });

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  processor.closeDontDrainFirst();
                  stopped.countDown();
                }));
    stopped.await();
  }

  private static Commands.Handled handle(
      Commands commands, Map<String, String> typeOf, ConsumerRecord<String, String> record) {
    try {
      return commands.handle(typeOf.get(record.topic()), record.value());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** One event as src/producers/cloud-events.ts encodes it: ce_* headers, key bizId, JSON data. */
  private static ProducerRecord<String, String> event(
      ObjectMapper json,
      String topic,
      String source,
      String schemaPrefix,
      Commands.Handled handled) {
    Commands.Event event = handled.event();
    String value;
    try {
      value = json.writeValueAsString(event.data());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    List<Header> headers = new ArrayList<>(9);
    header(headers, "ce_specversion", "1.0");
    header(headers, "ce_id", handled.commandId() + "/" + event.step());
    header(headers, "ce_type", event.type());
    header(headers, "ce_source", source);
    header(headers, "ce_time", RFC3339_MILLIS.format(Instant.now()));
    header(headers, "ce_dataschema", schemaPrefix + event.type());
    header(headers, "ce_correlationid", handled.commandId());
    header(headers, "content-type", "application/json");
    header(headers, "ce_subject", handled.bizId());
    return new ProducerRecord<>(topic, null, handled.bizId(), value, headers);
  }

  private static void header(List<Header> headers, String name, String value) {
    headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8)));
  }

  /** `topic=type,topic=type,...` */
  private static Map<String, String> typesByTopic(String list) {
    Map<String, String> typeOf = new HashMap<>();
    for (String pair : list.split(",")) {
      int eq = pair.lastIndexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("PC_COMMAND_TOPICS: not topic=type: " + pair);
      typeOf.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return typeOf;
  }

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) throw new IllegalStateException(name + " is required");
    return value;
  }
}
